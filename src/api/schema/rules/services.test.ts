import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../../profile.js";
import { inProcessServer } from "../../../testing/in-process.js";

const SERVICES = "/api/v1/namespaces/default/services";

function externalName(name: string, cname: string): Record<string, unknown> {
  return { apiVersion: "v1", kind: "Service", metadata: { name }, spec: { type: "ExternalName", externalName: cname } };
}

describe("ExternalName services, as kube's ValidateService", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  it("refuses an externalName that is not a DNS subdomain (a trailing dot allowed)", async () => {
    const refused = await server.call("POST", SERVICES, { body: externalName("bad", "a_b.") });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(
      refused.json["message"],
      `Service "bad" is invalid: spec.externalName: Invalid value: "a_b": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    );
    for (const [name, cname] of [
      ["fqdn", "db.example.com."],
      ["plain", "db.example.com"],
    ]) {
      const ok = await server.call("POST", SERVICES, { body: externalName(name ?? "", cname ?? "") });
      assert.equal(ok.status, 201, ok.text);
    }
  });
});

describe("LoadBalancer status, as kube's SetDefaults_Service (LoadBalancerIPMode, on in 1.30)", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  it("gives an ingress point with an IP and no ipMode `VIP`; a hostname-only point and a given mode are kept", async () => {
    const created = await server.call("POST", SERVICES, {
      body: { apiVersion: "v1", kind: "Service", metadata: { name: "edge" }, spec: { type: "LoadBalancer", ports: [{ port: 80 }] } },
    });
    assert.equal(created.status, 201, created.text);
    const patched = await server.call("PATCH", `${SERVICES}/edge/status`, {
      body: { status: { loadBalancer: { ingress: [{ ip: "203.0.113.7" }, { hostname: "lb.example.com" }, { ip: "203.0.113.8", ipMode: "Proxy" }] } } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(patched.status, 200, patched.text);
    const read = await server.call("GET", `${SERVICES}/edge`);
    assert.deepEqual((read.json["status"] as { loadBalancer: unknown }).loadBalancer, {
      ingress: [{ ip: "203.0.113.7", ipMode: "VIP" }, { hostname: "lb.example.com" }, { ip: "203.0.113.8", ipMode: "Proxy" }],
    });
  });
});
