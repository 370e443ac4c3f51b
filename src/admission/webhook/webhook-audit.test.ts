import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { AuditBackend, AuditEvent } from "../../server/audit/event.js";
import { parseAuditPolicy } from "../../server/audit/policy.js";
import { inProcessServer } from "../../testing/in-process.js";
import { encodePatch, generateTestPki, startWebhookServer, type TestWebhookServer } from "../../testing/webhook-server.js";

const AR = "/apis/admissionregistration.orch.io";

/** Namespace `detailed` is audited at Request, the rest at Metadata. */
const POLICY = `
apiVersion: audit.orch.io/v1
kind: Policy
rules:
  - level: Request
    namespaces: ["detailed"]
  - level: Metadata
`;

describe("admission webhooks: their annotations in the audit log (kube's levels)", () => {
  const events: AuditEvent[] = [];
  const backend: AuditBackend = { name: "memory", processEvents: (batch) => void events.push(...batch), shutdown: async () => {} };
  let api: Awaited<ReturnType<typeof inProcessServer>>;
  let hooks: TestWebhookServer;

  before(async () => {
    const pki = generateTestPki();
    hooks = await startWebhookServer(pki, () => ({
      response: { allowed: true, patchType: "JSONPatch", patch: encodePatch([{ op: "add", path: "/metadata/labels", value: { stamped: "yes" } }]) },
    }));
    api = await inProcessServer({ audit: { policy: parseAuditPolicy(POLICY, "audit.orch.io"), backend, apiVersion: "audit.orch.io/v1" } });
    assert.equal((await api.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "detailed" } } })).status, 201);
    const configured = await api.call("POST", `${AR}/v1/mutatingwebhookconfigurations`, {
      body: {
        apiVersion: "admissionregistration.orch.io/v1",
        kind: "MutatingWebhookConfiguration",
        metadata: { name: "stamper" },
        webhooks: [
          {
            name: "stamp.test.io",
            clientConfig: { url: `${hooks.url}/stamp`, caBundle: pki.caBundle },
            rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
          },
        ],
      },
    });
    assert.equal(configured.status, 201, configured.text);
    await api.server.registry.freshness.waitForCurrent(2000);
  });
  after(async () => {
    await api.stop();
    await hooks.close();
  });

  async function createdAnnotations(namespace: string): Promise<Readonly<Record<string, string>>> {
    const created = await api.call("POST", `/api/v1/namespaces/${namespace}/configmaps`, {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "stamped" }, data: { k: "v" } },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal((created.json["metadata"] as { labels?: Record<string, string> }).labels?.["stamped"], "yes");
    const complete = events.find((event) => event.auditID === created.headers["audit-id"] && event.stage === "ResponseComplete");
    assert.ok(complete !== undefined, "no ResponseComplete event for the create");
    return complete.annotations ?? {};
  }

  it("records the mutation at Metadata and the patch only from Request up", async () => {
    const metadata = await createdAnnotations("default");
    const mutation = metadata["mutation.webhook.admission.orch.io/round_0_index_0"];
    assert.deepEqual(JSON.parse(mutation ?? "null"), { configuration: "stamper", webhook: "stamp.test.io", mutated: true });
    assert.equal(metadata["patch.webhook.admission.orch.io/round_0_index_0"], undefined);

    const request = await createdAnnotations("detailed");
    assert.deepEqual(JSON.parse(request["mutation.webhook.admission.orch.io/round_0_index_0"] ?? "null"), {
      configuration: "stamper",
      webhook: "stamp.test.io",
      mutated: true,
    });
    const patch = JSON.parse(request["patch.webhook.admission.orch.io/round_0_index_0"] ?? "null") as Record<string, unknown>;
    assert.equal(patch["configuration"], "stamper");
    assert.equal(patch["webhook"], "stamp.test.io");
    assert.equal(patch["patchType"], "JSONPatch");
    assert.deepEqual(patch["patch"], [{ op: "add", path: "/metadata/labels", value: { stamped: "yes" } }]);
  });
});
