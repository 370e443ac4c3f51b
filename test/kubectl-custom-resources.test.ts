// Real kubectl (oldest and newest releases) against custom resources: a generated CRD applied,
// waited for, then used by plural, short name, category and `all`, with printer columns,
// explain, scale, SSA and deletion cleanup.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { apiGroup, ORCH_PROFILE } from "../src/api/profile.js";
import { crdFixture } from "../src/testing/crd-fixtures.js";
import { kubectlFor, resolveKubectls, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

for (const release of resolveKubectls(["oldest", "newest"])) {
  describe(`kubectl ${release.version} with custom resources`, () => {
    const server = useTestServer();
    let kubectl: Kubectl;
    const group = "ops.example.com";

    before(async () => {
      kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, release);
      const crd = crdFixture({
        group,
        plural: "databases",
        kind: "Database",
        apiextensionsGroup: apiGroup(ORCH_PROFILE, "apiextensions"),
        shortNames: ["db"],
        categories: ["all", "storage-things"],
        padding: 20_000,
      });
      const file = join(server().dataDir, "crd.json");
      writeFileSync(file, JSON.stringify(crd));
      ok(await kubectl(["apply", "--server-side", "-f", file]));
      ok(await kubectl(["wait", "--for=condition=Established", `crd/databases.${group}`, "--timeout=30s"]));
      const objects = join(server().dataDir, "objects.json");
      const item = (name: string, replicas: number) => ({
        apiVersion: `${group}/v1`,
        kind: "Database",
        metadata: { name },
        spec: { image: "postgres:16", replicas },
      });
      writeFileSync(objects, JSON.stringify({ apiVersion: "v1", kind: "List", items: [item("main", 2), item("replica", 1)] }));
      ok(await kubectl(["create", "-f", objects]));
    });

    it("gets by plural, short name, category and all, with the printer columns", async () => {
      const table = ok(await kubectl(["get", "databases"]));
      assert.match(table, /^NAME\s+IMAGE\s+REPLICAS\s+AGE\n/);
      assert.match(table, /\nmain\s+postgres:16\s+2\s+/);
      assert.match(ok(await kubectl(["get", "db", "main", "-o", "jsonpath={.spec.mode}"])), /^Rolling$/);
      assert.match(ok(await kubectl(["get", "storage-things"])), /\nmain\s+postgres:16\s+2\s+\S+\n/);
      assert.match(ok(await kubectl(["get", "all"])), /database\.ops\.example\.com\/replica/);
      assert.match(ok(await kubectl(["get", "databases", "-o", "wide"])), /^NAME\s+IMAGE\s+REPLICAS\s+PHASE\s+AGE\n/);
    });

    it("explains the schema's descriptions", async () => {
      assert.match(ok(await kubectl(["explain", "databases.spec.image"])), /Container image to run\./);
    });

    it("scales through the scale sub-resource", async () => {
      assert.match(ok(await kubectl(["scale", "db/main", "--replicas=4"])), /database\.ops\.example\.com\/main scaled/);
      assert.equal(ok(await kubectl(["get", "db", "main", "-o", "jsonpath={.spec.replicas}"])), "4");
      // kubectl 1.27+ reads the Scale as a Table: kube's scale columns, whatever the parent's printer columns.
      assert.match(ok(await kubectl(["get", "db", "main", "--subresource=scale"])), /^NAME\s+DESIRED\s+AVAILABLE\s+AGE\nmain\s+4\s+0\s+\S+\n$/);
    });

    it("reports schema violations with kube's messages", async () => {
      const result = await kubectl(["patch", "db", "main", "--type=merge", "-p", '{"spec":{"mode":"Sometimes"}}']);
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /spec\.mode: Unsupported value: "Sometimes": supported values: "Rolling", "Recreate"/);
    });

    it("deletes the definition after its objects", async () => {
      ok(await kubectl(["delete", "crd", `databases.${group}`, "--timeout=30s"]));
      const gone = await kubectl(["get", "databases"]);
      assert.notEqual(gone.code, 0);
      assert.match(gone.stderr, /the server doesn't have a resource type "databases"|NotFound/);
    });
  });
}
