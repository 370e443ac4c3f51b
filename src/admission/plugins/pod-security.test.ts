import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../testing/in-process.js";
import { exemptNamespaceWarning, policiesFromLabels, type Policies } from "./pod-security-policy.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;

const PREFIX = "pod-security.orch.io/";
const PRIVILEGED: Policies = {
  enforce: { level: "privileged", version: "latest" },
  audit: { level: "privileged", version: "latest" },
  warn: { level: "privileged", version: "latest" },
};
const privilegedSpec = { containers: [{ name: "c", image: "i", securityContext: { privileged: true } }] };
const hostSpec = { hostNetwork: true, containers: [{ name: "c", image: "i" }] };

/** The texts of a response's `299 - "<text>"` Warning headers, in order. */
function warningsOf(response: { headers: Record<string, unknown> }): string[] {
  const header = response.headers["warning"];
  const joined = Array.isArray(header) ? header.join(", ") : String(header ?? "");
  return [...joined.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((match) => (match[1] ?? "").replace(/\\(.)/g, "$1"));
}

describe("PodSecurity: labels as kube reads them (policiesFromLabels)", () => {
  it("valid labels set each mode; missing ones keep the defaults", () => {
    const read = policiesFromLabels({ [`${PREFIX}enforce`]: "baseline", [`${PREFIX}warn-version`]: "v1.29" }, PREFIX, PRIVILEGED);
    assert.deepEqual(read.errors, []);
    assert.deepEqual(read.policies, {
      enforce: { level: "baseline", version: "latest" },
      audit: { level: "privileged", version: "latest" },
      warn: { level: "privileged", version: "v1.29" },
    });
  });

  it("a bad enforce level fails closed (restricted); bad audit/warn levels fail open; bad versions read as latest", () => {
    const read = policiesFromLabels(
      { [`${PREFIX}enforce`]: "bogus", [`${PREFIX}audit`]: "strict", [`${PREFIX}warn`]: "nope", [`${PREFIX}enforce-version`]: "1.30" },
      PREFIX,
      { ...PRIVILEGED, audit: { level: "baseline", version: "latest" } },
    );
    assert.deepEqual(read.policies, {
      enforce: { level: "restricted", version: "latest" },
      audit: { level: "privileged", version: "latest" },
      warn: { level: "privileged", version: "latest" },
    });
    assert.deepEqual(
      read.errors.map((error) => `${error.field}: ${error.message}`),
      [
        `metadata.labels[${PREFIX}enforce]: Invalid value: "bogus": must be one of privileged, baseline, restricted`,
        `metadata.labels[${PREFIX}enforce-version]: Invalid value: "1.30": must be "latest" or "v1.x"`,
        `metadata.labels[${PREFIX}audit]: Invalid value: "strict": must be one of privileged, baseline, restricted`,
        `metadata.labels[${PREFIX}warn]: Invalid value: "nope": must be one of privileged, baseline, restricted`,
      ],
    );
  });
});

describe("PodSecurity on namespaces, workloads and pods (in process)", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(() => server.stop());

  const createNamespace = (name: string, labels: Record<string, string>) =>
    server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name, labels } } });
  const label = (name: string, labels: Record<string, string | null>) =>
    server.call("PATCH", `/api/v1/namespaces/${name}`, {
      body: { metadata: { labels } },
      headers: { "content-type": "application/merge-patch+json" },
    });
  const createPod = (namespace: string, name: string, spec: Record<string, unknown>) =>
    server.call("POST", `/api/v1/namespaces/${namespace}/pods`, { body: { apiVersion: "v1", kind: "Pod", metadata: { name }, spec } });
  const createDeployment = (namespace: string, name: string, spec: Record<string, unknown>) =>
    server.call("POST", `/apis/apps/v1/namespaces/${namespace}/deployments`, {
      body: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name },
        spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec } },
      },
    });

  it("a namespace created with an invalid label is refused 422 naming the label", async () => {
    const refused = await createNamespace("psa-invalid", { [`${PREFIX}enforce`]: "bogus" });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.json["reason"], "Invalid");
    assert.equal(
      refused.json["message"],
      `Namespace "psa-invalid" is invalid: metadata.labels[${PREFIX}enforce]: Invalid value: "bogus": must be one of privileged, baseline, restricted`,
    );
    const details = refused.json["details"] as Record<string, unknown>;
    assert.equal(details["kind"], "Namespace");
    // Only the field cause: kubectl prints each cause of an Invalid Status as a line.
    assert.deepEqual(details["causes"], [
      {
        reason: "FieldValueInvalid",
        message: 'Invalid value: "bogus": must be one of privileged, baseline, restricted',
        field: `metadata.labels[${PREFIX}enforce]`,
      },
    ]);
  });

  it("an update that sets an invalid label is refused 422; valid updates pass", async () => {
    assert.equal((await createNamespace("psa-relabel", {})).status, 201);
    const refused = await label("psa-relabel", { [`${PREFIX}warn-version`]: "latest-ish" });
    assert.equal(refused.status, 422, refused.text);
    assert.match(
      String(refused.json["message"]),
      /metadata\.labels\[pod-security\.orch\.io\/warn-version\]: Invalid value: "latest-ish": must be "latest" or "v1\.x"/,
    );
    assert.equal((await label("psa-relabel", { [`${PREFIX}warn`]: "baseline" })).status, 200);
  });

  it("raising the enforce level warns about the existing pods it would refuse, grouped by reason", async () => {
    assert.equal((await createNamespace("psa-raise", {})).status, 201);
    for (const name of ["b-priv", "a-priv"]) assert.equal((await createPod("psa-raise", name, privilegedSpec)).status, 201);
    assert.equal((await createPod("psa-raise", "host", hostSpec)).status, 201);
    assert.equal((await createPod("psa-raise", "fine", { containers: [{ name: "c", image: "i" }] })).status, 201);
    const raised = await label("psa-raise", { [`${PREFIX}enforce`]: "baseline" });
    assert.equal(raised.status, 200, raised.text);
    assert.deepEqual(warningsOf(raised), [
      'existing pods in namespace "psa-raise" violate the new PodSecurity enforce level "baseline:latest"',
      "a-priv (and 1 other pod): privileged",
      "host: host namespaces",
    ]);
    const unchanged = await label("psa-raise", { other: "x" });
    assert.deepEqual(warningsOf(unchanged), [], "no new enforce level, no warnings");
    const relaxed = await label("psa-raise", { [`${PREFIX}enforce`]: "privileged" });
    assert.deepEqual(warningsOf(relaxed), [], "a relaxed level checks nothing");
  });

  it("a violating pod's updates are judged only when kube judges them: images and containers, not tolerations", async () => {
    assert.equal((await createNamespace("psa-updates", {})).status, 201);
    assert.equal((await createPod("psa-updates", "old", hostSpec)).status, 201);
    assert.equal((await label("psa-updates", { [`${PREFIX}enforce`]: "baseline" })).status, 200);
    const patch = (body: Record<string, unknown>) =>
      server.call("PATCH", "/api/v1/namespaces/psa-updates/pods/old", { body, headers: { "content-type": "application/merge-patch+json" } });
    const deadline = await patch({ spec: { activeDeadlineSeconds: 600 } });
    assert.equal(deadline.status, 200, deadline.text);
    const image = await server.call("PATCH", "/api/v1/namespaces/psa-updates/pods/old", {
      body: [{ op: "replace", path: "/spec/containers/0/image", value: "i:2" }],
      headers: { "content-type": "application/json-patch+json" },
    });
    assert.equal(image.status, 403, image.text);
    assert.match(String(image.json["message"]), /violates PodSecurity "baseline:latest": host namespaces \(hostNetwork=true\)/);
  });

  it("a Deployment's template gets warn (not enforce); its pods are still enforced", async () => {
    assert.equal((await createNamespace("psa-workloads", { [`${PREFIX}warn`]: "baseline", [`${PREFIX}enforce`]: "baseline" })).status, 201);
    const created = await createDeployment("psa-workloads", "web", hostSpec);
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(warningsOf(created), ['would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)']);
    assert.equal((await createPod("psa-workloads", "direct", hostSpec)).status, 403);
    assert.equal((await createNamespace("psa-enforce-only", { [`${PREFIX}enforce`]: "restricted" })).status, 201);
    const quiet = await createDeployment("psa-enforce-only", "web", hostSpec);
    assert.equal(quiet.status, 201, quiet.text);
    assert.deepEqual(warningsOf(quiet), [], "enforce alone does not judge workloads");
  });

  it("LimitRanger notes what it set in the limit-ranger annotation", async () => {
    assert.equal((await createNamespace("lr-note", {})).status, 201);
    const range = {
      apiVersion: "v1",
      kind: "LimitRange",
      metadata: { name: "r" },
      spec: { limits: [{ type: "Container", default: { cpu: "500m", memory: "64Mi" }, defaultRequest: { cpu: "200m" } }] },
    };
    assert.equal((await server.call("POST", "/api/v1/namespaces/lr-note/limitranges", { body: range })).status, 201);
    const pod = await createPod("lr-note", "p", {
      initContainers: [{ name: "setup", image: "i", resources: { requests: { cpu: "10m" } } }],
      containers: [
        { name: "app", image: "i" },
        { name: "sized", image: "i", resources: { limits: { cpu: "100m", memory: "32Mi" }, requests: { cpu: "50m", memory: "16Mi" } } },
      ],
    });
    assert.equal(pod.status, 201, pod.text);
    const annotations = (pod.json["metadata"] as Record<string, unknown>)["annotations"] as Record<string, string>;
    assert.equal(
      annotations["orch.io/limit-ranger"],
      [
        "LimitRanger plugin set: cpu, memory request for container app",
        "cpu, memory limit for container app",
        "memory request for init container setup",
        "cpu, memory limit for init container setup",
      ].join("; "),
    );
  });
});

