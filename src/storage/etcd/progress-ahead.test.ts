// etcd before 3.4.25/3.5.8 answers a progress request at once with its current revision, ahead of
// the events a resumed watch has not been sent yet (etcd-io/etcd#15220). A watch that starts
// behind etcd's revision takes no progress notification until its catch-up is through.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WatchEvent } from "../interface.js";
import type { EtcdEvent, WatchResponse } from "./etcd-api.js";
import type { EtcdClient } from "./etcd-client.js";
import { etcdWatch, type WatchHost } from "./etcd-watch.js";

interface Harness {
  readonly host: WatchHost;
  respond(response: Partial<WatchResponse> & { readonly revision: number }): void;
  readonly connected: Promise<void>;
}

function harness(): Harness {
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
  };
  return {
    host,
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
}

const put = (key: string, revision: number): EtcdEvent => ({
  type: "PUT",
  kv: { key: Buffer.from(key), createRevision: revision, modRevision: revision, version: 1, value: Buffer.from("{}") },
  prevKv: null,
});

/** Runs a watch from `from`, feeding it `script` once it is connected; what it yielded and reported. */
async function run(from: number, script: (h: Harness) => void): Promise<{ events: number[]; progress: number[] }> {
  const h = harness();
  const controller = new AbortController();
  const events: number[] = [];
  const progress: number[] = [];
  const consuming = (async () => {
    for await (const event of etcdWatch(h.host, "", from, controller.signal, { onProgress: (revision) => progress.push(revision) }))
      events.push((event as WatchEvent).revision);
  })();
  await h.connected;
  script(h);
  await new Promise((resolve) => setTimeout(resolve, 20));
  controller.abort();
  await consuming;
  return { events, progress };
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
    assert.deepEqual(seen, { events: [11, 14], progress: [15] });
  });

  it("are taken at once by a watch that starts at etcd's revision", async () => {
    const seen = await run(14, (h) => {
      h.respond({ revision: 14, created: true });
      h.respond({ revision: 16 });
    });
    assert.deepEqual(seen, { events: [], progress: [16] });
  });
});
