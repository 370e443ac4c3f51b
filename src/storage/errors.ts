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
    super(options.message ?? `${code}: ${key}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "StorageError";
    this.code = code;
    this.key = key;
    this.revision = options.revision ?? 0;
  }
}

export function isStorageError(error: unknown, code?: StorageErrorCode): error is StorageError {
  return error instanceof StorageError && (code === undefined || error.code === code);
}
