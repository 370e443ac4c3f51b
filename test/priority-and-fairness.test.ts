import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../src/api/profile.js";
import { bootstrapConfiguration } from "../src/server/flowcontrol/bootstrap.js";
import { ensureBootstrapConfiguration, keepBootstrapConfiguration } from "../src/server/flowcontrol/configuration-keeper.js";
import { inProcessServer, type TestResponse } from "../src/testing/in-process.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
const FC = "/apis/flowcontrol.apiserver.orch.io";
const SCHEMA_HEADER = "X-Orch-PF-FlowSchema-UID";
const LEVEL_HEADER = "X-Orch-PF-PriorityLevel-UID";

function header(response: TestResponse, name: string): string | undefined {
  const value = response.headers[name];
  return typeof value === "string" ? value : undefined;
}

async function uidOf(server: Server, plural: string, name: string): Promise<string> {
  const response = await server.call("GET", `${FC}/v1/${plural}/${name}`);
  assert.equal(response.status, 200, response.text);
  return String((response.json["metadata"] as Record<string, unknown>)["uid"]);
}

/** Reads until `done` holds, a bounded number of times (the status writer follows the watch cache). */
async function eventually(read: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await read()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail("condition not reached");
}

function danglingStatus(response: TestResponse): unknown {
  const conditions = (response.json["status"] as { conditions?: Record<string, unknown>[] } | undefined)?.conditions ?? [];
  return conditions.find((condition) => condition["type"] === "Dangling")?.["status"];
}

