import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../../../api/profile.js";
import { inProcessServer } from "../../../testing/in-process.js";

type Json = Record<string, unknown>;

const SERVICES = "/api/v1/namespaces/default/services";
const MERGE = { "content-type": "application/merge-patch+json" };

describe("a Service's type change drops what only the old type needed, as kube's dropTypeDependentFields", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  const create = async (name: string, spec: Json): Promise<Json> => {
    const created = await server.call("POST", SERVICES, { body: { apiVersion: "v1", kind: "Service", metadata: { name }, spec } });
    assert.equal(created.status, 201, created.text);
    return created.json["spec"] as Json;
  };

  it("NodePort to ExternalName by a patch of type and externalName: cluster IPs, families, node ports and traffic policy go; the node port is free again", async () => {
    await create("np", { type: "NodePort", selector: { app: "a" }, ports: [{ port: 80, nodePort: 30123 }] });
    const patched = await server.call("PATCH", `${SERVICES}/np`, { body: { spec: { type: "ExternalName", externalName: "a.example.com" } }, headers: MERGE });
    assert.equal(patched.status, 200, patched.text);
    const spec = patched.json["spec"] as Json;
    assert.equal(spec["type"], "ExternalName");
    for (const field of ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy", "externalTrafficPolicy"]) assert.equal(spec[field], undefined, field);
    assert.equal((spec["ports"] as Json[])[0]?.["nodePort"], undefined);
    await create("np-again", { type: "NodePort", ports: [{ port: 80, nodePort: 30123 }] });
  });

  it("NodePort to ClusterIP by a patch of type alone keeps the cluster IP and drops the node port", async () => {
    const before = await create("np2", { type: "NodePort", ports: [{ port: 80, nodePort: 30124 }] });
    const patched = await server.call("PATCH", `${SERVICES}/np2`, { body: { spec: { type: "ClusterIP" } }, headers: MERGE });
    assert.equal(patched.status, 200, patched.text);
    const spec = patched.json["spec"] as Json;
    assert.equal(spec["clusterIP"], before["clusterIP"]);
    assert.equal((spec["ports"] as Json[])[0]?.["nodePort"], undefined);
    assert.equal(spec["externalTrafficPolicy"], undefined);
  });

  it("a value the update itself changes is left for validation to judge", async () => {
    await create("c1", { type: "ClusterIP", ports: [{ port: 80 }] });
    const refused = await server.call("PATCH", `${SERVICES}/c1`, {
      body: { spec: { type: "ExternalName", externalName: "a.example.com", clusterIP: "10.0.0.250", clusterIPs: ["10.0.0.250"] } },
      headers: MERGE,
    });
    assert.equal(refused.status, 422, refused.text);
    assert.match(String(refused.json["message"]), /spec\.clusterIP: Invalid value: "10\.0\.0\.250": may not be set for ExternalName services/);
  });
});
