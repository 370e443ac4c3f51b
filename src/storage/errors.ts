/**
 * Storage-level errors. The registry translates these into ApiErrors that
 * name the group/resource; nothing above the registry should see them.
 * Unavailable (the store cannot be reached) and Timeout (it did not answer within the request
 * timeout) come only from remote stores (etcd). RequestTooLarge: a write over the store's request
 * size limit (etcd's 1.5 MiB by default; see size-limited-storage.ts).
 */
export type StorageErrorCode =
  | "KeyNotFound"
  | "KeyExists"
  | "RevisionConflict"
  | "PreconditionFailed"
  | "Compacted"
  | "FutureRevision"
  | "Closed"
  | "Unavailable"
  | "Timeout"
  | "RequestTooLarge";

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  readonly key: string;
  /** For Compacted: the oldest revision still readable. For FutureRevision: the current revision. */
  readonly revision: number;

  constructor(code: StorageErrorCode, key: string, options: { revision?: number; message?: string; cause?: unknown } = {}) {
    // Expected outcomes (not found, conflicts…) carry no stack: capturing one is most of their cost
    // and nothing reads it; an underlying failure keeps its own stack as the `cause`.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(options.message ?? `${code}: ${key}`, options.cause === undefined ? undefined : { cause: options.cause });
    Error.stackTraceLimit = limit;
    this.name = "StorageError";
    this.code = code;
    this.key = key;
    this.revision = options.revision ?? 0;
  }
}

export function isStorageError(error: unknown, code?: StorageErrorCode): error is StorageError {
  return error instanceof StorageError && (code === undefined || error.code === code);
}
