// Real kubectl (the default release) scaling through the `scale` sub-resource (discovery names it autoscaling/v1 Scale).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { kubectlFor, parseTable, resolveKubectl, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";

const KUBECTL = resolveKubectl("default");
import { useTestServer } from "./helpers/server.js";

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

const template = (app: string) => ({ metadata: { labels: { app } }, spec: { containers: [{ name: "c", image: "busybox:1.36" }] } });

describe(`kubectl ${KUBECTL.version} scale`, () => {
  const server = useTestServer();
  let kubectl: Kubectl;

  before(async () => {
    kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, KUBECTL);
    const manifest = join(server().dataDir, "workloads.json");
    const items = [
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web" },
        spec: { replicas: 2, selector: { matchLabels: { app: "web" } }, template: template("web") },
      },
      {
        apiVersion: "v1",
        kind: "ReplicationController",
        metadata: { name: "legacy" },
        spec: { replicas: 1, selector: { app: "legacy" }, template: template("legacy") },
      },
      {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { name: "db" },
        spec: { serviceName: "db", selector: { matchLabels: { app: "db" } }, template: template("db") },
      },
    ];
    writeFileSync(manifest, JSON.stringify({ apiVersion: "v1", kind: "List", items }));
    ok(await kubectl(["create", "-f", manifest]));
  });

  it("scales a deployment, and get shows the new spec.replicas", async () => {
    assert.match(ok(await kubectl(["scale", "deployment/web", "--replicas=5"])), /deployment.apps\/web scaled/);
    assert.equal(ok(await kubectl(["get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"])), "5");
  });

  it("refuses --current-replicas that does not match, and changes nothing", async () => {
    const result = await kubectl(["scale", "--current-replicas=2", "--replicas=3", "deployment/web"]);
    assert.notEqual(result.code, 0, result.stdout);
    assert.match(result.stderr, /Expected replicas to be 2, was 5/);
    assert.equal(ok(await kubectl(["get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"])), "5");
  });

  it("scales with a matching --current-replicas (a GET then a PUT of the Scale)", async () => {
    assert.match(ok(await kubectl(["scale", "--current-replicas=5", "--replicas=3", "deployment/web"])), /deployment.apps\/web scaled/);
    assert.equal(ok(await kubectl(["get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"])), "3");
  });

  it("scales a replication controller and a stateful set", async () => {
    assert.match(ok(await kubectl(["scale", "rc/legacy", "--replicas=4"])), /replicationcontroller\/legacy scaled/);
    assert.equal(ok(await kubectl(["get", "rc", "legacy", "-o", "jsonpath={.spec.replicas}"])), "4");
    assert.match(ok(await kubectl(["scale", "statefulset/db", "--replicas=0"])), /statefulset.apps\/db scaled/);
    assert.equal(ok(await kubectl(["get", "statefulset", "db", "-o", "jsonpath={.spec.replicas}"])), "0");
  });

  it("leaves the deployment as it was with --dry-run=server", async () => {
    assert.match(ok(await kubectl(["scale", "deployment/web", "--replicas=9", "--dry-run=server"])), /deployment.apps\/web scaled \(server dry run\)/);
    assert.equal(ok(await kubectl(["get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"])), "3");
  });

  it("reads the Scale with get --raw", async () => {
    const scale = JSON.parse(ok(await kubectl(["get", "--raw", "/apis/apps/v1/namespaces/default/deployments/web/scale"]))) as Record<
      string,
      Record<string, unknown>
    >;
    assert.equal(scale["kind"], "Scale");
    assert.equal(scale["apiVersion"], "autoscaling/v1");
    assert.equal(scale["metadata"]?.["name"], "web");
    assert.deepEqual(scale["spec"], { replicas: 3 });
    assert.deepEqual(scale["status"], { replicas: 0, selector: "app=web" });
  });

  it("prints the Scale as kube's table with get --subresource=scale (Name, Desired, Available, Age)", async () => {
    const table = parseTable(ok(await kubectl(["get", "deployment", "web", "--subresource=scale"])));
    assert.deepEqual(
      table.map((row) => ({ name: row["NAME"], desired: row["DESIRED"], available: row["AVAILABLE"] })),
      [{ name: "web", desired: "3", available: "0" }],
    );
  });
});
