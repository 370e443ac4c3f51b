// `kubectl events` (and `--for`) with the oldest and newest kubectl: Events written through
// events.<domain>/v1 and core/v1 are one kind, selected by their involved object.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { ORCH_PROFILE } from "../src/api/profile.js";
import { json, request } from "./helpers/http.js";
import { kubectlFor, resolveKubectls, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

describe("kubectl events", () => {
  const server = useTestServer();

  before(async () => {
    const admin = server().admin;
    const group = `events.${ORCH_PROFILE.apiDomain}`;
    const created = await request(admin, "POST", "/api/v1/namespaces/default/pods", {
      body: { apiVersion: "v1", kind: "Pod", metadata: { name: "web-0" }, spec: { containers: [{ name: "c", image: "busybox:1.36" }] } },
    });
    assert.equal(created.status, 201, created.body);
    const now = new Date().toISOString().replace("Z", "000Z");
    for (const [name, pod, reason] of [
      ["web-0.pulled", "web-0", "Pulled"],
      ["web-1.pulled", "web-1", "BackOff"],
    ] as const) {
      const answer = await request(admin, "POST", `/apis/${group}/v1/namespaces/default/events`, {
        body: {
          apiVersion: `${group}/v1`,
          kind: "Event",
          metadata: { name },
          regarding: { apiVersion: "v1", kind: "Pod", name: pod, namespace: "default" },
          reason,
          note: `${reason} for ${pod}`,
          type: reason === "BackOff" ? "Warning" : "Normal",
          action: "Pull",
          reportingController: "example.com/agent",
          reportingInstance: "agent-1",
          eventTime: now,
        },
      });
      assert.equal(answer.status, 201, answer.body);
    }
    const listed = json(await request(admin, "GET", "/api/v1/namespaces/default/events"));
    assert.equal((listed["items"] as unknown[]).length, 2);
  });

  for (const release of resolveKubectls(["oldest", "newest"])) {
    describe(`kubectl ${release.version}`, () => {
      let kubectl: Kubectl;
      before(() => {
        kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, release);
      });

      it("lists every event, and --for narrows to one object", async () => {
        const all = ok(await kubectl(["events", "-n", "default"]));
        assert.match(all, /Pulled for web-0/);
        assert.match(all, /BackOff for web-1/);
        const one = ok(await kubectl(["events", "-n", "default", "--for", "pod/web-0"]));
        assert.match(one, /Pulled for web-0/);
        assert.doesNotMatch(one, /web-1/);
        const warnings = ok(await kubectl(["events", "-n", "default", "--types=Warning"]));
        assert.match(warnings, /BackOff for web-1/);
        assert.doesNotMatch(warnings, /Pulled/);
      });
    });
  }
});
