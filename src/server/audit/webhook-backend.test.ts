import assert from "node:assert/strict";
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, describe, it } from "node:test";
import { webhookClient } from "../../auth/webhook-client.js";
import { inProcessServer } from "../../testing/in-process.js";
import { AuditStoreError, type AuditEvent } from "./event.js";
import { parseAuditPolicy } from "./policy.js";
import { webhookBackend } from "./webhook-backend.js";

interface Receiver {
  readonly url: URL;
  readonly batches: { apiVersion?: string; kind?: string; items: AuditEvent[] }[];
  /** Resolves once `count` batches have arrived. */
  received(count: number): Promise<void>;
  close(): Promise<void>;
}

/** A loopback audit webhook; `answer` decides each call's status (or holds it: undefined). */
async function receiver(answer: (call: number) => number | undefined = () => 200): Promise<Receiver> {
  const batches: Receiver["batches"] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const held: http.ServerResponse[] = [];
  let calls = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const status = answer(calls++);
      if (status === undefined) {
        held.push(response);
        return;
      }
      if (status === 200) batches.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Receiver["batches"][number]);
      response.writeHead(status).end("{}");
      for (const waiter of waiters.filter((candidate) => batches.length >= candidate.count)) waiter.resolve();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  return {
    url: new URL(`http://127.0.0.1:${port}/audit`),
    batches,
    received: (count) => (batches.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }))),
    async close() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

function event(id: number): AuditEvent {
  return {
    kind: "Event",
    apiVersion: "audit.orch.io/v1",
    level: "Metadata",
    auditID: `id-${id}`,
    stage: "ResponseComplete",
    requestURI: "/api",
    verb: "get",
    user: { username: "alice" },
    requestReceivedTimestamp: "2026-01-01T00:00:00.000000Z",
    stageTimestamp: "2026-01-01T00:00:00.000000Z",
  };
}

describe("webhookBackend()", () => {
  const closers: (() => Promise<void>)[] = [];
  after(async () => {
    for (const close of closers) await close();
  });

  it("sends EventLists in batches of the maximum size, and a partial batch after the maximum wait", async () => {
    const hook = await receiver();
    closers.push(hook.close);
    const client = webhookClient({ url: hook.url, insecureSkipTlsVerify: false });
    const backend = webhookBackend({ client, apiVersion: "audit.orch.io/v1", maxBatchSize: 3, maxWaitMs: 50, throttleQps: 0 });
    backend.processEvents([1, 2, 3, 4, 5, 6, 7].map(event));
    await hook.received(3);
    assert.deepEqual(
      hook.batches.map((batch) => batch.items.map((item) => item.auditID)),
      [["id-1", "id-2", "id-3"], ["id-4", "id-5", "id-6"], ["id-7"]],
    );
    assert.equal(hook.batches[0]?.kind, "EventList");
    assert.equal(hook.batches[0]?.apiVersion, "audit.orch.io/v1");
    await backend.shutdown();
    client.close();
  });

  it("retries a failed batch", async () => {
    const hook = await receiver((call) => (call === 0 ? 500 : 200));
    closers.push(hook.close);
    const client = webhookClient({ url: hook.url, insecureSkipTlsVerify: false });
    const backend = webhookBackend({ client, apiVersion: "audit.orch.io/v1", maxBatchSize: 1, initialBackoffMs: 5, throttleQps: 0 });
    backend.processEvents([event(1)]);
    await hook.received(1);
    assert.equal(hook.batches[0]?.items[0]?.auditID, "id-1");
    await backend.shutdown();
    client.close();
  });

  it("a webhook that never answers: the buffer is bounded, the overflow dropped and counted, and requests are not held up", async () => {
    const hook = await receiver(() => undefined);
    closers.push(hook.close);
    const client = webhookClient({ url: hook.url, insecureSkipTlsVerify: false });
    let dropped = 0;
    const backend = webhookBackend({
      client,
      apiVersion: "audit.orch.io/v1",
      bufferSize: 10,
      maxBatchSize: 2,
      throttleQps: 0,
      onError: (plugin, _error, count) => {
        if (plugin === "buffered") dropped += count;
      },
    });
    const server = await inProcessServer({
      audit: {
        policy: parseAuditPolicy("apiVersion: audit.orch.io/v1\nkind: Policy\nrules: [{level: Metadata}]\n", "audit.orch.io"),
        backend,
        apiVersion: "audit.orch.io/v1",
      },
    });
    // 40 requests make 80 events while the webhook holds its first batch: every request completes.
    for (let index = 0; index < 40; index++) assert.equal((await server.call("GET", "/api/v1/namespaces/default")).status, 200);
    assert.equal(hook.batches.length, 0);
    assert.ok(dropped >= 80 - 10 - 2, `dropped ${dropped}`);
    await hook.close();
    closers.pop();
    await server.stop();
    await backend.shutdown();
    client.close();
  });
});

