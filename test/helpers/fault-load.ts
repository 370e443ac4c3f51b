// The fault suite's load and its model: concurrent clients that create, update and delete their own
// ConfigMaps, remembering what each acknowledged write left, so that after a crash the store can
// be compared with what clients were told.
import { createHash } from "node:crypto";
import type { AcknowledgedWrite } from "../../src/testing/watch-validator.js";
import type { Http2Client } from "./http.js";

export const FAULT_NAMESPACE_PATH = "/api/v1/namespaces/default/configmaps";
export const FAULT_LABEL = "fault=load";

/** A seeded pseudo-random source (mulberry32), so a failing run can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An object's state as a client knows it: its resourceVersion and payload, or absent. */
interface Known {
  readonly revision: number;
  /** The `data.v` payload; undefined when the object is absent. */
  readonly value: string | undefined;
}

interface Tracked {
  acknowledged: Known;
  /** A write sent whose answer never came (the server died): it may or may not have happened. */
  pending: { readonly value: string | undefined } | undefined;
}

/** What the server serves for one object after a restart. */
export interface Served {
  readonly revision: number;
  readonly data: Readonly<Record<string, string>>;
}

function checksum(value: string): string {
  return createHash("sha256").update(value).digest("hex").slice(0, 16);
}

function body(name: string, value: string, revision?: number): Record<string, unknown> {
  const metadata: Record<string, unknown> = { name, labels: { fault: "load" } };
  if (revision !== undefined) metadata["resourceVersion"] = String(revision);
  return { apiVersion: "v1", kind: "ConfigMap", metadata, data: { v: value, sum: checksum(value), pad: "p".repeat(384) } };
}

function metadataOf(text: string): { name: string; resourceVersion: string } {
  const parsed = JSON.parse(text) as { metadata: { name: string; resourceVersion: string } };
  return parsed.metadata;
}

export class FaultModel {
  private readonly objects = new Map<string, Tracked>();
  /** Every acknowledged write so far, for the watch validators. */
  readonly acknowledged: AcknowledgedWrite[] = [];
  /** Answers that were neither a success nor a lost connection: always a violation. */
  readonly unexpected: string[] = [];
  private sequence = 0;

  /**
   * Runs one client until `stopped()` or its connection fails: it owns the names `f-<client>-<0..7>`
   * and picks create, update or delete for one of them at random.
   */
  async runClient(client: Http2Client, id: number, random: () => number, stopped: () => boolean): Promise<void> {
    while (!stopped()) {
      const name = `f-${id}-${Math.floor(random() * 8)}`;
      const tracked = this.objects.get(name) ?? { acknowledged: { revision: 0, value: undefined }, pending: undefined };
      this.objects.set(name, tracked);
      const current = tracked.acknowledged;
      const value = `${name}#${this.sequence++}`;
      const remove = current.value !== undefined && random() < 0.3;
      tracked.pending = { value: remove ? undefined : value };
      let status: number;
      let text: string;
      try {
        const answer =
          current.value === undefined
            ? await client.request("POST", FAULT_NAMESPACE_PATH, { body: body(name, value) })
            : remove
              ? await client.request("DELETE", `${FAULT_NAMESPACE_PATH}/${name}`, { body: { preconditions: { resourceVersion: String(current.revision) } } })
              : await client.request("PUT", `${FAULT_NAMESPACE_PATH}/${name}`, { body: body(name, value, current.revision) });
        status = answer.status;
        text = answer.body;
      } catch {
        return; // the connection died: the write stays pending
      }
      if (status !== 200 && status !== 201) {
        this.unexpected.push(`${name}: ${status} ${text.slice(0, 200)}`);
        tracked.pending = undefined;
        return;
      }
      const revision = Number(metadataOf(text).resourceVersion);
      tracked.acknowledged = { revision, value: remove ? undefined : value };
      tracked.pending = undefined;
      this.acknowledged.push({ name, revision, type: remove ? "DELETED" : current.value === undefined ? "ADDED" : "MODIFIED" });
    }
  }

  /** Acknowledged writes whose effect was checked against the store so far. */
  checked = 0;

  /**
   * Compares what a restarted server serves with the model and returns the violations: every
   * acknowledged state is there (same resourceVersion and payload, deletes gone); a write whose
   * answer was lost is either fully there or not at all; every body is whole (its checksum holds);
   * nothing unknown appears. The model then takes the served state as acknowledged.
   */
  reconcile(served: ReadonlyMap<string, Served>): string[] {
    const violations: string[] = [];
    for (const [name, object] of served) {
      const value = object.data["v"];
      if (value === undefined || !value.startsWith(`${name}#`) || object.data["sum"] !== checksum(value)) {
        violations.push(`${name} at ${object.revision} has a torn or foreign body: ${JSON.stringify(object.data).slice(0, 120)}`);
      }
      if (!this.objects.has(name)) violations.push(`${name} was never written by a client`);
    }
    for (const [name, tracked] of this.objects) {
      const object = served.get(name);
      const actual: Known = object === undefined ? { revision: 0, value: undefined } : { revision: object.revision, value: object.data["v"] };
      const acknowledged = tracked.acknowledged;
      const matchesAcknowledged =
        acknowledged.value === undefined ? actual.value === undefined : actual.revision === acknowledged.revision && actual.value === acknowledged.value;
      const pending = tracked.pending;
      const matchesPending =
        pending !== undefined &&
        (pending.value === undefined ? actual.value === undefined : actual.value === pending.value && actual.revision > acknowledged.revision);
      if (!matchesAcknowledged && !matchesPending) {
        violations.push(
          `${name}: acknowledged ${JSON.stringify(acknowledged)}${pending === undefined ? "" : `, pending ${JSON.stringify(pending)}`}, served ${JSON.stringify(actual)}`,
        );
      }
      if (pending === undefined || matchesAcknowledged) this.checked++;
      tracked.acknowledged = actual;
      tracked.pending = undefined;
    }
    return violations;
  }
}
