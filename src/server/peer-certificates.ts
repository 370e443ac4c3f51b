import type { PeerCertificate } from "../request/context.js";

/** Chains kept, at most (the oldest made goes first). */
const MAX_CHAINS = 1024;
/** A chain's entry is made again after this long, so whatever its authenticators worked out is too. */
const LIFETIME_MS = 10 * 60_000;

interface Entry {
  readonly peer: PeerCertificate;
  readonly madeAt: number;
}

/**
 * A connection's client certificate as the pipeline sees it, shared by every connection that
 * presented the same verified chain. Authenticators keep what they work out about a certificate
 * (its chain parsed into X509Certificates, whether a CA bundle issued it: ~0.4 ms of CPU, most
 * of a connection's cost beyond its handshake) by the `PeerCertificate` object, so 1,000
 * connections of one client (a fleet of watches, each on its own connection) pay for it once.
 *
 * Chains are told apart by the SHA-256 fingerprints of all their links, leaf first, so a leaf
 * presented with other intermediates is another entry. Only chains TLS verified at the handshake
 * are looked up (the caller checks `authorized` per connection, each time), and an entry is made
 * again after `lifetimeMs`, so a cached answer is never older than that; a reloaded CA bundle is
 * a new bundle object, which authenticators key their answers by.
 */
export class PeerCertificates {
  private readonly entries = new Map<string, Entry>();
  private readonly maxChains: number;
  private readonly lifetimeMs: number;
  private readonly now: () => number;

  constructor(options: { readonly maxChains?: number; readonly lifetimeMs?: number; readonly now?: () => number } = {}) {
    this.maxChains = options.maxChains ?? MAX_CHAINS;
    this.lifetimeMs = options.lifetimeMs ?? LIFETIME_MS;
    this.now = options.now ?? Date.now;
  }

  /** The shared certificate of the chain with these link fingerprints, made by `make` when none is kept. */
  get(fingerprints: string, make: () => PeerCertificate): PeerCertificate {
    const now = this.now();
    const kept = this.entries.get(fingerprints);
    if (kept !== undefined && now - kept.madeAt < this.lifetimeMs) return kept.peer;
    if (kept !== undefined) this.entries.delete(fingerprints);
    const peer = make();
    if (this.entries.size >= this.maxChains) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(fingerprints, { peer, madeAt: now });
    return peer;
  }

  /** Chains kept (tests). */
  get size(): number {
    return this.entries.size;
  }
}
