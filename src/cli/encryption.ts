import {
  EncryptingStorage,
  EncryptionConfigError,
  loadEncryptionConfig,
  rewriteAll,
  type EncryptionConfig,
  type RewriteReport,
} from "../storage/encryption/index.js";
import { KeyLayout, type Storage } from "../storage/index.js";
import { storedBuiltinResources } from "../registry/index.js";
import type { HealthCheck } from "../server/health/health.js";
import { watchFiles, type FileWatcher } from "../util/file-watcher.js";
import { errorFields, type Logger } from "../util/logger.js";
import type { Config } from "./config.js";
import { StartupError } from "./data-dir.js";

/** The store with `--encryption-provider-config` applied, its KMS health check, and what stops the reload. */
export interface EncryptedStorage {
  readonly storage: Storage;
  /** `kms-providers`: every KMS plugin answers Status healthy (kube's /healthz/kms-providers). */
  readonly healthChecks: readonly HealthCheck[];
  /** Re-encrypts the stale values under the prefixes (the `encryption rewrite` command). */
  rewrite(prefixes: readonly string[]): Promise<RewriteReport>;
  stop(): void;
}

/**
 * Wraps the store in the EncryptionConfiguration of `--encryption-provider-config` (a bad file
 * fails the start). With automatic reload the file is polled; a valid new file replaces the
 * configuration for the next write and read, an invalid one is logged and the previous kept.
 */
export function applyEncryption(storage: Storage, config: Config, logger: Logger): EncryptedStorage {
  const path = config.encryptionProviderConfig;
  if (path === undefined) return { storage, healthChecks: [], rewrite: async () => ({ visited: 0, rewritten: 0 }), stop: () => {} };
  const layout = new KeyLayout(storedBuiltinResources(config.profile));
  let current: EncryptionConfig;
  try {
    current = loadEncryptionConfig(path, config.profile, { layout });
  } catch (error) {
    if (error instanceof EncryptionConfigError) throw new StartupError(`--encryption-provider-config: ${error.message}`);
    throw error;
  }
  const encrypting = new EncryptingStorage(storage, current);
  let watcher: FileWatcher | undefined;
  if (config.encryptionProviderConfigAutomaticReload) {
    watcher = watchFiles([path], () => {
      try {
        const next = loadEncryptionConfig(path, config.profile, { layout });
        const previous = current;
        current = next;
        encrypting.setConfig(next);
        previous.close();
        logger.info("reloaded the encryption configuration", { file: path });
      } catch (error) {
        logger.error("reloading the encryption configuration failed; keeping the previous one", errorFields(error));
      }
    });
  }
  const kmsCheck: HealthCheck = {
    name: "kms-providers",
    check: async () => {
      await Promise.all(current.kmsProviders.map((kms) => kms.checkHealth()));
    },
  };
  return {
    storage: encrypting,
    healthChecks: current.kmsProviders.length > 0 || config.encryptionProviderConfigAutomaticReload ? [kmsCheck] : [],
    rewrite: (prefixes) => rewriteAll(encrypting, prefixes),
    stop() {
      watcher?.stop();
      current.close();
    },
  };
}
