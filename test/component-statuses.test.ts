// `kubectl get componentstatuses` as on kube-apiserver: controller-manager (the built-in one),
// etcd-0 (the store) and scheduler (probed where kube-scheduler answers; none runs here), with
// the deprecation warning, under kubectl 1.27 and 1.33 and through the Python client.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { json, request } from "./helpers/http.js";
import { kubectlFor, parseTable } from "./helpers/kubectl.js";
import { runPythonScript } from "./helpers/python.js";
import { useTestServer } from "./helpers/server.js";

const SCHEDULER_MESSAGE = /^Get "https:\/\/127\.0\.0\.1:10259\/healthz": /;

const PYTHON_SCRIPT = `
import json, sys
from kubernetes import client, config
config.load_kube_config(config_file=sys.argv[1])
api = client.CoreV1Api()
listed = api.list_component_status()
one = api.read_component_status("etcd-0")
print(json.dumps({"names": [item.metadata.name for item in listed.items],
  "etcd": [one.conditions[0].type, one.conditions[0].status, one.conditions[0].message]}))
`;

describe("ComponentStatus computed on each read", () => {
  const server = useTestServer();

  it("the list and a get carry kube's shape: no kind in list items, one Healthy condition, creationTimestamp null", async () => {
    const listed = json(await request(server().admin, "GET", "/api/v1/componentstatuses"));
    assert.equal(listed["kind"], "ComponentStatusList");
    assert.deepEqual(listed["metadata"], {});
    const items = listed["items"] as Record<string, unknown>[];
    assert.deepEqual(
      items.map((item) => (item["metadata"] as Record<string, unknown>)["name"]),
      ["controller-manager", "etcd-0", "scheduler"],
    );
    assert.equal(items[0]?.["kind"], undefined);
    assert.deepEqual(items[1], { metadata: { name: "etcd-0", creationTimestamp: null }, conditions: [{ type: "Healthy", status: "True", message: "ok" }] });
    const scheduler = (items[2]?.["conditions"] as Record<string, string>[])[0];
    assert.ok(scheduler?.["status"] === "True" || SCHEDULER_MESSAGE.test(scheduler?.["message"] ?? ""), JSON.stringify(scheduler));
    const got = await request(server().admin, "GET", "/api/v1/componentstatuses/controller-manager");
    assert.equal(got.status, 200);
    assert.deepEqual(json(got), {
      kind: "ComponentStatus",
      apiVersion: "v1",
      metadata: { name: "controller-manager", creationTimestamp: null },
      conditions: [{ type: "Healthy", status: "True", message: "ok" }],
    });
    assert.match(String(got.headers["warning"]), /v1 ComponentStatus is deprecated in v1\.19\+/);
  });

  it("an unknown name is NotFound, selectors filter, and there is no watch (405)", async () => {
    const missing = await request(server().admin, "GET", "/api/v1/componentstatuses/nope");
    assert.equal(missing.status, 404);
    assert.equal(json(missing)["message"], 'componentstatuses "nope" not found');
    const byName = json(await request(server().admin, "GET", "/api/v1/componentstatuses?fieldSelector=metadata.name%3Detcd-0"));
    assert.equal((byName["items"] as unknown[]).length, 1);
    const byLabel = json(await request(server().admin, "GET", "/api/v1/componentstatuses?labelSelector=tier%3Dcontrol-plane"));
    assert.deepEqual(byLabel["items"], []);
    const watch = await request(server().admin, "GET", "/api/v1/componentstatuses?watch=true");
    assert.equal(watch.status, 405);
    const create = await request(server().admin, "POST", "/api/v1/componentstatuses", { body: { metadata: { name: "x" } } });
    assert.equal(create.status, 405);
  });

  for (const version of ["1.27", "1.33"] as const) {
    it(`kubectl ${version} get cs: three rows with kube's columns and the deprecation warning`, async () => {
      const kubectl = kubectlFor(server().server.kubeconfigPath, join(server().dataDir, `kubectl-cs-${version}`), version);
      const result = await kubectl(["get", "componentstatuses"]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /Warning: v1 ComponentStatus is deprecated in v1\.19\+/);
      const rows = parseTable(result.stdout);
      assert.deepEqual(rows.map((row) => [row["NAME"], row["STATUS"]]).slice(0, 2), [
        ["controller-manager", "Healthy"],
        ["etcd-0", "Healthy"],
      ]);
      assert.equal(rows[1]?.["MESSAGE"], "ok");
      assert.equal(rows[2]?.["NAME"], "scheduler");
      const one = await kubectl(["get", "cs", "etcd-0", "-o", "json"]);
      assert.equal(one.code, 0, one.stderr);
      assert.deepEqual((JSON.parse(one.stdout) as Record<string, unknown>)["conditions"], [{ type: "Healthy", status: "True", message: "ok" }]);
    });
  }

  it("the Python client lists and reads them", async () => {
    const { code, output } = await runPythonScript(PYTHON_SCRIPT, [server().server.kubeconfigPath]);
    assert.equal(code, 0, output);
    assert.deepEqual(JSON.parse(output.trim().split("\n").pop() ?? ""), {
      names: ["controller-manager", "etcd-0", "scheduler"],
      etcd: ["Healthy", "True", "ok"],
    });
  });
});
