import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer, type TestResponse } from "../../../testing/in-process.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

const NS = "/api/v1/namespaces/default";
const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
const CRONJOBS = "/apis/batch/v1/namespaces/default/cronjobs";
const MERGE = { "content-type": "application/merge-patch+json" };
const ARCH = 'spec.nodeSelector[beta.orch.io/arch]: deprecated since v1.14; use "orch.io/arch" instead';
const TEMPLATE_ARCH = `spec.template.${ARCH}`;

function warnings(response: TestResponse): string[] {
  const value = response.headers["warning"];
  const all = value === undefined ? [] : Array.isArray(value) ? value : [String(value)];
  return all.map((header) => {
    const match = /^299 - (".*")$/.exec(header);
    assert.ok(match?.[1] !== undefined, `not a kube warning header: ${header}`);
    return JSON.parse(match[1]) as string;
  });
}

const containers = [{ name: "c", image: "busybox:1.36" }];
const podSpec = (extra: Json = {}): Json => ({ nodeSelector: { "beta.orch.io/arch": "amd64" }, containers, ...extra });
const deployment = (name: string): Json => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name },
  spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: podSpec() } },
});

describe("kind warnings through the pipeline (orch profile)", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(async () => {
    await server.stop();
  });

  it("a pod create succeeds and carries the warnings as Warning: 299 headers", async () => {
    const created = await server.call("POST", `${NS}/pods`, {
      body: { apiVersion: "v1", kind: "Pod", metadata: { name: "p1" }, spec: podSpec({ terminationGracePeriodSeconds: -5 }) },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(warnings(created), [ARCH, "spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1"]);
    assert.equal((created.json["spec"] as Json)["terminationGracePeriodSeconds"], -5);
  });

  it("a dry-run create warns the same and stores nothing", async () => {
    const dryRun = await server.call("POST", `${NS}/pods?dryRun=All`, { body: { apiVersion: "v1", kind: "Pod", metadata: { name: "p2" }, spec: podSpec() } });
    assert.equal(dryRun.status, 201, dryRun.text);
    assert.deepEqual(warnings(dryRun), [ARCH]);
    assert.equal((await server.call("GET", `${NS}/pods/p2`)).status, 404);
  });

  it("a create that fails after validation answers its error with the warnings recorded before it", async () => {
    const again = await server.call("POST", `${NS}/pods`, { body: { apiVersion: "v1", kind: "Pod", metadata: { name: "p1" }, spec: podSpec() } });
    assert.equal(again.status, 409, again.text);
    assert.deepEqual(warnings(again), [ARCH]);
  });

  it("an invalid object gets its error, not the warnings", async () => {
    const refused = await server.call("POST", `${NS}/pods`, {
      body: { apiVersion: "v1", kind: "Pod", metadata: { name: "p3" }, spec: podSpec({ containers: [] }) },
    });
    assert.equal(refused.status, 422);
    assert.deepEqual(warnings(refused), []);
  });

  it("pod updates and status writes do not warn", async () => {
    const labelled = await server.call("PATCH", `${NS}/pods/p1`, { headers: MERGE, body: { metadata: { labels: { a: "b" } } } });
    assert.equal(labelled.status, 200, labelled.text);
    assert.deepEqual(warnings(labelled), []);
    const status = await server.call("PATCH", `${NS}/pods/p1/status`, { headers: MERGE, body: { status: { message: "m" } } });
    assert.equal(status.status, 200, status.text);
    assert.deepEqual(warnings(status), []);
  });

  it("a Deployment warns on create, and on update only when its generation changes", async () => {
    const created = await server.call("POST", DEPLOYMENTS, { body: deployment("web") });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(warnings(created), [TEMPLATE_ARCH]);
    const relabelled = await server.call("PATCH", `${DEPLOYMENTS}/web`, { headers: MERGE, body: { metadata: { labels: { tier: "front" } } } });
    assert.equal(relabelled.status, 200, relabelled.text);
    assert.equal((relabelled.json["metadata"] as Json)["generation"], 1);
    assert.deepEqual(warnings(relabelled), []);
    const retemplated = await server.call("PATCH", `${DEPLOYMENTS}/web`, {
      headers: MERGE,
      body: { spec: { template: { metadata: { annotations: { rev: "2" } } } } },
    });
    assert.equal((retemplated.json["metadata"] as Json)["generation"], 2);
    assert.deepEqual(warnings(retemplated), [TEMPLATE_ARCH]);
    // kube's scale writes go through the Deployment's update strategy: a new generation, the same warnings.
    const scaled = await server.call("PATCH", `${DEPLOYMENTS}/web/scale`, { headers: MERGE, body: { spec: { replicas: 3 } } });
    assert.equal(scaled.status, 200, scaled.text);
    assert.deepEqual(warnings(scaled), [TEMPLATE_ARCH]);
    const status = await server.call("PATCH", `${DEPLOYMENTS}/web/status`, { headers: MERGE, body: { status: { replicas: 1 } } });
    assert.equal(status.status, 200, status.text);
    assert.deepEqual(warnings(status), []);
  });

  it("a workload name that is not a DNS label warns", async () => {
    const created = await server.call("POST", DEPLOYMENTS, { body: deployment("web.v2") });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(warnings(created), [
      "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]",
      TEMPLATE_ARCH,
    ]);
  });

  it("a PodTemplate has a generation that its template's changes bump, and warns with it", async () => {
    const body = { apiVersion: "v1", kind: "PodTemplate", metadata: { name: "t" }, template: { spec: podSpec() } };
    const created = await server.call("POST", `${NS}/podtemplates`, { body });
    assert.equal(created.status, 201, created.text);
    assert.equal((created.json["metadata"] as Json)["generation"], 1);
    assert.deepEqual(warnings(created), [`template.${ARCH}`]);
    const relabelled = await server.call("PATCH", `${NS}/podtemplates/t`, { headers: MERGE, body: { metadata: { labels: { a: "b" } } } });
    assert.equal((relabelled.json["metadata"] as Json)["generation"], 1);
    assert.deepEqual(warnings(relabelled), []);
    const changed = await server.call("PATCH", `${NS}/podtemplates/t`, { headers: MERGE, body: { template: { metadata: { labels: { a: "b" } } } } });
    assert.equal((changed.json["metadata"] as Json)["generation"], 2);
    assert.deepEqual(warnings(changed), [`template.${ARCH}`]);
  });

  it("a CronJob schedule may keep a TZ prefix it was stored with (warned), but not gain one", async () => {
    const jobTemplate = { spec: { template: { spec: { containers, restartPolicy: "Never" } } } };
    const refused = await server.call("POST", CRONJOBS, {
      body: { apiVersion: "batch/v1", kind: "CronJob", metadata: { name: "new" }, spec: { schedule: "TZ=UTC 0 * * * *", jobTemplate } },
    });
    assert.equal(refused.status, 422);
    assert.match(refused.text, /cannot use TZ or CRON_TZ in schedule, use timeZone field instead/);
    // One written before kube 1.27 refused the prefix, straight into storage.
    const legacy = {
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: { name: "legacy", namespace: "default", uid: "0f0f0f0f-0000-4000-8000-000000000001", generation: 1, creationTimestamp: "2026-01-01T00:00:00Z" },
      spec: {
        schedule: "CRON_TZ=UTC 0 * * * *",
        jobTemplate,
        concurrencyPolicy: "Allow",
        suspend: false,
        successfulJobsHistoryLimit: 3,
        failedJobsHistoryLimit: 1,
      },
      status: {},
    };
    await server.storage.create("/cronjobs/default/legacy", JSON.stringify(legacy));
    const updated = await server.call("PATCH", `${CRONJOBS}/legacy`, { headers: MERGE, body: { spec: { schedule: "CRON_TZ=UTC 5 * * * *" } } });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(warnings(updated), [
      "cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details",
    ]);
    const both = await server.call("PATCH", `${CRONJOBS}/legacy`, { headers: MERGE, body: { spec: { timeZone: "Etc/UTC" } } });
    assert.equal(both.status, 422);
    assert.match(both.text, /cannot use both timeZone field and TZ or CRON_TZ in schedule/);
  });

  it("an Ingress created with the class annotation warns", async () => {
    const created = await server.call("POST", "/apis/networking.orch.io/v1/namespaces/default/ingresses", {
      body: {
        apiVersion: "networking.orch.io/v1",
        kind: "Ingress",
        metadata: { name: "i", annotations: { "orch.io/ingress.class": "nginx" } },
        spec: { defaultBackend: { service: { name: "s", port: { number: 80 } } } },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(warnings(created), ["annotation \"orch.io/ingress.class\" is deprecated, please use 'spec.ingressClassName' instead"]);
  });
});
