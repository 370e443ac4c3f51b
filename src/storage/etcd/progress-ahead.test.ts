// etcd before 3.4.25/3.5.8 answers a progress request at once with its current revision, ahead of
// the events a resumed watch has not been sent yet (etcd-io/etcd#15220). A watch that starts
// behind etcd's revision takes no progress notification until its catch-up is through.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { WatchEvent } from "../interface.js";
import type { EtcdEvent, WatchResponse } from "./etcd-api.js";
import type { EtcdClient } from "./etcd-client.js";
import { type EtcdCluster, startEtcdCluster } from "./etcd-member.js";
import { EtcdStorage } from "./etcd-storage.js";
import { etcdWatch, type WatchHost } from "./etcd-watch.js";

interface Harness {
  readonly host: WatchHost;
  /** The store's answer to `unchangedBetween` (false unless a test says), and the calls it got. */
  unchanged: boolean;
  readonly checks: [number, number][];
  respond(response: Partial<WatchResponse> & { readonly revision: number }): void;
  readonly connected: Promise<void>;
}

function harness(): Harness {
  const checks: [number, number][] = [];
  let handler: ((response: WatchResponse) => void) | undefined;
  let connect = (): void => {};
  const connected = new Promise<void>((resolve) => (connect = resolve));
  const client = {
    async watch(handlers: { response(response: WatchResponse): void }) {
      handler = handlers.response;
      connect();
      return { send() {}, cancel() {} };
    },
  } as unknown as EtcdClient;
  const host: WatchHost = {
    client,
    offset: 0,
    encode: (key) => Buffer.from(key),
    rangeEnd: (key) => Buffer.from(`${key}\u0000`),
    toEvent: (event) =>
      event.kv === null
        ? undefined
        : { type: "ADDED", key: Buffer.from(event.kv.key).toString(), revision: event.kv.modRevision, value: "{}", previous: undefined },
    observe() {},
    observeCompaction() {},
    compactedRevision: () => 0,
    isClosed: () => false,
    ready: async () => {},
    register() {},
    unregister() {},
    async unchangedBetween(_prefix, from, to) {
      checks.push([from, to]);
      return result.unchanged;
    },
  };
  const result: Harness = {
    host,
    unchanged: false,
    checks,
    connected,
    respond({ revision, ...rest }) {
      handler?.({
        header: { revision },
        watchId: 0,
        created: false,
        canceled: false,
        compactRevision: 0,
        cancelReason: "",
        fragment: false,
        events: [],
        ...rest,
      });
    },
  };
  return result;
}

const put = (key: string, revision: number): EtcdEvent => ({
  type: "PUT",
  kv: { key: Buffer.from(key), createRevision: revision, modRevision: revision, version: 1, value: Buffer.from("{}") },
  prevKv: null,
});

/** Runs a watch from `from`, feeding it `script` once it is connected; what it yielded and reported. */
async function run(from: number, script: (h: Harness) => void | Promise<void>): Promise<{ events: number[]; progress: number[]; checks: [number, number][] }> {
  const h = harness();
  const controller = new AbortController();
  const events: number[] = [];
  const progress: number[] = [];
  const consuming = (async () => {
    for await (const event of etcdWatch(h.host, "", from, controller.signal, { onProgress: (revision) => progress.push(revision) }))
      events.push((event as WatchEvent).revision);
  })();
  await h.connected;
  await script(h);
  await new Promise((resolve) => setTimeout(resolve, 20));
  controller.abort();
  await consuming;
  return { events, progress, checks: h.checks };
}

