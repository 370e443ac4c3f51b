import type { Profile } from "../api/profile.js";

export type StorageBackend = "sqlite" | "memory";

/** Everything a server needs to start; flags and library options both produce one. */
export interface Config {
  readonly securePort: number;
  readonly bindAddress: string;
  readonly dataDir: string;
  readonly tlsCertFile?: string;
  readonly tlsPrivateKeyFile?: string;
  readonly clientCaFile?: string;
  readonly tokenAuthFile?: string;
  readonly storageBackend: StorageBackend;
  readonly profile: Profile;
  readonly verbosity: number;
  /** `--etcd-compaction-interval`; 0 disables compaction. */
  readonly compactionIntervalMs: number;
  /** `--shutdown-delay-duration`: how long /readyz fails before the listener stops. */
  readonly shutdownDelayMs: number;
  /** Grace for in-flight requests on stop. */
  readonly shutdownGraceMs: number;
  readonly anonymousAuth: boolean;
  /** `--watch-cache`: serve lists and watches from the watch cache. */
  readonly watchCache: boolean;
  /** `--default-watch-cache-size`: events kept per resource for resuming watches. */
  readonly watchCacheSize: number;
  /** `--min-request-timeout` (seconds): a watch without timeoutSeconds lasts between this and twice this. */
  readonly minRequestTimeoutSeconds: number;
}
