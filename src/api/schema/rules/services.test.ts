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
