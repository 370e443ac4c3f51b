import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../../testing/in-process.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;

/** Which kinds a PUT of a missing object creates (kube's AllowCreateOnUpdate), and which answer 404. */
describe("create on update", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(async () => {
    await server.stop();
  });

  const rbac = "/apis/rbac.authorization.orch.io/v1";
  const creates: [string, string, Record<string, unknown>][] = [
    ["Role", `${rbac}/namespaces/default/roles/r1`, { apiVersion: "rbac.authorization.orch.io/v1", kind: "Role", rules: [] }],
    ["ClusterRole", `${rbac}/clusterroles/cr1`, { apiVersion: "rbac.authorization.orch.io/v1", kind: "ClusterRole", rules: [] }],
    [
      "RoleBinding",
      `${rbac}/namespaces/default/rolebindings/rb1`,
      {
        apiVersion: "rbac.authorization.orch.io/v1",
        kind: "RoleBinding",
        roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "Role", name: "r1" },
        subjects: [],
      },
    ],
    [
      "ClusterRoleBinding",
      `${rbac}/clusterrolebindings/crb1`,
      {
        apiVersion: "rbac.authorization.orch.io/v1",
        kind: "ClusterRoleBinding",
        roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "ClusterRole", name: "cr1" },
      },
    ],
    ["Endpoints", "/api/v1/namespaces/default/endpoints/e1", { apiVersion: "v1", kind: "Endpoints", subsets: [] }],
    [
      "LimitRange",
      "/api/v1/namespaces/default/limitranges/l1",
      { apiVersion: "v1", kind: "LimitRange", spec: { limits: [{ type: "Container", max: { cpu: "1" } }] } },
    ],
    [
      "Lease",
      "/apis/coordination.orch.io/v1/namespaces/default/leases/le1",
      { apiVersion: "coordination.orch.io/v1", kind: "Lease", spec: { holderIdentity: "x" } },
    ],
    [
      "core Event",
      "/api/v1/namespaces/default/events/ev1",
      { apiVersion: "v1", kind: "Event", involvedObject: { kind: "Pod", name: "p", namespace: "default" }, reason: "R", message: "m" },
    ],
    ["Service", "/api/v1/namespaces/default/services/svc1", { apiVersion: "v1", kind: "Service", spec: { ports: [{ port: 80 }] } }],
  ];
  for (const [kind, path, body] of creates) {
    it(`creates a ${kind} on PUT (201), then updates it (200)`, async () => {
      const name = path.slice(path.lastIndexOf("/") + 1);
      const object = { ...body, metadata: { name } };
      const created = await server.call("PUT", path, { body: object });
      assert.equal(created.status, 201, created.text);
      const updated = await server.call("PUT", path, { body: { ...object, metadata: { name, labels: { again: "yes" } } } });
      assert.equal(updated.status, 200, updated.text);
    });
  }

  const refuses: [string, string, Record<string, unknown>][] = [
    ["Pod", "/api/v1/namespaces/default/pods/p1", { apiVersion: "v1", kind: "Pod", spec: { containers: [{ name: "c", image: "busybox" }] } }],
    ["ConfigMap", "/api/v1/namespaces/default/configmaps/c1", { apiVersion: "v1", kind: "ConfigMap" }],
    ["Namespace", "/api/v1/namespaces/n1", { apiVersion: "v1", kind: "Namespace" }],
  ];
  for (const [kind, path, body] of refuses) {
    it(`answers 404 to a PUT of a missing ${kind}`, async () => {
      const name = path.slice(path.lastIndexOf("/") + 1);
      const answer = await server.call("PUT", path, { body: { ...body, metadata: { name } } });
      assert.equal(answer.status, 404, answer.text);
    });
  }

  it("gives a Service created on update a cluster IP", async () => {
    const got = await server.call("GET", "/api/v1/namespaces/default/services/svc1");
    assert.match(String((got.json["spec"] as Record<string, unknown>)["clusterIP"]), /^10\.0\.0\.\d+$/);
  });
});