describe("PodSecurity with an exempt namespace (in process)", () => {
  let server: Server;
  let directory = "";
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), "psa-exempt-"));
    const file = join(directory, "admission.yaml");
    writeFileSync(
      file,
      [
        "apiVersion: apiserver.config.orch.io/v1",
        "kind: AdmissionConfiguration",
        "plugins:",
        "- name: PodSecurity",
        "  configuration:",
        "    apiVersion: pod-security.admission.config.orch.io/v1",
        "    kind: PodSecurityConfiguration",
        "    exemptions: {namespaces: [exempt-ns]}",
        "",
      ].join("\n"),
    );
    server = await inProcessServer({ admission: { configFile: file } });
  });
  after(async () => {
    await server.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it("a labelled exempt namespace is warned that its policy is ignored, and its pods pass", async () => {
    const created = await server.call("POST", "/api/v1/namespaces", {
      body: {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "exempt-ns", labels: { [`${PREFIX}enforce`]: "restricted", [`${PREFIX}audit`]: "privileged" } },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(warningsOf(created), ['namespace "exempt-ns" is exempt from Pod Security, and the policy (enforce=restricted:latest) will be ignored']);
    const pod = await server.call("POST", "/api/v1/namespaces/exempt-ns/pods", {
      body: { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: hostSpec },
    });
    assert.equal(pod.status, 201, pod.text);
    const plain = await server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "not-exempt" } } });
    assert.deepEqual(warningsOf(plain), []);
  });

  it("exemptNamespaceWarning: nothing for a fully privileged policy or one equal to the defaults", () => {
    const labels = { [`${PREFIX}warn`]: "privileged" };
    assert.equal(exemptNamespaceWarning("x", PRIVILEGED, labels, { prefix: PREFIX, defaults: PRIVILEGED }), undefined);
    const baseline: Policies = { ...PRIVILEGED, warn: { level: "baseline", version: "v1.29" } };
    assert.equal(exemptNamespaceWarning("x", baseline, {}, { prefix: PREFIX, defaults: baseline }), undefined);
    assert.equal(
      exemptNamespaceWarning("x", baseline, { [`${PREFIX}warn-version`]: "v1.29" }, { prefix: PREFIX, defaults: PRIVILEGED }),
      'namespace "x" is exempt from Pod Security, and the policy (warn=baseline:v1.29) will be ignored',
    );
  });
});
