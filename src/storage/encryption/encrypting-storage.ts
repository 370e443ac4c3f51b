import type {
  DeleteOptions,
  DeleteResult,
  KeyValue,
  ListOptions,
  ListResult,
  ReadOptions,
  Storage,
  UpdateFunction,
  UpdateOptions,
  UpdateResult,
  WatchEvent,
  WatchOptions,
} from "../interface.js";
import { ForwardingStorage } from "../forwarding-storage.js";
import type { EncryptionConfig } from "./encryption-config.js";
import { decodeValue, encodeValue, type DecodedValue } from "./transformer.js";

/**
 * Encryption at rest as a Storage decorator: values are encrypted on the way down and decrypted on
 * the way up, per key, by the EncryptionConfiguration's chain for the key's resource; whatever
 * backend is below (SQLite, etcd, memory) only ever holds ciphertext for those resources. Keys,
 * revisions and ordering pass through unchanged, so the Storage contract holds above it.
 *
 * guaranteedUpdate keeps the contract's "nothing is written when unchanged" with random IVs: an
 * unchanged plain text hands the stored bytes back untouched, unless the value is stale (written
 * by a key other than the first), in which case it is re-encrypted and written: the rewrite
 * `kubectl get … -o json | kubectl replace -f -` and `rewriteAll` rely on that, as in kube.
 * `setConfig` swaps the configuration for the next call (automatic reload).
 */
export class EncryptingStorage extends ForwardingStorage {
  constructor(
    inner: Storage,
    private config: EncryptionConfig,
  ) {
    super(inner);
  }

  /** Replaces the configuration (a reload); the previous one's KMS connections are closed by the caller. */
  setConfig(config: EncryptionConfig): void {
    this.config = config;
  }

  private async encode(key: string, plaintext: string): Promise<string> {
    const chain = this.config.chainFor(key);
    return chain === undefined ? plaintext : encodeValue(chain, plaintext, key);
  }

  private async decodeFull(key: string, stored: string): Promise<DecodedValue> {
    const chain = this.config.chainFor(key);
    return chain === undefined ? { plaintext: stored, stale: false } : decodeValue(chain, stored, key);
  }

  private async decode(key: string, stored: string): Promise<string> {
    return (await this.decodeFull(key, stored)).plaintext;
  }

  private async decodeKeyValue(entry: KeyValue): Promise<KeyValue> {
    return { ...entry, value: await this.decode(entry.key, entry.value) };
  }

  override async create(key: string, value: string): Promise<number> {
    return this.inner.create(key, await this.encode(key, value));
  }

  override async get(key: string, options?: ReadOptions): Promise<KeyValue> {
    return this.decodeKeyValue(await this.inner.get(key, options));
  }

  override async list(prefix: string, options?: ListOptions): Promise<ListResult> {
    const result = await this.inner.list(prefix, options);
    return { ...result, items: await Promise.all(result.items.map((item) => this.decodeKeyValue(item))) };
  }

  override async guaranteedUpdate(key: string, tryUpdate: UpdateFunction, options?: UpdateOptions): Promise<UpdateResult> {
    let written: string | undefined;
    const result = await this.inner.guaranteedUpdate(
      key,
      async (current) => {
        const decoded = current === undefined ? undefined : await this.decodeFull(key, current.value);
        const next = await tryUpdate(current === undefined || decoded === undefined ? undefined : { ...current, value: decoded.plaintext });
        if (typeof next !== "string") return next;
        written = next;
        if (current !== undefined && decoded !== undefined && decoded.plaintext === next && !decoded.stale) return current.value;
        return this.encode(key, next);
      },
      options,
    );
    if (result.value === undefined) return result;
    const value = written ?? (await this.decode(key, result.value.value));
    return { ...result, value: { ...result.value, value } };
  }

  override async delete(key: string, options?: DeleteOptions): Promise<DeleteResult> {
    const result = await this.inner.delete(key, options);
    return { ...result, previous: await this.decodeKeyValue(result.previous) };
  }

  override async *watch(prefix: string, fromRevision: number, signal: AbortSignal, options?: WatchOptions): AsyncIterable<WatchEvent> {
    for await (const event of this.inner.watch(prefix, fromRevision, signal, options)) {
      yield {
        ...event,
        value: event.value === undefined ? undefined : await this.decode(event.key, event.value),
        previous: event.previous === undefined ? undefined : await this.decode(event.key, event.previous),
      };
    }
  }
}

/** What a rewrite did: keys visited and keys written again (stale or plain where encryption is now configured). */
export interface RewriteReport {
  readonly visited: number;
  readonly rewritten: number;
}

/**
 * Re-encrypts every value under `prefixes` whose stored form is stale with the current
 * configuration (written by an older key, provider or as plain text), through guaranteedUpdate,
 * so concurrent writers are safe. Pages through each prefix.
 */
export async function rewriteAll(storage: EncryptingStorage, prefixes: readonly string[], pageSize = 500): Promise<RewriteReport> {
  let visited = 0;
  let rewritten = 0;
  for (const prefix of prefixes) {
    let startAfter: string | undefined;
    for (;;) {
      const page = await storage.list(prefix, { limit: pageSize, ...(startAfter === undefined ? {} : { startAfter }) });
      for (const item of page.items) {
        visited++;
        const result = await storage.guaranteedUpdate(item.key, (current) => (current === undefined ? { delete: true } : current.value), {
          ignoreNotFound: true,
        });
        if (result.value !== undefined && result.value.modRevision !== item.modRevision) rewritten++;
      }
      const last = page.items.at(-1);
      if (page.remaining === 0 || last === undefined) break;
      startAfter = last.key;
    }
  }
  return { visited, rewritten };
}
