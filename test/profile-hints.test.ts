// Under the orch profile, requests in Kubernetes' spellings say which group to use and which flag serves them.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ORCH_PROFILE } from "../src/api/profile.js";
import { json, request } from "./helpers/http.js";
import { useTestServer } from "./helpers/server.js";

const KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.33";
const HINT =
  /serves rbac\.authorization\.k8s\.io as rbac\.authorization\.orch\.io; use rbac\.authorization\.orch\.io, or start the server with --compat kubernetes/;

function kubectl(kubeconfig: string, home: string, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  mkdirSync(home, { recursive: true });
  return new Promise((resolve) => {
    execFile(
      KUBECTL,
      ["--kubeconfig", kubeconfig, "--cache-dir", join(home, "kube-cache"), ...args],
      { timeout: 60_000, killSignal: "SIGKILL", env: { ...process.env, HOME: home } },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr }),
    );
  });
}

describe("profiles explain themselves", () => {
  const server = useTestServer({ profile: ORCH_PROFILE, storageBackend: "memory" });

  it("answers a Kubernetes-spelled group with a 404 naming the orch group and --compat kubernetes", async () => {
    const admin = server().admin;
    for (const path of [
      "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
      "/apis/rbac.authorization.k8s.io/v1",
      "/apis/rbac.authorization.k8s.io",
    ]) {
      const answer = await request(admin, "GET", path);
      assert.equal(answer.status, 404, path);
      assert.match(String(json(answer)["message"]), HINT, path);
    }
    const unknown = await request(admin, "GET", "/apis/nothing.k8s.io/v1/things");
    assert.equal(json(unknown)["message"], "the server could not find the requested resource", "groups with no orch spelling keep the plain 404");
  });

  it("shows the hint through kubectl's typed commands and manifests", { skip: !existsSync(KUBECTL) && `kubectl not found at ${KUBECTL}` }, async () => {
    const home = join(server().dataDir, "kubectl-home");
    const kubeconfig = server().server.kubeconfigPath;
    const created = await kubectl(kubeconfig, home, ["create", "role", "reader", "--verb=get", "--resource=pods"]);
    assert.notEqual(created.code, 0);
    assert.match(created.stderr, HINT);
    const canI = await kubectl(kubeconfig, home, ["auth", "can-i", "get", "pods"]);
    assert.notEqual(canI.code, 0);
    assert.match(canI.stderr, /authorization\.k8s\.io as authorization\.orch\.io.*--compat kubernetes/);
    const manifest = join(home, "role.yaml");
    writeFileSync(manifest, "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: reader\nrules: []\n");
    const applied = await kubectl(kubeconfig, home, ["apply", "-f", manifest]);
    assert.notEqual(applied.code, 0);
    // kubectl finds no such kind in discovery and says so itself (no request reaches the server to answer with the hint).
    assert.doesNotMatch(applied.stderr, /failed to list CRDs/);
    assert.match(applied.stderr, /no matches for kind "Role" in version "rbac\.authorization\.k8s\.io\/v1"/);
  });
});
