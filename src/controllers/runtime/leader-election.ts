import type { ApiClient, ResourceRef } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import type { ApiObject } from "../../api/object.js";
import type { LeaderElection } from "./manager.js";

export interface LeaseElectionOptions {
  readonly client: ApiClient;
  /** `coordination.<apiDomain>/v1` leases. */
  readonly leases: ResourceRef;
  readonly namespace: string;
  readonly name: string;
  /** Unique per server (host name and a random id). */
  readonly identity: string;
  /** How long a lease holds without renewal (kube: 15 s). */
  readonly leaseDurationMs?: number;
  /** A leader that could not renew for this long stops leading (kube: 10 s). */
  readonly renewDeadlineMs?: number;
  /** How often the lease is tried or renewed (kube: 2 s). */
  readonly retryPeriodMs?: number;
  readonly now?: () => number;
  readonly onError?: (error: unknown) => void;
}

/** A MicroTime (`…:ss.ffffffZ`). */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    timer.unref();
    signal.addEventListener("abort", done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

/**
 * client-go's Lease lock: a server leads while it holds `namespace/name` (holderIdentity, renewed
 * every retry period); another takes over once it has seen the record unchanged for
 * `leaseDurationSeconds` (measured on its own clock).
 * A leader that cannot renew within the renew deadline stops its controllers and competes again;
 * on stop it releases the lease (empty holder) so another server takes over at once.
 */
export function leaseElection(options: LeaseElectionOptions): LeaderElection {
  const { client, leases, namespace, name, identity } = options;
  const durationMs = options.leaseDurationMs ?? 15_000;
  const renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
  const retryMs = options.retryPeriodMs ?? 2_000;
  const now = options.now ?? Date.now;
  let leading = false;
  let observed: { record: string; at: number } | undefined;

  async function tryAcquireOrRenew(): Promise<boolean> {
    const at = now();
    const lease = await client.get(leases, namespace, name);
    const spec = (lease?.["spec"] ?? {}) as Record<string, unknown>;
    const holder = typeof spec["holderIdentity"] === "string" ? spec["holderIdentity"] : "";
    const seconds = typeof spec["leaseDurationSeconds"] === "number" ? spec["leaseDurationSeconds"] : durationMs / 1000;
    // As client-go: expiry is judged by when this server last saw the record change (its own clock), not by renewTime.
    const record = `${holder}|${String(spec["renewTime"] ?? "")}`;
    if (observed?.record !== record) observed = { record, at };
    if (lease !== undefined && holder !== "" && holder !== identity && observed.at + seconds * 1000 > at) return false;
    const transitions = typeof spec["leaseTransitions"] === "number" ? spec["leaseTransitions"] : 0;
    const next = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(durationMs / 1000),
      acquireTime: holder === identity && typeof spec["acquireTime"] === "string" ? spec["acquireTime"] : microTime(at),
      renewTime: microTime(at),
      leaseTransitions: holder === identity || lease === undefined ? transitions : transitions + 1,
    };
    try {
      if (lease === undefined) {
        await client.create(leases, namespace, { apiVersion: `${leases.group}/${leases.version}`, kind: "Lease", metadata: { name, namespace }, spec: next });
      } else {
        await client.updateSubresource(leases, namespace, name, "", { ...lease, spec: next } as ApiObject);
      }
      return true;
    } catch (error) {
      if (error instanceof ApiError && (error.code === 409 || error.code === 404)) return false;
      throw error;
    }
  }

  async function release(): Promise<void> {
    const lease = await client.get(leases, namespace, name);
    const spec = (lease?.["spec"] ?? {}) as Record<string, unknown>;
    if (lease === undefined || spec["holderIdentity"] !== identity) return;
    await client.updateSubresource(leases, namespace, name, "", { ...lease, spec: { ...spec, holderIdentity: "", leaseDurationSeconds: 1 } } as ApiObject);
  }

  return {
    get leading() {
      return leading;
    },
    async run(signal, lead) {
      let term: { stop: AbortController; done: Promise<void> } | undefined;
      let lastRenew = 0;
      const stepDown = async (): Promise<void> => {
        if (term === undefined) return;
        term.stop.abort();
        await term.done;
        term = undefined;
        leading = false;
      };
      while (!signal.aborted) {
        let held = false;
        try {
          held = await tryAcquireOrRenew();
        } catch (error) {
          options.onError?.(error);
        }
        if (held) lastRenew = now();
        if (held && term === undefined && !signal.aborted) {
          const stop = new AbortController();
          leading = true;
          term = { stop, done: lead(stop.signal).catch((error: unknown) => options.onError?.(error)) };
        } else if (!held && term !== undefined && now() - lastRenew > renewDeadlineMs) {
          await stepDown();
        }
        await sleep(retryMs, signal);
      }
      const wasLeading = term !== undefined;
      await stepDown();
      if (wasLeading) await release().catch((error: unknown) => options.onError?.(error));
    },
  };
}
