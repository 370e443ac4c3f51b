// `kubectl debug` (ephemeral containers, `--copy-to`, `node/…`) and `kubectl create token --bound-object-kind`
// with the oldest and newest kubectl: kubectl ≥ 1.32 posts typed objects in protobuf, and 1.33's
// types carry fields kube 1.30 lacks (PodStatus.observedGeneration), which kube skips.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { ORCH_PROFILE } from "../src/api/profile.js";
import { json, request } from "./helpers/http.js";
import { kubectlFor, resolveKubectls, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";

type Json = Record<string, unknown>;

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

describe("kubectl debug and create token", () => {
  const server = useTestServer();

  before(async () => {
    const admin = server().admin;
    const node = await request(admin, "POST", "/api/v1/nodes", { body: { apiVersion: "v1", kind: "Node", metadata: { name: "n1" } } });
    assert.equal(node.status, 201, node.body);
    const pod = await request(admin, "POST", "/api/v1/namespaces/default/pods", {
      body: { apiVersion: "v1", kind: "Pod", metadata: { name: "app" }, spec: { containers: [{ name: "app", image: "busybox:1.36" }] } },
    });
    assert.equal(pod.status, 201, pod.body);
  });

  for (const release of resolveKubectls(["oldest", "newest"])) {
    describe(`kubectl ${release.version}`, () => {
      const tag = `v${release.minor}`;
      let kubectl: Kubectl;
      before(() => {
        kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, release);
      });

      it("adds an ephemeral container, refuses a second one of the same name and one targeting a missing container", async () => {
        ok(await kubectl(["debug", "app", "--image=busybox:1.36", "--target=app", "-c", `dbg-${tag}`, "--", "sleep", "1"]));
        const pod = json(await request(server().admin, "GET", "/api/v1/namespaces/default/pods/app"));
        const names = ((pod["spec"] as Json)["ephemeralContainers"] as Json[]).map((container) => container["name"]);
        assert.ok(names.includes(`dbg-${tag}`), String(names));
        const taken = await kubectl(["debug", "app", "--image=busybox:1.36", "-c", "app"]);
        assert.notEqual(taken.code, 0);
        assert.match(taken.stderr, /The Pod "app" is invalid: spec\.ephemeralContainers\[\d+\]\.name: Duplicate value: "app"/);
        const missing = await kubectl(["debug", "app", "--image=busybox:1.36", "--target=nope", "-c", `miss-${tag}`]);
        assert.notEqual(missing.code, 0);
        assert.match(missing.stderr, /spec\.ephemeralContainers\[\d+\]\.targetContainerName: Not found: "nope"/);
      });

      it("copies the pod (--copy-to) and debugs a node: both create typed pods", async () => {
        ok(await kubectl(["debug", "app", `--copy-to=copy-${tag}`, "--image=busybox:1.36", "-c", "extra", "--share-processes"]));
        const copy = json(await request(server().admin, "GET", `/api/v1/namespaces/default/pods/copy-${tag}`));
        const containers = ((copy["spec"] as Json)["containers"] as Json[]).map((container) => container["name"]);
        assert.deepEqual(containers, ["app", "extra"]);
        assert.equal((copy["status"] as Json)["phase"], "Pending");
        const debugged = ok(await kubectl(["debug", "node/n1", "--image=busybox:1.36"]));
        assert.match(debugged, /Creating debugging pod node-debugger-n1-\w+ with container debugger on node n1/);
      });

      it("binds a token to a pod; a Node is refused as kube 1.30 refuses it", async () => {
        const token = ok(await kubectl(["create", "token", "default", "--bound-object-kind=Pod", "--bound-object-name=app", "--duration=1h"])).trim();
        const claims = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString()) as Json;
        // The private claim is named after the profile's domain (`kubernetes.io` under --compat kubernetes).
        assert.equal(((claims[ORCH_PROFILE.apiDomain] as Json)["pod"] as Json)["name"], "app");
        const node = await kubectl(["create", "token", "default", "--bound-object-kind=Node", "--bound-object-name=n1"]);
        assert.notEqual(node.code, 0);
        // kubectl before 1.31 offers only Pod and Secret; later ones ask the server.
        if (release.minor < 31) assert.match(node.stderr, /supported --bound-object-kind values are Pod, Secret/);
        else assert.match(node.stderr, /cannot bind token to a Node object as the "ServiceAccountTokenNodeBinding" feature-gate is disabled/);
      });
    });
  }
});
