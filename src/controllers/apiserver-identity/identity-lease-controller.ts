import { createHash, randomUUID } from "node:crypto";
import type { ApiClient, ResourceRef } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import { pause } from "../../util/pause.js";
import type { Controller } from "../controller.js";

export interface IdentityLeaseOptions {
  readonly client: ApiClient;
  /** `coordination.<apiDomain>/v1` leases. */
  readonly leases: ResourceRef;
  /** Where the Leases live (the profile's system namespace). */
  readonly namespace: string;
  /** The server's host name: the Lease's name is a hash of it, so a restarted server takes its Lease over. */
  readonly hostname: string;
  /** `apiserver.<keyDomain>/identity`: marks the Lease as a server's identity. */
  readonly identityLabel: string;
  /** The identity label's value (the server's field manager name, `kube-apiserver` under kube's profile). */
  readonly identityValue: string;
  /** `<keyDomain>/hostname`. */
  readonly hostnameLabel: string;
  /** How long a Lease holds without renewal (kube: 3600 s). */
  readonly leaseDurationSeconds?: number;
  /** How often this server renews its Lease (kube: 10 s). */
  readonly renewIntervalMs?: number;
  /** How often expired Leases of other servers are deleted (kube: every hour). */
  readonly gcIntervalMs?: number;
  readonly now?: () => number;
  readonly onError?: (error: unknown) => void;
}

/** kube's Lease name for a host: `apiserver-` + the first 16 bytes of sha256(hostname), base32, lower case, unpadded. */
export function identityLeaseName(hostname: string): string {
  const digest = createHash("sha256").update(hostname).digest().subarray(0, 16);
  return `apiserver-${base32(digest).toLowerCase()}`;
}

/** RFC 4648 base32 without padding. */
function base32(bytes: Uint8Array): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(buffer << (5 - bits)) & 31];
  return out;
}

/** A MicroTime (`…:ss.ffffffZ`). */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/**
 * kube's APIServerIdentity: every server keeps a Lease `apiserver-<hash of its host name>` in the
 * system namespace, labelled as a server identity and with its host name, held by
 * `<lease name>_<random id>` (a new id per start) and renewed every `renewIntervalMs`; every
 * server also deletes identity Leases that have not been renewed for their duration (servers
 * that are gone), with the Lease's resourceVersion as precondition so a renewal in between wins.
 * Runs on every server (not elected): clients count the live Leases to count the servers.
 */
export function identityLeaseController(options: IdentityLeaseOptions): Controller {
  const { client, leases, namespace } = options;
  const name = identityLeaseName(options.hostname);
  const holder = `${name}_${randomUUID()}`;
  const duration = options.leaseDurationSeconds ?? 3600;
  const renewMs = options.renewIntervalMs ?? 10_000;
  const gcMs = options.gcIntervalMs ?? 3_600_000;
  const now = options.now ?? Date.now;
  const onError = options.onError ?? (() => {});

  async function renew(): Promise<void> {
    const at = now();
    const current = await client.get(leases, namespace, name);
    const labels = { [options.identityLabel]: options.identityValue, [options.hostnameLabel]: options.hostname };
    if (current === undefined) {
      const spec = { holderIdentity: holder, leaseDurationSeconds: duration, acquireTime: microTime(at), renewTime: microTime(at) };
      await client.create(leases, namespace, { apiVersion: `${leases.group}/${leases.version}`, kind: "Lease", metadata: { name, namespace, labels }, spec });
      return;
    }
    const spec = isPlainObject(current["spec"]) ? current["spec"] : {};
    const taken = spec["holderIdentity"] !== holder;
    const next: ApiObject = {
      ...current,
      metadata: { ...current.metadata, labels: { ...(current.metadata.labels ?? {}), ...labels } },
      spec: {
        ...spec,
        holderIdentity: holder,
        leaseDurationSeconds: duration,
        ...(taken ? { acquireTime: microTime(at) } : {}),
        renewTime: microTime(at),
      },
    };
    await client.update(leases, namespace, name, next);
  }

  async function collect(): Promise<void> {
    const at = now();
    for (const lease of (await client.list(leases, namespace)).items) {
      if (lease.metadata.labels?.[options.identityLabel] === undefined || lease.metadata.name === name) continue;
      const spec = isPlainObject(lease["spec"]) ? lease["spec"] : {};
      const renewed = Date.parse(String(spec["renewTime"] ?? ""));
      const seconds = typeof spec["leaseDurationSeconds"] === "number" ? spec["leaseDurationSeconds"] : duration;
      if (Number.isFinite(renewed) && renewed + seconds * 1000 > at) continue;
      await client
        .delete(leases, namespace, lease.metadata.name ?? "", { preconditions: { resourceVersion: lease.metadata.resourceVersion } })
        .catch((error: unknown) => {
          // Renewed (or deleted by another server) since the list: theirs to keep.
          if (!(error instanceof ApiError && error.code === 409)) throw error;
        });
    }
  }

  return {
    name: "apiserver-identity",
    async run(signal) {
      let nextGc = now();
      while (!signal.aborted) {
        try {
          await renew();
        } catch (error) {
          if (!signal.aborted) onError(error);
        }
        if (now() >= nextGc) {
          nextGc = now() + gcMs;
          try {
            await collect();
          } catch (error) {
            if (!signal.aborted) onError(error);
          }
        }
        await pause(renewMs, signal);
      }
    },
  };
}
