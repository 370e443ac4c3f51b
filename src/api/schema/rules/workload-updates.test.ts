import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../../profile.js";
import { inProcessServer } from "../../../testing/in-process.js";
import { goLabelSelector } from "./workload-updates.js";

type Json = Record<string, unknown>;

const TEMPLATE = { metadata: { labels: { app: "w" } }, spec: { containers: [{ name: "c", image: "nginx" }] } };
const MERGE = { "content-type": "application/merge-patch+json" };

function workload(kind: string, name: string, spec: Json = {}): Json {
  return { apiVersion: "apps/v1", kind, metadata: { name }, spec: { selector: { matchLabels: { app: "w" } }, template: TEMPLATE, ...spec } };
}

describe("workload update rules, as kube's strategies' ValidateUpdate", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  it("a template whose labels the selector does not match: kube's message with the labels as Go's map (Deployment, ReplicationController, Job), an empty selector as Go's LabelSelector", async () => {
    const deployment = workload("Deployment", "mismatch", { template: { ...TEMPLATE, metadata: { labels: { tier: "b", app: "x" } } } });
    const refused = await server.call("POST", "/apis/apps/v1/namespaces/default/deployments", { body: deployment });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(
      refused.json["message"],
      'Deployment.apps "mismatch" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"x", "tier":"b"}: `selector` does not match template `labels`',
    );
    const rc = {
      apiVersion: "v1",
      kind: "ReplicationController",
      metadata: { name: "mismatch" },
      spec: { selector: { app: "w" }, template: { ...TEMPLATE, metadata: {} } },
    };
    const rcRefused = await server.call("POST", "/api/v1/namespaces/default/replicationcontrollers", { body: rc });
    assert.match(
      String(rcRefused.json["message"]),
      /spec\.template\.metadata\.labels: Invalid value: map\[string\]string\(nil\): `selector` does not match template `labels`/,
    );
    const job = {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "mismatch" },
      spec: {
        manualSelector: true,
        selector: { matchLabels: { app: "w" } },
        template: { ...TEMPLATE, metadata: { labels: { app: "v" } }, spec: { ...TEMPLATE.spec, restartPolicy: "Never" } },
      },
    };
    const jobRefused = await server.call("POST", "/apis/batch/v1/namespaces/default/jobs", { body: job });
    assert.match(String(jobRefused.json["message"]), /Invalid value: map\[string\]string\{"app":"v"\}: `selector` does not match template `labels`/);
    const empty = await server.call("POST", "/apis/apps/v1/namespaces/default/deployments", {
      body: workload("Deployment", "empty", { selector: { matchLabels: {} } }),
    });
    assert.match(
      String(empty.json["message"]),
      /spec\.selector: Invalid value: v1\.LabelSelector\{MatchLabels:map\[string\]string\{\}, MatchExpressions:\[\]v1\.LabelSelectorRequirement\(nil\)\}: empty selector is invalid for deployment/,
    );
  });

  const newSelector = { spec: { selector: { matchLabels: { app: "w", tier: "x" } }, template: { metadata: { labels: { app: "w", tier: "x" } } } } };

  for (const [kind, plural] of [
    ["Deployment", "deployments"],
    ["ReplicaSet", "replicasets"],
    ["DaemonSet", "daemonsets"],
  ] as const) {
    it(`a ${kind}'s selector is immutable, in kube's words (Go's rendering of the selector)`, async () => {
      const path = `/apis/apps/v1/namespaces/default/${plural}`;
      assert.equal((await server.call("POST", path, { body: workload(kind, "w") })).status, 201);
      const changed = await server.call("PATCH", `${path}/w`, { body: newSelector, headers: MERGE });
      assert.equal(changed.status, 422, changed.text);
      assert.equal(
        changed.json["message"],
        `${kind}.apps "w" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"w", "tier":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable`,
      );
      const image = await server.call("PATCH", `${path}/w`, {
        body: { spec: { template: { metadata: { labels: { app: "w", extra: "y" } } } } },
        headers: MERGE,
      });
      assert.equal(image.status, 200, image.text);
    });
  }

  it("a StatefulSet's spec may change only in replicas, ordinals, template, updateStrategy, revisionHistoryLimit, claim retention and minReadySeconds", async () => {
    const path = "/apis/apps/v1/namespaces/default/statefulsets";
    assert.equal((await server.call("POST", path, { body: workload("StatefulSet", "s", { serviceName: "s" }) })).status, 201);
    const refused = await server.call("PATCH", `${path}/s`, { body: { spec: { serviceName: "other" } }, headers: MERGE });
    assert.equal(refused.status, 422, refused.text);
    assert.match(
      String(refused.json["message"]),
      /spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden$/,
    );
    const allowed = await server.call("PATCH", `${path}/s`, { body: { spec: { replicas: 3, minReadySeconds: 5, revisionHistoryLimit: 2 } }, headers: MERGE });
    assert.equal(allowed.status, 200, allowed.text);
  });

  it("a Job's template, completions, selector and completion mode are fixed; a suspended Job never started may change its scheduling directives", async () => {
    const path = "/apis/batch/v1/namespaces/default/jobs";
    const jobTemplate = { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } };
    const body = (name: string, spec: Json = {}): Json => ({
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name },
      spec: { template: jobTemplate, ...spec },
    });
    assert.equal((await server.call("POST", path, { body: body("j") })).status, 201);
    const image = await server.call("PATCH", `${path}/j`, {
      body: [{ op: "replace", path: "/spec/template/spec/containers/0/image", value: "nginx" }],
      headers: { "content-type": "application/json-patch+json" },
    });
    assert.equal(image.status, 422, image.text);
    assert.match(String(image.json["message"]), /spec\.template: Invalid value: .*: field is immutable$/);
    const completions = await server.call("PATCH", `${path}/j`, { body: { spec: { completions: 5 } }, headers: MERGE });
    assert.match(String(completions.json["message"]), /spec\.completions: Invalid value: 5: field is immutable/);
    const mode = await server.call("PATCH", `${path}/j`, { body: { spec: { completionMode: "Indexed" } }, headers: MERGE });
    assert.match(String(mode.json["message"]), /spec\.completionMode: Invalid value: "Indexed": field is immutable/);
    const parallelism = await server.call("PATCH", `${path}/j`, { body: { spec: { parallelism: 3, activeDeadlineSeconds: 60 } }, headers: MERGE });
    assert.equal(parallelism.status, 200, parallelism.text);

    assert.equal((await server.call("POST", path, { body: body("held", { suspend: true }) })).status, 201);
    const scheduling = await server.call("PATCH", `${path}/held`, { body: { spec: { template: { spec: { nodeSelector: { zone: "a" } } } } }, headers: MERGE });
    assert.equal(scheduling.status, 200, scheduling.text);
    const image2 = await server.call("PATCH", `${path}/held`, {
      body: [{ op: "replace", path: "/spec/template/spec/containers/0/image", value: "nginx" }],
      headers: { "content-type": "application/json-patch+json" },
    });
    assert.equal(image2.status, 422, image2.text);
  });

  it("renders selectors as Go's %#v does", () => {
    assert.equal(
      goLabelSelector({
        matchExpressions: [
          { key: "a", operator: "In", values: ["x", "y"] },
          { key: "b", operator: "Exists" },
        ],
      }),
      'v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"a", Operator:"In", Values:[]string{"x", "y"}}, v1.LabelSelectorRequirement{Key:"b", Operator:"Exists", Values:[]string(nil)}}}',
    );
  });
});