describe("API Priority and Fairness", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(() => server.stop());

  it("creates kube's mandatory and suggested objects with the auto-update annotation", async () => {
    const schemas = await server.call("GET", `${FC}/v1/flowschemas`);
    const names = (schemas.json["items"] as { metadata: { name: string; annotations: Record<string, string> } }[]).map((item) => item.metadata.name);
    for (const name of ["exempt", "catch-all", "probes", "system-nodes", "system-node-high", "global-default", "service-accounts", "kube-controller-manager"])
      assert.ok(names.includes(name), name);
    const levels = await server.call("GET", `${FC}/v1/prioritylevelconfigurations/workload-low`);
    assert.equal((levels.json["metadata"] as { annotations: Record<string, string> }).annotations["apf.orch.io/autoupdate-spec"], "true");
    assert.deepEqual((levels.json["spec"] as Record<string, unknown>)["limited"], {
      nominalConcurrencyShares: 100,
      lendablePercent: 90,
      limitResponse: { type: "Queue", queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
    });
  });

  it("names the matched FlowSchema and priority level in headers, errors included", async () => {
    const exempt = await server.call("GET", "/api/v1/namespaces");
    assert.equal(header(exempt, SCHEMA_HEADER), await uidOf(server, "flowschemas", "exempt"));
    assert.equal(header(exempt, LEVEL_HEADER), await uidOf(server, "prioritylevelconfigurations", "exempt"));
    const forbidden = await server.call("GET", "/api/v1/secrets", { as: "alice" });
    assert.equal(forbidden.status, 403);
    assert.equal(header(forbidden, SCHEMA_HEADER), await uidOf(server, "flowschemas", "global-default"));
    assert.equal(header(forbidden, LEVEL_HEADER), await uidOf(server, "prioritylevelconfigurations", "global-default"));
    const probe = await server.call("GET", "/readyz", { as: "anonymous" });
    assert.equal(header(probe, SCHEMA_HEADER), await uidOf(server, "flowschemas", "probes"));
  });

  it("serves v1beta3 from v1's objects with kube's deprecation warning", async () => {
    const response = await server.call("GET", `${FC}/v1beta3/flowschemas/catch-all`);
    assert.equal(response.status, 200);
    assert.equal(response.json["apiVersion"], "flowcontrol.apiserver.orch.io/v1beta3");
    assert.match(String(response.headers["warning"]), /v1beta3 FlowSchema is deprecated in v1\.29\+, unavailable in v1\.32\+/);
    const proto = await server.raw("GET", `${FC}/v1beta3/prioritylevelconfigurations/exempt`, { headers: { accept: "application/vnd.orch.protobuf" } });
    assert.equal(proto.status, 200);
  });

  it("marks a FlowSchema whose priority level is missing Dangling, and clears it when the level appears", async () => {
    const created = await server.call("POST", `${FC}/v1/flowschemas`, {
      body: {
        metadata: { name: "team-a" },
        spec: {
          priorityLevelConfiguration: { name: "team-a" },
          matchingPrecedence: 500,
          rules: [{ subjects: [{ kind: "User", user: { name: "alice" } }], nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/version"] }] }],
        },
      },
    });
    assert.equal(created.status, 201, created.text);
    await eventually(async () => danglingStatus(await server.call("GET", `${FC}/v1/flowschemas/team-a`)) === "True");
    const condition = ((await server.call("GET", `${FC}/v1/flowschemas/team-a`)).json["status"] as { conditions: Record<string, unknown>[] }).conditions[0];
    assert.equal(condition?.["reason"], "NotFound");
    // A dangling schema does not match: alice still lands in global-default.
    assert.equal(header(await server.call("GET", "/version", { as: "alice" }), SCHEMA_HEADER), await uidOf(server, "flowschemas", "global-default"));
    const level = await server.call("POST", `${FC}/v1/prioritylevelconfigurations`, {
      body: { metadata: { name: "team-a" }, spec: { type: "Limited", limited: { limitResponse: { type: "Reject" } } } },
    });
    assert.equal(level.status, 201, level.text);
    assert.equal((level.json["spec"] as { limited: Record<string, unknown> }).limited["nominalConcurrencyShares"], 30);
    await eventually(async () => danglingStatus(await server.call("GET", `${FC}/v1/flowschemas/team-a`)) === "False");
    assert.equal(header(await server.call("GET", "/version", { as: "alice" }), SCHEMA_HEADER), await uidOf(server, "flowschemas", "team-a"));
    await server.call("DELETE", `${FC}/v1/flowschemas/team-a`);
    await server.call("DELETE", `${FC}/v1/prioritylevelconfigurations/team-a`);
  });

  it("serves the dumps and the apiserver_flowcontrol_* metrics", async () => {
    const levels = await server.call("GET", "/debug/api_priority_and_fairness/dump_priority_levels");
    assert.equal(levels.status, 200);
    assert.match(levels.text, /^PriorityLevelName, +ActiveQueues, +IsIdle,/);
    assert.match(levels.text, /\nglobal-default, +0, +true, +false, +0, +0, +\d+/);
    const queues = await server.call("GET", "/debug/api_priority_and_fairness/dump_queues");
    assert.match(queues.text, /^PriorityLevelName, +Index, +PendingRequests,/);
    assert.equal(queues.text.split("\n").filter((line) => line.startsWith("workload-low,")).length, 128);
    const requests = await server.call("GET", "/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1");
    assert.match(requests.text, /^PriorityLevelName, +FlowSchemaName, .*UserName, +Verb, +APIPath/);
    const metrics = (await server.call("GET", "/metrics")).text;
    assert.match(metrics, /apiserver_flowcontrol_dispatched_requests_total\{flow_schema="exempt",priority_level="exempt"\} \d+/);
    assert.match(metrics, /apiserver_flowcontrol_nominal_limit_seats\{priority_level="workload-low"\} 245/);
    assert.match(metrics, /apiserver_flowcontrol_request_wait_duration_seconds_bucket\{/);
  });

  it("puts a changed mandatory object back, and keeps a suggested one whose auto-update is off (the start's reconciliation)", async () => {
    const patch = (path: string, body: unknown) =>
      server.call("PATCH", `${FC}/v1/${path}`, { body, headers: { "content-type": "application/merge-patch+json" } });
    // kube's validation holds the mandatory objects to their specs; deleting one is allowed.
    const changed = await patch("prioritylevelconfigurations/catch-all", { spec: { limited: { nominalConcurrencyShares: 50 } } });
    assert.equal(changed.status, 422, changed.text);
    assert.match(String(changed.json["message"]), /spec: Invalid value: .*: spec of 'catch-all' must equal the fixed value/);
    assert.equal((await server.call("DELETE", `${FC}/v1/prioritylevelconfigurations/catch-all`)).status, 200);
    // The exempt level's own settings are the administrator's (kube 1.28+): accepted, and kept.
    assert.equal((await patch("prioritylevelconfigurations/exempt", { spec: { exempt: { nominalConcurrencyShares: 3 } } })).status, 200);
    const kept = { metadata: { annotations: { "apf.orch.io/autoupdate-spec": "false" } }, spec: { limited: { nominalConcurrencyShares: 7 } } };
    assert.equal((await patch("prioritylevelconfigurations/workload-low", kept)).status, 200);
    assert.equal((await server.call("DELETE", `${FC}/v1/flowschemas/probes`)).status, 200);
    await ensureBootstrapConfiguration(server.server.registry, bootstrapConfiguration(ORCH_PROFILE));
    const shares = async (name: string) =>
      ((await server.call("GET", `${FC}/v1/prioritylevelconfigurations/${name}`)).json["spec"] as { limited: { nominalConcurrencyShares: number } }).limited
        .nominalConcurrencyShares;
    assert.equal(await shares("catch-all"), 5);
    const exempt = (await server.call("GET", `${FC}/v1/prioritylevelconfigurations/exempt`)).json["spec"] as { exempt: { nominalConcurrencyShares: number } };
    assert.equal(exempt.exempt.nominalConcurrencyShares, 3);
    await patch("prioritylevelconfigurations/exempt", { spec: { exempt: { nominalConcurrencyShares: 0 } } });
    assert.equal(await shares("workload-low"), 7);
    assert.equal((await server.call("GET", `${FC}/v1/flowschemas/probes`)).status, 200);
    // Back to kube's spec for the tests after this one.
    await patch("prioritylevelconfigurations/workload-low", { metadata: { annotations: { "apf.orch.io/autoupdate-spec": "true" } } });
    await ensureBootstrapConfiguration(server.server.registry, bootstrapConfiguration(ORCH_PROFILE));
    assert.equal(await shares("workload-low"), 100);
  });

  it("keeps reconciling after the start (kube's ensurer runs every minute): a deleted mandatory schema comes back, a changed suggested level goes back", async () => {
    const patch = (path: string, body: unknown) =>
      server.call("PATCH", `${FC}/v1/${path}`, { body, headers: { "content-type": "application/merge-patch+json" } });
    const errors: unknown[] = [];
    const stop = keepBootstrapConfiguration(server.server.registry, bootstrapConfiguration(ORCH_PROFILE), {
      periodMs: 20,
      onError: (error) => errors.push(error),
    });
    try {
      assert.equal((await server.call("DELETE", `${FC}/v1/flowschemas/catch-all`)).status, 200);
      const kept = { metadata: { annotations: { "apf.orch.io/autoupdate-spec": "true" } }, spec: { limited: { nominalConcurrencyShares: 7 } } };
      assert.equal((await patch("prioritylevelconfigurations/workload-low", kept)).status, 200);
      const shares = async () =>
        ((await server.call("GET", `${FC}/v1/prioritylevelconfigurations/workload-low`)).json["spec"] as { limited: { nominalConcurrencyShares: number } })
          .limited.nominalConcurrencyShares;
      const deadline = Date.now() + 5000;
      while (((await shares()) !== 100 || (await server.call("GET", `${FC}/v1/flowschemas/catch-all`)).status !== 200) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(await shares(), 100);
      assert.equal((await server.call("GET", `${FC}/v1/flowschemas/catch-all`)).status, 200);
      assert.deepEqual(errors, []);
    } finally {
      stop();
    }
  });

  describe("under a flood", () => {
    before(async () => {
      // One share of 246: the tenants' level gets ceil(600 / 246) = 3 seats, 64 queues of two, hands of four.
      await server.call("POST", `${FC}/v1/prioritylevelconfigurations`, {
        body: {
          metadata: { name: "tenants" },
          spec: {
            type: "Limited",
            limited: { nominalConcurrencyShares: 1, limitResponse: { type: "Queue", queuing: { queues: 64, handSize: 4, queueLengthLimit: 2 } } },
          },
        },
      });
      await server.call("POST", `${FC}/v1/flowschemas`, {
        body: {
          metadata: { name: "tenants" },
          spec: {
            priorityLevelConfiguration: { name: "tenants" },
            matchingPrecedence: 1000,
            distinguisherMethod: { type: "ByUser" },
            rules: [{ subjects: [{ kind: "Group", group: { name: "system:authenticated" } }], nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }] }],
          },
        },
      });
      const tenants = await uidOf(server, "flowschemas", "tenants");
      await eventually(async () => header(await server.call("GET", "/version", { as: "bob" }), SCHEMA_HEADER) === tenants);
    });
    it("turns the flooding user away with 429 and Retry-After while the other user's requests all succeed", async () => {
      const floodStatuses: TestResponse[] = [];
      const otherStatuses: number[] = [];
      let flooding = true;
      const flood = (async () => {
        // Rounds of 40 concurrent requests: over ten times the level's three seats.
        for (let round = 0; round < 10; round++)
          floodStatuses.push(...(await Promise.all(Array.from({ length: 40 }, () => server.call("GET", "/version", { as: "alice" })))));
        flooding = false;
      })();
      while (flooding || otherStatuses.length < 20) otherStatuses.push((await server.call("GET", "/version", { as: "bob" })).status);
      await flood;
      const rejected = floodStatuses.filter((response) => response.status === 429);
      assert.ok(rejected.length > 0, "the flooder got no 429");
      // A level's first rejections say 1 s; it grows while the flood goes on (kube's dropped-requests tracker).
      assert.equal(rejected[0]?.headers["Retry-After"], "1");
      for (const response of rejected) {
        assert.match(String(response.headers["Retry-After"]), /^(?:[1-9]|[12]\d|3[0-2])$/);
        // kube answers Go's http.Error text, not a Status: clients report "the server has received too many requests…".
        assert.equal(response.headers["content-type"], "text/plain; charset=utf-8");
        assert.equal(response.headers["x-content-type-options"], "nosniff");
        assert.equal(response.text, "Too many requests, please try again later.\n");
      }
      assert.ok(
        floodStatuses.some((response) => response.status === 200),
        "the flooder got nothing through",
      );
      assert.deepEqual(
        otherStatuses.filter((status) => status !== 200),
        [],
      );
      const metrics = (await server.call("GET", "/metrics")).text;
      assert.match(metrics, /apiserver_flowcontrol_rejected_requests_total\{flow_schema="tenants",priority_level="tenants",reason="queue-full"\} [1-9]/);
    });
  });
});

describe("API Priority and Fairness settings", () => {
  it("--enable-priority-and-fairness=false: no flow-control headers, no dumps", async () => {
    const server = await inProcessServer({ flowControl: { enablePriorityAndFairness: false } });
    try {
      const response = await server.call("GET", "/version");
      assert.equal(header(response, SCHEMA_HEADER), undefined);
      assert.equal((await server.call("GET", "/debug/api_priority_and_fairness/dump_queues")).status, 404);
    } finally {
      await server.stop();
    }
  });

  it("--enable-priority-and-fairness=false: kube's max-in-flight limiter instead (429 over --max-requests-inflight, system:masters not limited)", async () => {
    const server = await inProcessServer({ flowControl: { enablePriorityAndFairness: false, maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 } });
    try {
      const flood = await Promise.all(Array.from({ length: 40 }, () => server.call("GET", "/api/v1/namespaces/default/configmaps", { as: "alice" })));
      const rejected = flood.filter((response) => response.status === 429);
      assert.ok(rejected.length > 0, "one read-only seat, 40 at once: some must be turned away");
      assert.ok(
        flood.some((response) => response.status !== 429),
        "the first got through",
      );
      for (const response of rejected) {
        assert.equal(response.headers["Retry-After"], "1");
        assert.equal(response.text, "Too many requests, please try again later.\n");
      }
      // The admin (system:masters) is never limited.
      const admin = await Promise.all(Array.from({ length: 40 }, () => server.call("GET", "/api/v1/namespaces/default/configmaps")));
      assert.deepEqual([...new Set(admin.map((response) => response.status))], [200]);
      assert.match((await server.call("GET", "/metrics")).text, /apiserver_request_terminations_total\{[^}]*code="429"[^}]*\} [1-9]/);
    } finally {
      await server.stop();
    }
  });

  it("spells the headers the profile's way (--compat kubernetes)", async () => {
    const server = await inProcessServer({ profile: KUBERNETES_PROFILE });
    try {
      const response = await server.call("GET", "/version");
      assert.ok(header(response, "X-Kubernetes-PF-FlowSchema-UID") !== undefined);
      const annotations = (await server.call("GET", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/exempt")).json["metadata"] as {
        annotations: Record<string, string>;
      };
      assert.equal(annotations.annotations["apf.kubernetes.io/autoupdate-spec"], "true");
    } finally {
      await server.stop();
    }
  });
});