describe("webhookBackend() in the blocking modes (kube's --audit-webhook-mode blocking, blocking-strict)", () => {
  const policy = parseAuditPolicy("apiVersion: audit.orch.io/v1\nkind: Policy\nrules: [{level: Metadata}]\n", "audit.orch.io");
  const received = (id: number): AuditEvent => ({ ...event(id), stage: "RequestReceived" });

  it("sends each call's events at once, one EventList, and settles when the webhook has them", async () => {
    const hook = await receiver();
    const client = webhookClient({ url: hook.url, insecureSkipTlsVerify: false });
    const backend = webhookBackend({ client, apiVersion: "audit.orch.io/v1", mode: "blocking", maxWaitMs: 60_000, throttleQps: 0 });
    try {
      const pending = backend.processEvents([event(1), event(2)]);
      assert.ok(pending instanceof Promise, "blocking answers a promise");
      await pending;
      assert.equal(hook.batches.length, 1, "sent before the promise settled, without waiting for a batch");
      assert.deepEqual(
        hook.batches[0]?.items.map((item) => item.auditID),
        ["id-1", "id-2"],
      );
      assert.equal(hook.batches[0]?.kind, "EventList");
    } finally {
      await backend.shutdown();
      client.close();
      await hook.close();
    }
  });

  it("retries, then gives up: blocking counts the loss and lets the request go on; blocking-strict fails only a RequestReceived event", async () => {
    const hook = await receiver(() => 500);
    const client = webhookClient({ url: hook.url, insecureSkipTlsVerify: false });
    const failures: [string, number][] = [];
    const options = {
      client,
      apiVersion: "audit.orch.io/v1",
      initialBackoffMs: 1,
      onError: (plugin: "buffered" | "webhook", _error: unknown, count: number) => void failures.push([plugin, count]),
    };
    const blocking = webhookBackend({ ...options, mode: "blocking" });
    const strict = webhookBackend({ ...options, mode: "blocking-strict" });
    try {
      await blocking.processEvents([received(1)]);
      assert.deepEqual(failures, [["webhook", 1]]);
      await strict.processEvents([event(2)]);
      assert.deepEqual(failures[1], ["webhook", 1], "a later stage's loss is counted, not thrown");
      await assert.rejects(Promise.resolve(strict.processEvents([received(3)])), AuditStoreError);
      assert.equal(failures.length, 3);
    } finally {
      await blocking.shutdown();
      await strict.shutdown();
      client.close();
      await hook.close();
    }
  });

  it("holds the request: its RequestReceived event before the handler runs, its ResponseComplete before the answer; strict answers 500 when the first is lost", async () => {
    const order: string[] = [];
    let failing = false;
    const hook = await receiver(() => (failing ? 500 : 200));
    const client = webhookClient({ url: hook.url, insecureSkipTlsVerify: false });
    for (const mode of ["blocking", "blocking-strict"] as const) {
      const backend = webhookBackend({ client, apiVersion: "audit.orch.io/v1", mode, initialBackoffMs: 1 });
      const recording = {
        name: "recording",
        processEvents(events: readonly AuditEvent[]) {
          const pending = backend.processEvents(events);
          return pending?.then(() => void order.push(`delivered ${events[0]?.stage}`));
        },
        shutdown: () => backend.shutdown(),
      };
      const server = await inProcessServer({ audit: { policy, backend: recording, apiVersion: "audit.orch.io/v1" } });
      try {
        failing = false;
        order.length = 0;
        const before = hook.batches.length;
        const answer = await server.call("GET", "/api/v1/namespaces/default");
        order.push("answered");
        assert.equal(answer.status, 200);
        assert.deepEqual(order, ["delivered RequestReceived", "delivered ResponseComplete", "answered"], mode);
        assert.deepEqual(
          hook.batches.slice(before).map((batch) => batch.items[0]?.stage),
          ["RequestReceived", "ResponseComplete"],
        );
        failing = true;
        const lost = await server.call("GET", "/api/v1/namespaces/default");
        if (mode === "blocking") assert.equal(lost.status, 200, "blocking: the lost events are counted, the request served");
        else {
          assert.equal(lost.status, 500, "blocking-strict: a request whose arrival was not recorded is not served");
          assert.match(lost.text, /failed to store audit event/);
        }
      } finally {
        await server.stop();
        await backend.shutdown();
      }
    }
    client.close();
    await hook.close();
  });
});
