import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { apiGroup, ORCH_PROFILE } from "../../../api/profile.js";
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
      ["nowhere", "n9"],
      ["bare", "n2"],
    ] as const) {
      const created = await server.call("POST", PODS, {
        body: { metadata: { name }, spec: { ...(node === undefined ? {} : { nodeName: node }), containers: [{ name: "c", image: "busybox:1.36" }] } },
      });
      assert.equal(created.status, 201, created.text);
    }
    const two = await server.call("POST", PODS, {
      body: {
        metadata: { name: "two" },
        spec: {
          nodeName: "n1",
          initContainers: [{ name: "setup", image: "busybox:1.36" }],
          containers: [
            { name: "a", image: "busybox:1.36" },
            { name: "b", image: "busybox:1.36" },
          ],
        },
      },
    });
    assert.equal(two.status, 201, two.text);
    // n1 has an address a kubelet would be dialled at; n2 has none; n9 does not exist.
    const n1 = { metadata: { name: "n1" }, status: { addresses: [{ type: "InternalIP", address: "10.0.0.1" }] } };
    assert.equal((await server.call("POST", "/api/v1/nodes", { body: n1 })).status, 201);
    assert.equal((await server.call("POST", "/api/v1/nodes", { body: { metadata: { name: "n2" } } })).status, 201);
    assert.equal(
      (await server.call("POST", "/api/v1/namespaces/default/services", { body: { metadata: { name: "web" }, spec: { ports: [{ port: 80 }] } } })).status,
      201,
    );
    // A pod with an address (as a kubelet would write it): the pod proxy dials that, not the node.
    const addressed = await server.call("PATCH", `${PODS}/placed/status`, {
      body: { status: { podIP: "10.1.0.5", podIPs: [{ ip: "10.1.0.5" }] } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(addressed.status, 200, addressed.text);
    // A service whose Endpoints exist without subsets (no ready pods), and one whose Endpoints have an address.
    for (const [name, subsets] of [
      ["idle", []],
      ["busy", [{ addresses: [{ ip: "10.1.0.5", nodeName: "n1" }], ports: [{ port: 8080 }] }]],
    ] as const) {
      const service = await server.call("POST", "/api/v1/namespaces/default/services", { body: { metadata: { name }, spec: { ports: [{ port: 80 }] } } });
      assert.equal(service.status, 201, service.text);
      const endpoints = await server.call("POST", "/api/v1/namespaces/default/endpoints", { body: { metadata: { name }, subsets } });
      assert.equal(endpoints.status, 201, endpoints.text);
    }
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
    ["GET", `${PODS}/placed/proxy/healthz`, "the pod proxy of a pod with an address", 503, /no node agent is connected for node "n1"/],
    ["GET", `${PODS}/https:placed:8443/proxy/healthz`, "the pod proxy with a scheme and a port", 503, /no node agent is connected for node "n1"/],
    ["GET", `${PODS}/pending/proxy/`, "the pod proxy of an unscheduled pod (no address)", 400, /^address not allowed$/],
    ["GET", `${PODS}/nowhere:80/proxy/`, "the pod proxy of a scheduled pod without an address", 400, /^address not allowed$/],
    ["GET", `${PODS}/missing:80/proxy/`, "the pod proxy of a missing pod, with a port", 404, /^pods "missing" not found$/],
    ["GET", `${PODS}/ftp:placed:80/proxy/`, "the pod proxy with a scheme kube does not know", 400, /^invalid pod request "ftp:placed:80"$/],
    ["POST", `${PODS}/pending/exec?command=ls&stdout=true`, "exec in an unscheduled pod", 400, /^pod pending does not have a host assigned$/],
    ["POST", `${PODS}/pending/portforward?ports=80`, "port forwarding to an unscheduled pod", 400, /^pod pending does not have a host assigned$/],
    ["GET", `${PODS}/nowhere/log`, "the log of a pod on a missing node", 404, /^nodes "n9" not found$/],
    ["POST", `${PODS}/bare/exec?command=ls&stdout=true`, "exec on a node without addresses", 500, /^no preferred addresses found; known addresses: \[\]$/],
    [
      "GET",
      `${PODS}/two/log`,
      "the log of a pod with several containers, none named",
      400,
      /^a container name must be specified for pod two, choose one of: \[setup a b\]$/,
    ],
    ["GET", `${PODS}/two/log?container=zz`, "the log of a container the pod lacks", 400, /^container zz is not valid for pod two$/],
    ["POST", `${PODS}/placed/exec?command=ls&stdout=true&container=zz`, "exec in a container the pod lacks", 400, /^container zz is not valid for pod placed$/],
    ["GET", `${PODS}/two/log?container=setup`, "an init container's log", 503, /no node agent is connected for node "n1"/],
    ["GET", `${PODS}/missing/log`, "a missing pod's log", 404, /pods "missing" not found/],
    ["GET", "/api/v1/nodes/n1/proxy/metrics", "the node proxy", 503, /no node agent is connected for node "n1"/],
    ["GET", "/api/v1/nodes/https:n1:10250/proxy/metrics", "the node proxy with a scheme and a port", 503, /no node agent is connected for node "n1"/],
    ["GET", "/api/v1/nodes/n2/proxy/", "the node proxy of a node without addresses", 500, /^no preferred addresses found; known addresses: \[\]$/],
    ["GET", "/api/v1/nodes/n9:10250/proxy/", "the node proxy of a missing node", 404, /^nodes "n9" not found$/],
    ["GET", "/api/v1/nodes/a:b:c:d/proxy/", "the node proxy with too many colons", 400, /^invalid node request "a:b:c:d"$/],
    ["GET", "/api/v1/namespaces/default/services/web/proxy/", "the service proxy of a service without Endpoints", 404, /^endpoints "web" not found$/],
    [
      "GET",
      "/api/v1/namespaces/default/services/idle/proxy/",
      "the service proxy of Endpoints without subsets",
      503,
      /^no endpoints available for service "idle"$/,
    ],
    [
      "GET",
      "/api/v1/namespaces/default/services/https:idle:443/proxy/",
      "the service proxy naming a port the service lacks",
      503,
      /^no service port 443 found for service "idle"$/,
    ],
    [
      "GET",
      "/api/v1/namespaces/default/services/http:idle:80/proxy/x",
      "the service proxy naming its port",
      503,
      /^no endpoints available for service "idle"$/,
    ],
    ["GET", "/api/v1/namespaces/default/services/nope:80/proxy/", "the service proxy of a missing service, with a port", 404, /^services "nope" not found$/],
    [
      "GET",
      "/api/v1/namespaces/default/services/busy:http/proxy/",
      "the service proxy with endpoints",
      503,
      /no node agent is connected for the endpoints of service "busy"/,
    ],
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

  it("authorizes a proxy with a path by its sub-resource (RBAC `pods/proxy`, `services/proxy`, `nodes/proxy`), as kube's RequestInfo", async () => {
    const rbac = apiGroup(ORCH_PROFILE, "rbac.authorization");
    const created = async (path: string, body: Json) => {
      const answer = await server.call("POST", path, { body: { apiVersion: `${rbac}/v1`, ...body } });
      assert.equal(answer.status, 201, answer.text);
    };
    const subjects = [{ kind: "User", apiGroup: rbac, name: "alice" }];
    await created(`/apis/${rbac}/v1/namespaces/default/roles`, {
      kind: "Role",
      metadata: { name: "proxies" },
      rules: [{ apiGroups: [""], resources: ["pods/proxy", "services/proxy"], verbs: ["get"] }],
    });
    await created(`/apis/${rbac}/v1/namespaces/default/rolebindings`, {
      kind: "RoleBinding",
      metadata: { name: "proxies" },
      roleRef: { apiGroup: rbac, kind: "Role", name: "proxies" },
      subjects,
    });
    await created(`/apis/${rbac}/v1/clusterroles`, {
      kind: "ClusterRole",
      metadata: { name: "node-proxy" },
      rules: [{ apiGroups: [""], resources: ["nodes/proxy"], verbs: ["get"] }],
    });
    await created(`/apis/${rbac}/v1/clusterrolebindings`, {
      kind: "ClusterRoleBinding",
      metadata: { name: "node-proxy" },
      roleRef: { apiGroup: rbac, kind: "ClusterRole", name: "node-proxy" },
      subjects,
    });
    for (const [path, status] of [
      [`${PODS}/placed/proxy/metrics`, 503],
      ["/api/v1/namespaces/default/services/http:idle:80/proxy/healthz/ready", 503],
      ["/api/v1/nodes/n1/proxy/metrics/cadvisor", 503],
      ["/api/v1/nodes/n1/proxy/", 503],
    ] as const) {
      const answer = await server.call("GET", path, { as: "alice" });
      assert.equal(answer.status, status, `${path}: ${answer.text}`);
    }
    // Not granted: the refusal names the sub-resource alone, as kube's.
    const refused = await server.call("GET", "/api/v1/nodes/n1/proxy/metrics", { as: "bob" });
    assert.equal(refused.status, 403, refused.text);
    assert.match(String(refused.json["message"]), /cannot get resource "nodes\/proxy" in API group "" at the cluster scope$/);
  });

  it("finds no route for a path after a sub-resource other than a proxy", async () => {
    for (const path of [`${PODS}/placed/log/extra`, `${PODS}/placed/status/extra`, `${PODS}/placed/exec/x`, "/api/v1/namespaces/default/finalize/x"]) {
      const answer = await server.call("GET", path);
      assert.equal(answer.status, 404, `${path}: ${answer.text}`);
      assert.equal(answer.json["reason"], "NotFound", path);
    }
  });

  it("answers an unscheduled pod's log with 204 and nothing to stream, as kube's empty location does", async () => {
    const answer = await server.call("GET", `${PODS}/pending/log`);
    assert.equal(answer.status, 204, answer.text);
    assert.equal(answer.text, "");
  });

  it("gives a node without addresses kube's 500 without a reason", async () => {
    const answer = await server.call("GET", `${PODS}/bare/log`);
    assert.equal(answer.status, 500, answer.text);
    assert.equal(answer.json["reason"], undefined);
  });

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
