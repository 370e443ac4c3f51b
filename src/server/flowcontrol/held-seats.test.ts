import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { apiGroup, ORCH_PROFILE } from "../../api/profile.js";
import { HoldingStorage } from "../../testing/holding-storage.js";
import { inProcessServer } from "../../testing/in-process.js";
import { sample } from "../../testing/metrics-text.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;

const FLOWCONTROL = apiGroup(ORCH_PROFILE, "flowcontrol.apiserver");
const RBAC = apiGroup(ORCH_PROFILE, "rbac.authorization");
const LEVEL_HEADER = `${ORCH_PROFILE.flowControlHeaderPrefix}PriorityLevel-UID`;
const WATCHES = 25;

/**
 * kube's mutating work estimate through the whole pipeline: alice's requests go to a small
 * priority level ("apf-tiny": 5 shares, nothing lent or borrowed); 25 watches of config maps in
 * `default` are open (the admin's, in the exempt level: every watch counts, whichever level served
 * it); alice's create of a config map there holds ceil(25/10) = 3 seats while it executes and
 * keeps them, no longer executing, after it answered, for kube's additional latency (5 ms × 3/3).
 */
describe("API Priority and Fairness: a write reaching 25 watches holds 3 seats, during and after its execution", () => {
  let server: Server;
  let storage: HoldingStorage;
  let levelUid = "";
  const aborts: AbortController[] = [];
  before(async () => {
    storage = new HoldingStorage("apf-held");
    server = await inProcessServer({ storage });
    const created = async (path: string, body: Record<string, unknown>) => {
      const answer = await server.call("POST", path, { body });
      assert.equal(answer.status, 201, answer.text);
      return answer.json;
    };
    await created(`/apis/${RBAC}/v1/clusterrolebindings`, {
      apiVersion: `${RBAC}/v1`,
      kind: "ClusterRoleBinding",
      metadata: { name: "alice-admin" },
      roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "cluster-admin" },
      subjects: [{ kind: "User", apiGroup: RBAC, name: "alice" }],
    });
    const level = await created(`/apis/${FLOWCONTROL}/v1/prioritylevelconfigurations`, {
      apiVersion: `${FLOWCONTROL}/v1`,
      kind: "PriorityLevelConfiguration",
      metadata: { name: "apf-tiny" },
      spec: {
        type: "Limited",
        limited: {
          nominalConcurrencyShares: 5,
          lendablePercent: 0,
          borrowingLimitPercent: 0,
          limitResponse: { type: "Queue", queuing: { queues: 1, handSize: 1, queueLengthLimit: 10 } },
        },
      },
    });
    levelUid = String((level["metadata"] as Record<string, unknown>)["uid"]);
    await created(`/apis/${FLOWCONTROL}/v1/flowschemas`, {
      apiVersion: `${FLOWCONTROL}/v1`,
      kind: "FlowSchema",
      metadata: { name: "apf-tiny" },
      spec: {
        priorityLevelConfiguration: { name: "apf-tiny" },
        matchingPrecedence: 100,
        distinguisherMethod: { type: "ByUser" },
        rules: [
          {
            subjects: [{ kind: "User", user: { name: "alice" } }],
            resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"], clusterScope: true }],
          },
        ],
      },
    });
    // The new schema applies once flow control has read it: alice's answers then name the level.
    for (let attempt = 0; attempt < 200; attempt++) {
      const answer = await server.call("GET", "/api/v1/namespaces/default/configmaps?limit=1", { as: "alice" });
      if (answer.headers[LEVEL_HEADER] === levelUid) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    for (let index = 0; index < WATCHES; index++) {
      const abort = new AbortController();
      aborts.push(abort);
      const watch = await server.raw("GET", "/api/v1/namespaces/default/configmaps?watch=true", { signal: abort.signal });
      assert.equal(watch.status, 200);
    }
  });
  after(async () => {
    for (const abort of aborts) abort.abort();
    storage.release();
    await server.stop();
  });

  const level = { priority_level: "apf-tiny", flow_schema: "apf-tiny" };

  it("the write executes holding 3 seats of the level", async () => {
    const scrape = async () => (await server.call("GET", "/metrics")).text;
    const before = await scrape();
    assert.ok((sample(before, "apiserver_flowcontrol_nominal_limit_seats", { priority_level: "apf-tiny" }) ?? 0) >= 3, "the level has room for 3 seats");
    const pending = server.call("POST", "/api/v1/namespaces/default/configmaps", {
      as: "alice",
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "apf-held" } },
    });
    await storage.reached;
    const during = await scrape();
    assert.equal(sample(during, "apiserver_flowcontrol_current_executing_requests", level), 1);
    assert.equal(sample(during, "apiserver_flowcontrol_current_executing_seats", level), 3);
    // kube's estimate histogram: one request estimated above 2 seats and at most 4.
    const within = (text: string, le: string) => sample(text, "apiserver_flowcontrol_work_estimated_seats_bucket", { ...level, le }) ?? 0;
    assert.equal(within(during, "4") - within(before, "4"), 1);
    assert.equal(within(during, "2") - within(before, "2"), 0);

    storage.release();
    const answered = await pending;
    assert.equal(answered.status, 201, answered.text);
    assert.equal(answered.headers[LEVEL_HEADER], levelUid);
    // Read in the same turn as the answer: the seats' release is a timer, which cannot have run yet.
    const executing = server.server.metrics.registry.getSingleMetric("apiserver_flowcontrol_current_executing_seats");
    const requests = server.server.metrics.registry.getSingleMetric("apiserver_flowcontrol_current_executing_requests");
    assert.ok(executing !== undefined && requests !== undefined);
    const seatsAfter = (await executing.get()).values.find((value) => value.labels["priority_level"] === "apf-tiny")?.value;
    const requestsAfter = (await requests.get()).values.find((value) => value.labels["priority_level"] === "apf-tiny")?.value;
    assert.equal(requestsAfter, 0, "the write no longer executes");
    assert.equal(seatsAfter, 3, "but its 3 seats are still held");

    // Then they are given back.
    let released = await scrape();
    for (let attempt = 0; attempt < 200 && sample(released, "apiserver_flowcontrol_current_executing_seats", level) !== 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      released = await scrape();
    }
    assert.equal(sample(released, "apiserver_flowcontrol_current_executing_seats", level), 0);
  });

  it("a write with fewer than 10 watchers to notify holds one seat and nothing after", async () => {
    const before = (await server.call("GET", "/metrics")).text;
    const one = (text: string) => sample(text, "apiserver_flowcontrol_work_estimated_seats_bucket", { ...level, le: "1" }) ?? 0;
    const namespace = await server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "apf-quiet" } } });
    assert.equal(namespace.status, 201, namespace.text);
    const created = await server.call("POST", "/api/v1/namespaces/apf-quiet/configmaps", {
      as: "alice",
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "apf-quiet" } },
    });
    assert.equal(created.status, 201, created.text);
    const text = (await server.call("GET", "/metrics")).text;
    assert.equal(one(text) - one(before), 1);
    assert.equal(sample(text, "apiserver_flowcontrol_current_executing_seats", level), 0);
  });
});
