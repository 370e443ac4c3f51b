// Real kubectl (the oldest and the newest installed): server-side apply, conflicts, client-side → server-side migration and
// server dry-run against an in-process server (sqlite backend).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { kubectlFor, resolveKubectls, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

interface ManagedFieldsEntry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}
interface KubeObject {
  metadata: { name: string; resourceVersion: string; annotations?: Record<string, string>; managedFields?: ManagedFieldsEntry[] };
  spec?: { replicas?: number; template?: { spec: { containers: { name: string; image: string }[] } } };
  data?: Record<string, string>;
}

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

function deployment(fields: { replicas?: number; image?: string; withContainers?: boolean } = {}): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  if (fields.replicas !== undefined) spec["replicas"] = fields.replicas;
  if (fields.withContainers !== false) {
    spec["selector"] = { matchLabels: { app: "web" } };
    spec["template"] = { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: fields.image ?? "nginx:1.25" }] } };
  }
  return { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec };
}

function fieldsOf(object: KubeObject, manager: string, operation = "Apply"): string {
  const entry = object.metadata.managedFields?.find((candidate) => candidate.manager === manager && candidate.operation === operation);
  return entry === undefined ? "" : JSON.stringify(entry.fieldsV1);
}

for (const release of resolveKubectls(["oldest", "newest"])) {
  describe(`kubectl ${release.version} server-side apply`, () => {
    const server = useTestServer({ storageBackend: "sqlite" });
    let kubectl: Kubectl;
    let manifests = 0;

    function manifest(value: unknown): string {
      const path = join(server().dataDir, `apply-${++manifests}.json`);
      writeFileSync(path, JSON.stringify(value));
      return path;
    }

    async function get(kind: string, name: string): Promise<KubeObject> {
      return JSON.parse(ok(await kubectl(["get", kind, name, "-o", "json", "--show-managed-fields"]))) as KubeObject;
    }

    before(() => {
      kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, release);
    });

    it("serves apps/v1 deployments (short name deploy, category all)", async () => {
      const row = ok(await kubectl(["api-resources", "--api-group=apps"]))
        .split("\n")
        .find((line) => line.startsWith("deployments "));
      assert.match(row ?? "", /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/);
      assert.match(ok(await kubectl(["api-resources", "--categories=all", "-o", "name"])), /^deployments\.apps$/m);
    });

    it("two managers share a Deployment: the containers belong to one, the replicas to the other", async () => {
      assert.match(
        ok(await kubectl(["apply", "--server-side", "--field-manager=deployer", "-f", manifest(deployment())])),
        /deployment\.apps\/web serverside-applied/,
      );
      assert.match(
        ok(await kubectl(["apply", "--server-side", "--field-manager=scaler", "-f", manifest(deployment({ replicas: 3, withContainers: false }))])),
        /deployment\.apps\/web serverside-applied/,
      );
      const object = await get("deploy", "web");
      assert.equal(object.spec?.replicas, 3);
      assert.equal(object.spec?.template?.spec.containers[0]?.image, "nginx:1.25");
      assert.equal(fieldsOf(object, "scaler"), '{"f:spec":{"f:replicas":{}}}');
      assert.match(fieldsOf(object, "deployer"), /"f:containers":\{"k:\{\\"name\\":\\"web\\"\}":\{"\.":\{\},"f:image":\{\},"f:name":\{\}\}\}/);
      assert.doesNotMatch(fieldsOf(object, "deployer"), /f:replicas/);
    });

    it("reports each conflict with its manager and how to resolve it, and changes nothing", async () => {
      const before = await get("deployment", "web");
      const replicas = await kubectl(["apply", "--server-side", "--field-manager=deployer", "-f", manifest(deployment({ replicas: 5 }))]);
      assert.notEqual(replicas.code, 0);
      assert.match(replicas.stderr, /Apply failed with 1 conflict: conflict with "scaler": \.spec\.replicas/);
      assert.match(replicas.stderr, /Please review the fields above--they currently have other managers/);
      assert.match(replicas.stderr, /--force-conflicts/);
      const image = await kubectl(["apply", "--server-side", "--field-manager=scaler", "-f", manifest(deployment({ replicas: 3, image: "nginx:1.26" }))]);
      assert.notEqual(image.code, 0);
      assert.match(image.stderr, /Apply failed with 1 conflict: conflict with "deployer": \.spec\.template\.spec\.containers\[name="web"\]\.image/);
      assert.equal((await get("deployment", "web")).metadata.resourceVersion, before.metadata.resourceVersion);
    });

    it("--force-conflicts takes the field over and the other manager loses it", async () => {
      ok(await kubectl(["apply", "--server-side", "--force-conflicts", "--field-manager=deployer", "-f", manifest(deployment({ replicas: 5 }))]));
      const object = await get("deployment", "web");
      assert.equal(object.spec?.replicas, 5);
      assert.match(fieldsOf(object, "deployer"), /f:replicas/);
      assert.equal(fieldsOf(object, "scaler"), "", "scaler owned only replicas, so its entry is gone");
    });

    it("removes fields a manager stops applying unless another manager still owns them", async () => {
      ok(await kubectl(["apply", "--server-side", "--field-manager=deployer", "-f", manifest(deployment())]));
      const object = await get("deployment", "web");
      // replicas were owned by deployer alone, so its value (5) is removed; the server then defaults it again, as kube does.
      assert.equal(object.spec?.replicas, 1, "removed, then defaulted");
      assert.doesNotMatch(fieldsOf(object, "deployer"), /f:replicas/);
    });

    it("--dry-run=server changes neither the store nor what watchers see (apply and create)", async () => {
      ok(await kubectl(["create", "namespace", "dry"]));
      const listVersion = async (): Promise<string> => ok(await kubectl(["get", "configmaps", "-n", "dry", "-o", "jsonpath={.metadata.resourceVersion}"]));
      const watch = kubectl.spawn(["get", "configmaps", "-n", "dry", "--watch-only", "-o", "name", "--request-timeout=60s"]);
      try {
        const startVersion = await listVersion();
        const deploymentBefore = await get("deployment", "web");
        assert.match(
          ok(await kubectl(["apply", "--server-side", "--dry-run=server", "--field-manager=deployer", "-f", manifest(deployment({ image: "nginx:dry" }))])),
          /deployment\.apps\/web serverside-applied \(server dry run\)/,
        );
        const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dry-only", namespace: "dry" }, data: { a: "b" } };
        assert.match(ok(await kubectl(["create", "--dry-run=server", "-f", manifest(cm)])), /configmap\/dry-only created \(server dry run\)/);
        assert.match(
          ok(await kubectl(["apply", "--server-side", "--dry-run=server", "-f", manifest(cm)])),
          /configmap\/dry-only serverside-applied \(server dry run\)/,
        );
        assert.equal(await listVersion(), startVersion, "no resourceVersion consumed");
        assert.equal((await get("deployment", "web")).metadata.resourceVersion, deploymentBefore.metadata.resourceVersion);
        const missing = await kubectl(["get", "configmap", "dry-only", "-n", "dry"]);
        assert.notEqual(missing.code, 0);
        assert.match(missing.stderr, /NotFound/);
        ok(await kubectl(["create", "configmap", "marker", "-n", "dry"]));
        await waitFor(() => watch.stdout().includes("configmap/marker"), {
          timeoutMs: 15_000,
          what: `the watch to print the marker (stdout: ${watch.stdout()} stderr: ${watch.stderr()})`,
        });
        assert.equal(watch.stdout().trim(), "configmap/marker", "the dry runs produced no watch event");
      } finally {
        await watch.stop();
      }
    });

    it("client-side → server-side: kubectl migrates client-side apply's ownership so dropped fields are removed (kubectl ≥ 1.26)", async () => {
      const cm = (data: Record<string, string>): Record<string, unknown> => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "migrated" }, data });
      assert.match(ok(await kubectl(["apply", "-f", manifest(cm({ a: "1", b: "2" }))])), /configmap\/migrated created/);
      const clientSide = await get("configmap", "migrated");
      assert.match(fieldsOf(clientSide, "kubectl-client-side-apply", "Update"), /f:b/);
      ok(await kubectl(["apply", "--server-side", "-f", manifest(cm({ a: "1", b: "2" }))]));
      const migrated = await get("configmap", "migrated");
      assert.equal(fieldsOf(migrated, "kubectl-client-side-apply", "Update"), "", "client-side apply's entry is merged into kubectl's Apply entry");
      assert.match(fieldsOf(migrated, "kubectl"), /"f:b":\{\}/);
      // The bug users filed: after switching, dropping a field from the manifest left it in place.
      ok(await kubectl(["apply", "--server-side", "-f", manifest(cm({ a: "1" }))]));
      const after = await get("configmap", "migrated");
      assert.deepEqual(after.data, { a: "1" });
      const lastApplied = after.metadata.annotations?.[LAST_APPLIED];
      assert.ok(lastApplied !== undefined, "the last-applied annotation is kept for a later downgrade");
      assert.deepEqual((JSON.parse(lastApplied) as KubeObject).data, { a: "1" }, "and kept current by the server");
    });

    it("client-side → server-side: kubectl's first server-side apply may change fields client-side apply set without --force-conflicts", async () => {
      const cm = (value: string): Record<string, unknown> => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "upgraded" }, data: { key: value } });
      ok(await kubectl(["apply", "-f", manifest(cm("client"))]));
      assert.match(ok(await kubectl(["apply", "--server-side", "-f", manifest(cm("server"))])), /serverside-applied/);
      assert.deepEqual((await get("configmap", "upgraded")).data, { key: "server" });
      // Another field manager gets no such allowance.
      ok(await kubectl(["apply", "-f", manifest({ ...cm("client"), metadata: { name: "strict" } })]));
      const other = await kubectl(["apply", "--server-side", "--field-manager=other", "-f", manifest({ ...cm("server"), metadata: { name: "strict" } })]);
      assert.notEqual(other.code, 0);
      assert.match(other.stderr, /conflict with "kubectl-client-side-apply" using v1: \.data\.key/);
    });
  });
}
