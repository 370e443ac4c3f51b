import { ApiError, alreadyExists, conflict, gone, internalError, notFound, timeout, type ErrorTarget } from "../api/errors.js";
import { isStorageError } from "../storage/index.js";

/** etcd's answer to a write over its request size limit, which kube-apiserver shows as it is. */
export const REQUEST_TOO_LARGE_MESSAGE = "etcdserver: request is too large";

export const CONFLICT_MESSAGE = "the object has been modified; please apply your changes to the latest version and try again";

/** Storage errors → ApiErrors naming the resource; ApiErrors pass through; anything else is a 500. */
export function translateStorageError(error: unknown, target: ErrorTarget): ApiError {
  if (error instanceof ApiError) return error;
  if (isStorageError(error)) {
    switch (error.code) {
      case "KeyNotFound":
        return notFound(target);
      case "KeyExists":
        return alreadyExists(target);
      case "RevisionConflict":
      case "PreconditionFailed":
        return conflict(target, CONFLICT_MESSAGE);
      case "Compacted":
        return gone(`The resourceVersion for the provided list is too old.`);
      case "FutureRevision":
        return timeout(`Too large resource version: current ${error.revision}`, 1);
      case "Closed":
        return new ApiError(503, "ServiceUnavailable", "storage is closed");
      case "Unavailable":
        return new ApiError(503, "ServiceUnavailable", error.message);
      case "Timeout":
        return new ApiError(504, "Timeout", error.message, { details: { retryAfterSeconds: 1 }, headers: { "Retry-After": "1" } });
      case "RequestTooLarge":
        // kube-apiserver 1.30 passes etcd's error through as a 500 (kube issue 112152); the issue
        // this server follows asks for a client error: 413 with etcd's message, nothing written.
        return new ApiError(413, "RequestEntityTooLarge", REQUEST_TOO_LARGE_MESSAGE, { cause: error });
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return internalError(message, error);
}
