// kube's per-kind warnings as users meet them through real kubectl (the oldest and the newest
// installed): `kubectl apply` of stock manifests naming deprecated keys prints kube's `Warning:`
// lines and still applies them; server-side dry-run and server-side apply warn the same.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../src/api/profile.js";
import { kubectlFor, resolveKubectls, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";

function ok(result: KubectlResult): KubectlResult {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result;
}

/** The `Warning: …` lines kubectl printed, without the prefix. */
function warningLines(result: KubectlResult): string[] {
  return result.stderr
    .split("\n")
    .filter((line) => line.startsWith("Warning: "))
    .map((line) => line.slice("Warning: ".length));
}

const pod = (name: string, nodeSelector: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: { nodeSelector, containers: [{ name: "c", image: "busybox:1.36" }] },
});

for (const release of resolveKubectls(["oldest", "newest"])) {
  describe(`kubectl ${release.version} prints kube's warnings (--compat kubernetes)`, () => {
    const server = useTestServer({ profile: KUBERNETES_PROFILE, storageBackend: "memory" });
    let kubectl: Kubectl;
    let manifests = 0;
    const manifest = (value: unknown): string => {
      const path = join(server().dataDir, `warn-${++manifests}.json`);
      writeFileSync(path, JSON.stringify(value));
      return path;
    };
    const ARCH = 'spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead';

    before(() => {
      kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, release);
    });

    it("apply of a pod with a deprecated nodeSelector label warns and creates it", async () => {
      const applied = ok(await kubectl(["apply", "-f", manifest(pod("p1", { "beta.kubernetes.io/arch": "amd64" }))]));
      assert.deepEqual(warningLines(applied), [ARCH]);
      assert.match(applied.stdout, /pod\/p1 created/);
      ok(await kubectl(["get", "pod", "p1"]));
    });

    it("server-side dry-run warns the same and creates nothing", async () => {
      const dryRun = ok(await kubectl(["apply", "--dry-run=server", "-f", manifest(pod("p2", { "beta.kubernetes.io/arch": "amd64" }))]));
      assert.deepEqual(warningLines(dryRun), [ARCH]);
      assert.notEqual((await kubectl(["get", "pod", "p2"])).code, 0);
    });

    it("server-side apply of a Deployment warns at the template's path", async () => {
      const deployment = {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web" },
        spec: {
          selector: { matchLabels: { app: "web" } },
          template: { metadata: { labels: { app: "web" } }, spec: pod("unused", { "beta.kubernetes.io/os": "linux" }).spec },
        },
      };
      const applied = ok(await kubectl(["apply", "--server-side", "-f", manifest(deployment)]));
      assert.deepEqual(warningLines(applied), [
        'spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead',
      ]);
      // Applied again unchanged: the generation stays, so kube says nothing.
      assert.deepEqual(warningLines(ok(await kubectl(["apply", "--server-side", "-f", manifest(deployment)]))), []);
    });
  });
}

describe("kubectl prints the warnings in the orch profile's spelling", () => {
  const server = useTestServer({ profile: ORCH_PROFILE, storageBackend: "memory" });

  it("a deprecated orch.io node label", async () => {
    const kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir);
    const path = join(server().dataDir, "orch-pod.json");
    writeFileSync(path, JSON.stringify(pod("p", { "beta.orch.io/arch": "amd64" })));
    const created = ok(await kubectl(["create", "-f", path]));
    assert.deepEqual(warningLines(created), ['spec.nodeSelector[beta.orch.io/arch]: deprecated since v1.14; use "orch.io/arch" instead']);
  });
});
