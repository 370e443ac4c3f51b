/** Public surface of the storage layer. */
export type {
  DeleteOptions,
  DeleteResult,
  KeyValue,
  ListOptions,
  ListResult,
  ReadOptions,
  SharedRevision,
  Storage,
  UpdateFunction,
  UpdateOptions,
  UpdateResult,
  WatchEvent,
  WatchEventType,
  WatchOptions,
} from "./interface.js";
export { StorageError, isStorageError, type StorageErrorCode } from "./errors.js";
export { MemoryStorage } from "./memory/memory-storage.js";
export { SqliteStorage } from "./sqlite/sqlite-storage.js";
export { startCompactor, type CompactorOptions } from "./compactor.js";
export { KeyLayout, resourcePrefix, type GroupResource, type StoredResource } from "./key-layout.js";
export { UTF8_VALUES, type ValueEncoding } from "./value-encoding.js";
export { legacyMoves, upgradeLegacyKeys, type BuiltinResource } from "./legacy-layout.js";
export { InstrumentedStorage, type StorageObserver, type StorageOperation } from "./instrumented-storage.js";
export { SizeLimitedStorage, DEFAULT_MAX_REQUEST_BYTES } from "./size-limited-storage.js";
