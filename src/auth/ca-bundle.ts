import { X509Certificate } from "node:crypto";
import type { PeerCertificate } from "../request/context.js";

/** A PEM bundle of CA certificates, parsed once; replaced (not mutated) when its file changes. */
export interface CaBundle {
  readonly pem: string;
  readonly certificates: readonly X509Certificate[];
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Parses every certificate of a PEM bundle; throws naming `what` when there is none or one is malformed. */
export function parseCaBundle(pem: string, what: string): CaBundle {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new Error(`${what}: no PEM certificate found`);
  const certificates = blocks.map((block, index) => {
    try {
      return new X509Certificate(block);
    } catch (error) {
      throw new Error(`${what}: certificate ${index + 1} is not valid: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  });
  return { pem, certificates };
}

function issues(issuer: X509Certificate, subject: X509Certificate, now: number): boolean {
  if (Date.parse(issuer.validFrom) > now || Date.parse(issuer.validTo) < now) return false;
  return subject.checkIssued(issuer) && subject.verify(issuer.publicKey);
}

/**
 * Whether a chain (leaf first) leads to a certificate of the bundle: each link's signature is
 * verified and intermediates must be CAs. Certificates are compared by signature, not by name,
 * so a client CA and a request-header CA with equal subjects are still told apart.
 */
export function chainsTo(chain: readonly X509Certificate[], bundle: CaBundle, now = Date.now()): boolean {
  for (let index = 0; index < chain.length; index++) {
    const certificate = chain[index] as X509Certificate;
    if (bundle.certificates.some((anchor) => issues(anchor, certificate, now))) return true;
    const next = chain[index + 1];
    if (next === undefined || !next.ca || !issues(next, certificate, now)) return false;
  }
  return false;
}

const parsedChains = new WeakMap<PeerCertificate, readonly X509Certificate[]>();
const verdicts = new WeakMap<PeerCertificate, WeakMap<CaBundle, boolean>>();

/**
 * Whether a connection's peer certificate was issued by the bundle. The answer is kept per
 * certificate (one per connection) and bundle, so a request costs two WeakMap lookups.
 */
export function peerIssuedBy(peer: PeerCertificate, bundle: CaBundle): boolean {
  let byBundle = verdicts.get(peer);
  const known = byBundle?.get(bundle);
  if (known !== undefined) return known;
  let chain = parsedChains.get(peer);
  if (chain === undefined) {
    try {
      chain = (peer.chain ?? []).map((der) => new X509Certificate(der));
    } catch {
      chain = [];
    }
    parsedChains.set(peer, chain);
  }
  const verdict = chainsTo(chain, bundle);
  if (byBundle === undefined) {
    byBundle = new WeakMap();
    verdicts.set(peer, byBundle);
  }
  byBundle.set(bundle, verdict);
  return verdict;
}