describe("progress notifications of a watch that resumes behind etcd's revision", () => {
  it("are not taken before the events up to the revision at its creation have come", async () => {
    const seen = await run(10, (h) => {
      h.respond({ revision: 14, created: true });
      // etcd#15220: the answer to a progress request overtakes revisions 11–14.
      h.respond({ revision: 14 });
      h.respond({ revision: 14, events: [put("/a", 11), put("/b", 14)] });
      h.respond({ revision: 15 });
    });
    assert.deepEqual(seen, { events: [11, 14], progress: [15], checks: [[10, 14]] });
  });

  it("are taken at once by a watch that starts at etcd's revision", async () => {
    const seen = await run(14, (h) => {
      h.respond({ revision: 14, created: true });
      h.respond({ revision: 16 });
    });
    assert.deepEqual(seen, { events: [], progress: [16], checks: [] });
  });

  it("are taken again once the store shows the backlog changes nothing under the prefix (etcd's revision was a write elsewhere)", async () => {
    const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    const seen = await run(10, async (h) => {
      // Revisions 11–14 were writes outside the prefix (compact_rev_key, another tenant): no event will come.
      h.respond({ revision: 14, created: true });
      h.unchanged = true;
      h.respond({ revision: 14 });
      await tick();
      h.respond({ revision: 15 });
      h.respond({ revision: 16 });
    });
    assert.deepEqual(seen, { events: [], progress: [15, 16], checks: [[10, 14]] });
  });

  it("check from the newest event, and keep waiting while the store shows changes left", async () => {
    const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    const seen = await run(10, async (h) => {
      h.respond({ revision: 20, created: true });
      h.respond({ revision: 20, events: [put("/a", 12)] });
      h.respond({ revision: 20 });
      await tick();
      h.respond({ revision: 21 });
      await tick();
      h.respond({ revision: 21, events: [put("/b", 15)] });
      h.unchanged = true;
      h.respond({ revision: 21 });
      await tick();
      h.respond({ revision: 22 });
    });
    assert.deepEqual(seen, {
      events: [12, 15],
      progress: [22],
      checks: [
        [12, 20],
        [12, 20],
        [15, 20],
      ],
    });
  });
});

describe("a watch whose start is behind etcd's revision by writes outside its prefix (real etcd)", { timeout: 60_000 }, () => {
  let cluster: EtcdCluster;
  before(async () => {
    cluster = await startEtcdCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  it("reports progress again without any write under its prefix (a consistent read does not wait for one)", async () => {
    const mine = await EtcdStorage.open({ endpoints: cluster.endpoints, prefix: "/mine" });
    const other = await EtcdStorage.open({ endpoints: cluster.endpoints, prefix: "/other" });
    const stop = new AbortController();
    try {
      const from = await mine.create("a", "1");
      let last = 0;
      for (let i = 0; i < 3; i++) last = await other.create(`k${i}`, "x");
      let progressed: ((revision: number) => void) | undefined;
      const progress = new Promise<number>((resolve) => (progressed = (revision) => revision >= last && resolve(revision)));
      const events = mine.watch("", from, stop.signal, { onProgress: (revision) => progressed?.(revision) })[Symbol.asyncIterator]();
      const next = events.next();
      void next.catch(() => {});
      const asking = setInterval(() => mine.shared.requestProgress(), 50);
      const reported = await Promise.race([progress, new Promise<number>((resolve) => setTimeout(() => resolve(-1), 5_000))]);
      clearInterval(asking);
      assert.ok(reported >= last, `progress ${reported} reached the other prefix's write ${last}`);
      stop.abort();
      await events.return?.();
    } finally {
      stop.abort();
      await mine.close();
      await other.close();
    }
  });

  it("the store's check: unchanged only when no key under the prefix was written or deleted in between", async () => {
    const mine = await EtcdStorage.open({ endpoints: cluster.endpoints, prefix: "/check" });
    const other = await EtcdStorage.open({ endpoints: cluster.endpoints, prefix: "/elsewhere" });
    try {
      const host = (mine as unknown as { host: WatchHost }).host;
      const created = await mine.create("a", "1");
      const elsewhere = await other.create("b", "1");
      assert.equal(await host.unchangedBetween("", created, elsewhere), true, "a write outside the prefix");
      const updated = (await mine.guaranteedUpdate("a", () => "2")).revision;
      assert.equal(await host.unchangedBetween("", elsewhere, updated), false, "an update");
      const second = await mine.create("c", "1");
      assert.equal(await host.unchangedBetween("", updated, second), false, "a create");
      const deleted = await mine.delete("a");
      assert.equal(await host.unchangedBetween("", second, deleted.revision), false, "a delete");
      const later = await other.create("d", "1");
      assert.equal(await host.unchangedBetween("", deleted.revision, later), true, "writes outside only since");
    } finally {
      await mine.close();
      await other.close();
    }
  });
});
