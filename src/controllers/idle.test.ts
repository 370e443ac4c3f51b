import assert from "node:assert/strict";
import { setTimeout as delay } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { waitFor } from "../../test/helpers/wait.js";
import { inProcessServer } from "../testing/in-process.js";
import { sampleSum } from "../testing/metrics-text.js";

/**
 * Idle means idle, counted rather than timed: once the controllers have settled over a few
 * hundred objects, a window longer than every short period in the server (the apiserver Service
 * reconciler's 10 s, kube's interval) passes with no work-queue add (no controller reconciles)
 * and no storage call at all (no relist, no resync read, no poll).
 */

type Server = Awaited<ReturnType<typeof inProcessServer>>;

const NAMESPACES = ["idle-a", "idle-b", "idle-c"];
const WINDOW_MS = 11_000;

interface Counts {
  readonly queueAdds: number;
  readonly storageCalls: number;
  readonly queueDepth: number;
}

describe("an idle server does no controller or storage work (counted)", () => {
  let server: Server;
  const counts = async (): Promise<Counts> => {
    const text = (await server.call("GET", "/metrics")).text;
    return {
      queueAdds: sampleSum(text, "workqueue_adds_total"),
      storageCalls: sampleSum(text, "etcd_requests_total"),
      queueDepth: sampleSum(text, "workqueue_depth"),
    };
  };

  before(async () => {
    // The storage-objects metric poll (kube's 1-minute count of every resource) is off: it is a metric, not controller work.
    server = await inProcessServer({ metrics: { etcdCountMetricPollPeriodMs: 0 } });
    for (const name of NAMESPACES) {
      assert.equal((await server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name } } })).status, 201);
    }
    for (let index = 0; index < 300; index++) {
      const namespace = NAMESPACES[index % NAMESPACES.length] ?? "";
      const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${index}` }, data: { index: String(index) } };
      assert.equal((await server.call("POST", `/api/v1/namespaces/${namespace}/configmaps`, { body })).status, 201);
    }
    const service = { apiVersion: "v1", kind: "Service", metadata: { name: "web" }, spec: { selector: { app: "web" }, ports: [{ port: 80 }] } };
    assert.equal((await server.call("POST", "/api/v1/namespaces/idle-a/services", { body: service })).status, 201);
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "web-0", labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "busybox" }] } };
    assert.equal((await server.call("POST", "/api/v1/namespaces/idle-a/pods", { body: pod })).status, 201);
    // Settled: every queue empty, and no add between two looks.
    let last: Counts | undefined;
    await waitFor(
      async () => {
        const now = await counts();
        const settled = last !== undefined && now.queueDepth === 0 && now.queueAdds === last.queueAdds;
        last = now;
        return settled;
      },
      { what: "the controllers to settle", intervalMs: 300, timeoutMs: 30_000 },
    );
  });
  after(async () => server.stop());

  it(`makes no work-queue add and no storage call over ${WINDOW_MS / 1000} s`, async () => {
    const start = await counts();
    await delay(WINDOW_MS);
    const end = await counts();
    assert.ok(start.storageCalls > 0, "the storage metric counts calls");
    assert.equal(end.queueAdds - start.queueAdds, 0, "work-queue adds at idle");
    assert.equal(end.storageCalls - start.storageCalls, 0, "storage calls at idle");
  });
});
