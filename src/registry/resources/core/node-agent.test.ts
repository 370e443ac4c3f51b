import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../../testing/in-process.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

const PODS = "/api/v1/namespaces/default/pods";

describe("node-agent sub-resources without a node agent", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
    for (const [name, node] of [
      ["placed", "n1"],
      ["pending", undefined],
    ] as const) {
      const created = await server.call("POST", PODS, {
        body: { metadata: { name }, spec: { ...(node === undefined ? {} : { nodeName: node }), containers: [{ name: "c", image: "busybox:1.36" }] } },
      });
      assert.equal(created.status, 201, created.text);
    }
    assert.equal((await server.call("POST", "/api/v1/nodes", { body: { metadata: { name: "n1" } } })).status, 201);
    assert.equal(
      (await server.call("POST", "/api/v1/namespaces/default/services", { body: { metadata: { name: "web" }, spec: { ports: [{ port: 80 }] } } })).status,
      201,
    );
  });
  after(async () => {
    await server.stop();
  });

  it("lists them in discovery with kube's verbs and kinds", async () => {
    const resources = (await server.call("GET", "/api/v1")).json["resources"] as Json[];
    const entry = (name: string) => resources.find((resource) => resource["name"] === name);
    assert.deepEqual(entry("pods/log")?.["verbs"], ["get"]);
    assert.equal(entry("pods/log")?.["kind"], "Pod");
    assert.deepEqual(entry("pods/exec")?.["verbs"], ["create", "get"]);
    assert.equal(entry("pods/exec")?.["kind"], "PodExecOptions");
    for (const name of ["pods/attach", "pods/portforward"]) assert.deepEqual(entry(name)?.["verbs"], ["create", "get"], name);
    for (const name of ["pods/proxy", "services/proxy", "nodes/proxy"])
      assert.deepEqual(entry(name)?.["verbs"], ["create", "delete", "get", "patch", "update"], name);
    assert.deepEqual(entry("pods/eviction")?.["verbs"], ["create"]);
    assert.equal(entry("pods/eviction")?.["group"], "policy");
    assert.equal(entry("pods/eviction")?.["kind"], "Eviction");
    assert.deepEqual(entry("pods/ephemeralcontainers")?.["verbs"], ["get", "patch", "update"]);
    assert.equal(entry("pods/resize"), undefined, "kube 1.30 has no pods/resize");
  });

  const cases: [string, string, string, number, RegExp][] = [
    ["GET", `${PODS}/placed/log`, "a scheduled pod's log", 503, /no node agent is connected for node "n1"/],
    ["POST", `${PODS}/placed/exec?command=ls&stdout=true`, "exec", 503, /no node agent is connected for node "n1"/],
    ["POST", `${PODS}/placed/attach?stdout=true`, "attach", 503, /no node agent is connected for node "n1"/],
    ["POST", `${PODS}/placed/portforward?ports=80`, "port forwarding", 503, /no node agent is connected for node "n1"/],
    ["GET", `${PODS}/placed/proxy/healthz`, "the pod proxy with a path", 503, /no node agent is connected for node "n1"/],
    ["GET", `${PODS}/pending/log`, "an unscheduled pod's log", 400, /pod pending does not have a host assigned/],
    ["GET", `${PODS}/missing/log`, "a missing pod's log", 404, /pods "missing" not found/],
    ["GET", "/api/v1/nodes/n1/proxy/metrics", "the node proxy", 503, /no node agent is connected for node "n1"/],
    ["GET", "/api/v1/namespaces/default/services/web/proxy/", "the service proxy", 503, /no endpoints available for service "web"/],
    ["DELETE", `${PODS}/placed/log`, "a verb the sub-resource does not have", 405, /does not allow this method/],
  ];
  for (const [method, path, what, status, message] of cases) {
    it(`answers ${what} with a ${status} Status`, async () => {
      const answer = await server.call(method, path);
      assert.equal(answer.status, status, answer.text);
      assert.equal(answer.json["kind"], "Status");
      assert.match(String(answer.json["message"]), message);
    });
  }

  it("writes only spec.ephemeralContainers through pods/ephemeralcontainers", async () => {
    const pod = (await server.call("GET", `${PODS}/placed`)).json;
    const spec = pod["spec"] as Json;
    spec["ephemeralContainers"] = [{ name: "debug", image: "busybox:1.36" }];
    spec["activeDeadlineSeconds"] = 5;
    const updated = await server.call("PUT", `${PODS}/placed/ephemeralcontainers`, { body: pod });
    assert.equal(updated.status, 200, updated.text);
    const written = updated.json["spec"] as Json;
    assert.equal((written["ephemeralContainers"] as Json[])[0]?.["name"], "debug");
    assert.equal(written["activeDeadlineSeconds"], undefined);
  });
});
