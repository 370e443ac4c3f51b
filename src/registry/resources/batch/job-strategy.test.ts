import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../../../api/profile.js";
import { inProcessServer } from "../../../testing/in-process.js";

type Json = Record<string, unknown>;

const JOBS = "/apis/batch/v1/namespaces/default/jobs";
const CRONJOBS = "/apis/batch/v1/namespaces/default/cronjobs";
const TEMPLATE = { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } };

function job(name: string, spec: Json = {}, labels?: Record<string, string>): Json {
  return { apiVersion: "batch/v1", kind: "Job", metadata: { name, ...(labels === undefined ? {} : { labels }) }, spec: { template: TEMPLATE, ...spec } };
}

function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) current = typeof current === "object" && current !== null ? (current as Json)[key] : undefined;
  return current;
}

for (const profile of [KUBERNETES_PROFILE, ORCH_PROFILE]) {
  describe(`Job selector generation, as kube's Job strategy (${profile.name} profile)`, () => {
    let server: Awaited<ReturnType<typeof inProcessServer>>;
    const uidKey = `batch.${profile.keyDomain}/controller-uid`;
    const nameKey = `batch.${profile.keyDomain}/job-name`;
    before(async () => {
      server = await inProcessServer({ profile });
    });
    after(async () => {
      await server.stop();
    });

    it("labels the pod template with the job's name and uid, selects the uid, and gives the job the template's labels", async () => {
      const created = await server.call("POST", JOBS, { body: job("pi") });
      assert.equal(created.status, 201, created.text);
      const uid = String(at(created.json, "metadata", "uid"));
      const generated = { [uidKey]: uid, [nameKey]: "pi", "controller-uid": uid, "job-name": "pi" };
      assert.deepEqual(at(created.json, "spec", "template", "metadata", "labels"), generated);
      assert.deepEqual(at(created.json, "spec", "selector"), { matchLabels: { [uidKey]: uid } });
      assert.equal(at(created.json, "spec", "manualSelector"), false);
      assert.deepEqual(at(created.json, "metadata", "labels"), generated);
      const read = await server.call("GET", `${JOBS}/pi`);
      assert.deepEqual(at(read.json, "spec", "selector"), { matchLabels: { [uidKey]: uid } });
    });

    it("keeps the client's template labels and the job's own labels", async () => {
      const body = job("mine", { template: { ...TEMPLATE, metadata: { labels: { app: "x" } } } }, { team: "a" });
      const created = await server.call("POST", JOBS, { body });
      assert.equal(created.status, 201, created.text);
      assert.equal(at(created.json, "spec", "template", "metadata", "labels", "app"), "x");
      assert.equal(at(created.json, "spec", "template", "metadata", "labels", "job-name"), "mine");
      assert.deepEqual(at(created.json, "metadata", "labels"), { team: "a" });
    });

    it("with manualSelector the client's selector is required and must select the template", async () => {
      const missing = await server.call("POST", JOBS, { body: job("manual", { manualSelector: true }) });
      assert.equal(missing.status, 422, missing.text);
      assert.match(String(missing.json["message"]), /spec\.selector: Required value/);
      const mismatch = await server.call("POST", JOBS, { body: job("manual", { manualSelector: true, selector: { matchLabels: { a: "b" } } }) });
      assert.equal(mismatch.status, 422, mismatch.text);
      assert.match(String(mismatch.json["message"]), /`selector` does not match template `labels`/);
      const selector = { matchLabels: { a: "b" } };
      const ok = await server.call("POST", JOBS, {
        body: job("manual", { manualSelector: true, selector, template: { ...TEMPLATE, metadata: { labels: { a: "b" } } } }),
      });
      assert.equal(ok.status, 201, ok.text);
      assert.deepEqual(at(ok.json, "spec", "selector"), selector);
      assert.deepEqual(at(ok.json, "spec", "template", "metadata", "labels"), { a: "b" });
    });

    it("leaves a CronJob's job template alone (its jobs get selectors when they are created)", async () => {
      const created = await server.call("POST", CRONJOBS, {
        body: {
          apiVersion: "batch/v1",
          kind: "CronJob",
          metadata: { name: "nightly" },
          spec: { schedule: "@daily", jobTemplate: { spec: { template: TEMPLATE } } },
        },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(at(created.json, "spec", "jobTemplate", "spec", "selector"), undefined);
      assert.equal(at(created.json, "spec", "jobTemplate", "spec", "manualSelector"), undefined);
      assert.equal(at(created.json, "spec", "jobTemplate", "spec", "template", "metadata", "labels"), undefined);
    });
  });
}
