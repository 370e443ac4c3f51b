import type { ApiClient } from "../../../api/client.js";
import { ApiError } from "../../../api/errors.js";
import { nowTimestamp, type ApiObject } from "../../../api/object.js";
import type { Profile } from "../../../api/profile.js";
import { objectKey, type InformerFactory } from "../../runtime/informer.js";
import type { QueueControllerSpec } from "../../runtime/queue-controller.js";
import { csrResource, hasTrueCondition, parseRequest, viewCsr } from "../csr.js";
import { loadAuthority, type CertificateAuthority, type SigningPair } from "./authority.js";
import { builtinSignerRules } from "./signer-rules.js";

/** The minimum lifetime a request may ask for (`spec.expirationSeconds`), as kube's signer. */
const MIN_TTL_MS = 10 * 60_000;

export interface CsrSigningOptions {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  readonly profile: Profile;
  /** The CA each built-in signer signs with, by the profile's signer name; a signer without one does not sign. */
  readonly authorities: ReadonlyMap<string, SigningPair>;
  /** `--cluster-signing-duration`: the longest lifetime issued (kube's default 1 year). */
  readonly durationMs: number;
  readonly now?: () => number;
}

/** The issued lifetime: the flag's duration, shortened to `spec.expirationSeconds` but never under 10 minutes. */
export function issuedLifetimeMs(durationMs: number, expirationSeconds: number | undefined): number {
  if (expirationSeconds === undefined) return durationMs;
  return Math.min(durationMs, Math.max(MIN_TTL_MS, expirationSeconds * 1000));
}

/**
 * kube-controller-manager's `csrsigning`: signs approved, not failed, not yet issued requests to
 * the built-in signers. A request that breaks its signer's rules gets a `Failed` condition
 * (reason `SignerValidationFailure`) and no certificate; others get `status.certificate`. On the
 * work queue, keyed by request name: only requests that want a signature are queued.
 */
export function csrSigningController(options: CsrSigningOptions): QueueControllerSpec {
  const { client, profile } = options;
  const resource = csrResource(profile);
  const rules = builtinSignerRules(profile);
  const now = options.now ?? Date.now;
  const requests = options.informers.informer(resource);

  /** Approved, not failed, not yet issued, to a signer with rules and a CA. */
  function wantsSignature(object: ApiObject): boolean {
    const csr = viewCsr(object);
    if (csr.certificate !== "" || !hasTrueCondition(csr, "Approved") || hasTrueCondition(csr, "Failed")) return false;
    return rules.has(csr.signerName) && options.authorities.has(csr.signerName);
  }

  async function handle(object: ApiObject, authorities: ReadonlyMap<string, CertificateAuthority>): Promise<void> {
    const csr = viewCsr(object);
    if (csr.certificate !== "" || !hasTrueCondition(csr, "Approved") || hasTrueCondition(csr, "Failed")) return;
    const rule = rules.get(csr.signerName);
    const authority = authorities.get(csr.signerName);
    if (rule === undefined || authority === undefined) return;
    const request = await parseRequest(csr.request);
    const refusal = rule(request, csr.usages);
    const status: Record<string, unknown> = { ...(object["status"] as Record<string, unknown> | undefined) };
    if (refusal !== undefined) {
      const failed = {
        type: "Failed",
        status: "True",
        reason: "SignerValidationFailure",
        message: refusal,
        lastUpdateTime: nowTimestamp(() => new Date(now())),
      };
      status["conditions"] = [...csr.conditions, failed];
    } else {
      const pem = await authority.issue(request, csr.usages, { ttlMs: issuedLifetimeMs(options.durationMs, csr.expirationSeconds), nowMs: now() });
      status["certificate"] = Buffer.from(pem).toString("base64");
    }
    try {
      await client.updateSubresource(resource, "", csr.name, "status", { ...object, status });
    } catch (error) {
      // A newer version (or a deleted request) comes back through the watch.
      if (!(error instanceof ApiError && (error.code === 409 || error.code === 404))) throw error;
    }
  }

  // The CAs (and the certificate library) are loaded when a request first needs signing: off the start-up path.
  let authorities: Promise<ReadonlyMap<string, CertificateAuthority>> | undefined;
  const loadAuthorities = async (): Promise<ReadonlyMap<string, CertificateAuthority>> => {
    const loaded = new Map<string, CertificateAuthority>();
    for (const [signer, pair] of options.authorities) loaded.set(signer, await loadAuthority(pair));
    return loaded;
  };
  function* wanting(): Iterable<string> {
    for (const object of requests.list()) if (wantsSignature(object)) yield objectKey(object);
  }

  return {
    name: "csrsigning",
    watch(queue) {
      const on = (object: ApiObject): void => {
        if (wantsSignature(object)) queue.add(objectKey(object));
      };
      return requests.addHandlers({
        onAdd: on,
        onUpdate: on,
        onReset: () => {
          for (const key of wanting()) queue.add(key);
        },
      });
    },
    initialKeys: wanting,
    async reconcile(name) {
      const object = requests.get("", name);
      if (object === undefined || !wantsSignature(object)) return;
      authorities ??= loadAuthorities().catch((error: unknown) => {
        // A CA that failed to load is tried again at the next request's retry.
        authorities = undefined;
        throw error;
      });
      await handle(object, await authorities);
    },
  };
}
