import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { apiGroup, ORCH_PROFILE } from "../src/api/profile.js";
import { sample } from "../src/testing/metrics-text.js";
import { generateTestPki, startWebhookServer, type TestWebhookServer } from "../src/testing/webhook-server.js";
import { configMap, connectHttp2, json, request, type Http2Client } from "./helpers/http.js";
import { startTestServer, type TestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

const ADMISSION = apiGroup(ORCH_PROFILE, "admissionregistration");
const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";

/**
 * `--request-timeout` over real connections: a validating webhook that never answers (its own
 * `timeoutSeconds` 3, failurePolicy Ignore) stalls config map creates labelled `stall=yes` well
 * past the server's 1 s request timeout. The client gets kube's 504 Timeout Status at the
 * deadline over HTTP/1.1 and HTTP/2; the abandoned create goes on and commits once the webhook
 * call gives up, with no second answer and no crash, and the server stays healthy.
 */
describe("request timeout over HTTP/1.1 and HTTP/2 (a stalling admission webhook)", () => {
  let server: TestServer;
  let hooks: TestWebhookServer;
  let h2: Http2Client;
  before(async () => {
    const pki = generateTestPki();
    hooks = await startWebhookServer(pki, () => ({ hang: true }));
    server = await startTestServer({ requestTimeoutMs: 1_000 });
    h2 = await connectHttp2(server.admin);
    const created = await request(server.admin, "POST", `/apis/${ADMISSION}/v1/validatingwebhookconfigurations`, {
      body: {
        apiVersion: `${ADMISSION}/v1`,
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: "stall" },
        webhooks: [
          {
            name: "stall.test.io",
            clientConfig: { url: `${hooks.url}/stall`, caBundle: pki.caBundle },
            rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
            objectSelector: { matchLabels: { stall: "yes" } },
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
            timeoutSeconds: 3,
            failurePolicy: "Ignore",
          },
        ],
      },
    });
    assert.equal(created.status, 201, created.body);
  });
  after(async () => {
    await h2?.close();
    await server?.close();
    await hooks?.close();
  });

  /** Creates stalled config maps until the webhook configuration is in effect (the first 504); returns that answer. */
  async function firstTimeout(create: (name: string) => Promise<{ status: number; body: string }>, prefix: string): Promise<{ status: number; body: string }> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const answer = await create(`${prefix}-${attempt}`);
      if (answer.status !== 201) return answer;
      // Created at once: the webhook configuration was not served yet; it will be shortly.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error("the stalling webhook never took effect");
  }

  function assertTimeoutStatus(answer: { status: number; body: string }): void {
    assert.equal(answer.status, 504, answer.body);
    const status = json({ status: answer.status, body: answer.body, headers: {}, httpVersion: "" });
    assert.equal(status["kind"], "Status");
    assert.equal(status["reason"], "Timeout");
    assert.equal(status["code"], 504);
    assert.equal(status["message"], "Timeout: request did not complete within the allotted timeout");
  }

  it("HTTP/1.1: 504 Timeout at the deadline, the abandoned create commits later, the server stays healthy", async () => {
    const answer = await firstTimeout((name) => request(server.admin, "POST", CONFIGMAPS, { body: configMap(name, {}, { stall: "yes" }) }), "h1");
    assertTimeoutStatus(answer);
    await waitFor(async () => (await request(server.admin, "GET", "/readyz")).status === 200, { what: "/readyz 200" });
    // The last attempt's create goes on after its 504: once the webhook call gives up (Ignore), it commits.
    const listed = await waitFor(
      async () => {
        const list = json(await request(server.admin, "GET", `${CONFIGMAPS}?labelSelector=stall%3Dyes`));
        const items = (list["items"] as { metadata: { name: string } }[]).map((item) => item.metadata.name);
        return items.some((item) => item.startsWith("h1-")) && items;
      },
      { what: "the timed-out create to commit", timeoutMs: 15_000 },
    );
    assert.ok(listed.length >= 1);
  });

  it("HTTP/2: the same 504 on a multiplexed connection, which stays usable", async () => {
    const answer = await firstTimeout((name) => h2.request("POST", CONFIGMAPS, { body: configMap(name, {}, { stall: "yes" }) }), "h2");
    assertTimeoutStatus(answer);
    const after = await h2.request("GET", "/api/v1/namespaces/default/configmaps?limit=1");
    assert.equal(after.status, 200, after.body);
  });

  it("`?timeout=` above --request-timeout is capped by it; unstalled requests are not cut", async () => {
    const answer = await request(server.admin, "POST", `${CONFIGMAPS}?timeout=10m`, { body: configMap("capped", {}, { stall: "yes" }) });
    assertTimeoutStatus(answer);
    const plain = await request(server.admin, "POST", `${CONFIGMAPS}?timeout=10m`, { body: configMap("not-stalled") });
    assert.equal(plain.status, 201, plain.body);
  });

  it("timeouts count in apiserver_request_terminations_total and apiserver_request_total with code 504", async () => {
    const metrics = (await request(server.admin, "GET", "/metrics")).body;
    const labels = { verb: "POST", group: "", version: "v1", resource: "configmaps", scope: "namespace", component: "apiserver", code: "504" };
    assert.equal(sample(metrics, "apiserver_request_terminations_total", labels), 3);
    assert.equal(sample(metrics, "apiserver_request_total", labels), 3);
    for (const path of ["/livez", "/readyz", "/healthz"]) assert.equal((await request(server.admin, "GET", path)).status, 200, path);
  });
});
