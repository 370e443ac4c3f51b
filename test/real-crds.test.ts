// Real operators' CustomResourceDefinitions, their documented sample objects and a real admission
// policy (test/fixtures/real-crds/, each with its source), applied with the oldest and the newest
// kubectl under `--compat kubernetes`: every definition is accepted and established, every sample
// stored with the schema's defaults, and the CEL rules refuse what they were written to refuse.
// kube-apiserver accepts all of these; refusing one is the failure this file guards against.
import assert from "node:assert/strict";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { KUBERNETES_PROFILE } from "../src/api/profile.js";
import { kubectlPairFor, ok, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";

const FIXTURES = fileURLToPath(new URL("../../test/fixtures/real-crds/", import.meta.url));
const fixture = (name: string): string => join(FIXTURES, name);

const DEFINITIONS = [
  { file: "karpenter-nodepools.yaml", name: "nodepools.karpenter.sh" },
  { file: "gateway-api-listenersets.yaml", name: "listenersets.gateway.networking.k8s.io" },
  { file: "gateway-api-gatewayclasses.yaml", name: "gatewayclasses.gateway.networking.k8s.io" },
  { file: "crossplane-usages.yaml", name: "usages.protection.crossplane.io" },
];
const SAMPLES = [
  "karpenter-nodepools-samples.yaml",
  "gateway-api-listenersets-samples.yaml",
  "gateway-api-gatewayclasses-samples.yaml",
  "crossplane-usages-samples.yaml",
];

type Json = Record<string, unknown>;

describe("real operators' CRDs, samples and policies (kubernetes profile)", () => {
  const server = useTestServer({ profile: KUBERNETES_PROFILE });
  let oldest: Kubectl;
  let newest: Kubectl;
  let scratch: (name: string, text: string) => string;
  before(() => {
    ({ oldest, newest, scratch } = kubectlPairFor(server().server.kubeconfigPath, server().dataDir));
  });

  it("kubectl (oldest): apply creates every definition and each becomes Established", async () => {
    for (const { file } of DEFINITIONS) ok(await oldest(["apply", "-f", fixture(file)]));
    for (const { name } of DEFINITIONS) ok(await oldest(["wait", "--for", "condition=Established", `crd/${name}`, "--timeout", "20s"]));
  });

  it("kubectl (newest): server-side apply of the same definitions is accepted", async () => {
    for (const { file } of DEFINITIONS) assert.match(ok(await newest(["apply", "--server-side", "-f", fixture(file)])), /serverside-applied/);
  });

  it("Gateway API's safe-upgrades policy (global matches()) is created and judges CRD writes", async () => {
    ok(await newest(["apply", "-f", fixture("gateway-api-vap-safe-upgrades.yaml")]));
    const old = (version: string): string =>
      scratch(
        `old-${version}.json`,
        JSON.stringify({
          apiVersion: "apiextensions.k8s.io/v1",
          kind: "CustomResourceDefinition",
          metadata: {
            name: "olds.gateway.networking.k8s.io",
            annotations: { "api-approved.kubernetes.io": "unapproved, test", "gateway.networking.k8s.io/bundle-version": version },
          },
          spec: {
            group: "gateway.networking.k8s.io",
            scope: "Namespaced",
            names: { plural: "olds", singular: "old", kind: "Old", listKind: "OldList" },
            versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } } }],
          },
        }),
      );
    let refused: KubectlResult | undefined;
    // the policy takes effect once the server has seen it (kube's is eventually consistent too)
    for (let attempt = 0; attempt < 50; attempt++) {
      refused = await newest(["create", "--dry-run=server", "-f", old("v1.2.0")]);
      if (refused.code !== 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.match(refused?.stderr ?? "", /denied request: Installing CRDs with version before v1\.5\.0 is prohibited by default/);
    ok(await newest(["create", "--dry-run=server", "-f", old("v1.6.0-rc.1")]));
  });

  it("Gatekeeper's webhook configurations (controller-gen output) pass server dry runs with kube's defaults", async () => {
    // kubectl prints each created object on its own: one jsonpath line per configuration
    const shape =
      '{.kind} {.webhooks[*].timeoutSeconds} {.webhooks[0].reinvocationPolicy} {.webhooks[0].clientConfig.service.port} {.webhooks[0].namespaceSelector}{.webhooks[0].objectSelector}{"\\n"}';
    const created = ok(await oldest(["create", "--dry-run=server", "-f", fixture("gatekeeper-webhooks.yaml"), "-o", `jsonpath=${shape}`]));
    assert.deepEqual(created.trim().split("\n"), ["MutatingWebhookConfiguration 10 Never 443 {}{}", "ValidatingWebhookConfiguration 10 10  443 {}{}"]);
    assert.match(
      ok(await newest(["apply", "--server-side", "--dry-run=server", "-f", fixture("gatekeeper-webhooks.yaml")])),
      /serverside-applied \(server dry run\)/,
    );
  });

  it("kubectl (newest): the documented samples are stored with the schemas' defaults", async () => {
    for (const file of SAMPLES) ok(await newest(["apply", "-f", fixture(file)]));
    const spot = JSON.parse(ok(await newest(["get", "nodepool", "spot", "-o", "json"]))) as Json;
    assert.deepEqual((spot["spec"] as Json)["disruption"], { budgets: [{ nodes: "10%" }], consolidationPolicy: "WhenUnderutilized", expireAfter: "720h" });
    const listeners = JSON.parse(ok(await newest(["get", "listenerset", "first-workload-listeners", "-o", "json"]))) as Json;
    const listener = ((listeners["spec"] as Json)["listeners"] as Json[])[0];
    assert.deepEqual(listener?.["allowedRoutes"], { namespaces: { from: "Same" } });
    const conditions = ((listeners["status"] as Json)["conditions"] as Json[]).map(
      (condition) => `${String(condition["type"])}=${String(condition["status"])}`,
    );
    assert.deepEqual(conditions, ["Accepted=Unknown", "Programmed=Unknown"]);
    const gatewayClass = JSON.parse(ok(await newest(["get", "gatewayclass", "example", "-o", "json"]))) as Json;
    assert.equal((((gatewayClass["status"] as Json)["conditions"] as Json[])[0] as Json)["reason"], "Pending");
  });

  it("kubectl (oldest): printer columns as declared (no Age added) and explain reads the descriptions", async () => {
    const usages = ok(await oldest(["get", "usages"]));
    assert.match(usages, /^NAME\s+DETAILS\s+READY\s+AGE\n/);
    assert.match(usages, /\nprotect-production-database\s+production database\s+\S+\n$/);
    assert.match(ok(await oldest(["get", "lset"])), /^NAME\s+ACCEPTED\s+PROGRAMMED\s+AGE\nfirst-workload-listeners\s+Unknown\s+Unknown\s+/);
    assert.match(ok(await oldest(["explain", "nodepool.spec.disruption"])), /Budgets is a list of Budgets\./);
  });

  it("the CEL rules refuse what they were written to refuse, with kube's field paths", async () => {
    const pool = scratch(
      "bad-pool.yaml",
      `apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: bad}
spec:
  disruption: {consolidationPolicy: WhenEmpty}
  template:
    metadata: {labels: {karpenter.sh/nodepool: x, node.kubernetes.io/role: ok}}
    spec:
      kubelet: {kubeReserved: {cpu: "-1"}}
      requirements:
      - {key: kubernetes.io/hostname, operator: In, values: [a]}
      - {key: example.com/generation, operator: Gt, values: ["-1"]}
      nodeClassRef: {name: default}
`,
    );
    const refused = await newest(["create", "-f", pool]);
    assert.notEqual(refused.code, 0);
    for (const expected of [
      'spec.disruption: Invalid value: "object": consolidateAfter must be specified with consolidationPolicy=WhenEmpty',
      'spec.template.metadata.labels: Invalid value: "object": label "karpenter.sh/nodepool" is restricted',
      'spec.template.spec.kubelet.kubeReserved: Invalid value: "object": kubeReserved value cannot be a negative resource quantity',
      `spec.template.spec.requirements: Invalid value: "array": requirements operator 'Gt' or 'Lt' must have a single positive integer value`,
      'spec.template.spec.requirements[0].key: Invalid value: "string": label "kubernetes.io/hostname" is restricted',
    ])
      assert.ok(refused.stderr.includes(expected), `${expected}\n---\n${refused.stderr}`);
    const listeners = scratch(
      "bad-listeners.yaml",
      `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: bad}
spec:
  parentRef: {name: parent-gateway}
  listeners:
  - {name: a, protocol: HTTP, port: 80, tls: {mode: Passthrough}}
  - {name: b, protocol: HTTP, port: 80}
`,
    );
    const duplicate = await newest(["create", "-f", listeners]);
    assert.match(duplicate.stderr, /spec\.listeners: Invalid value: "array": tls must not be specified for protocols \['HTTP', 'TCP', 'UDP'\]/);
    assert.match(duplicate.stderr, /spec\.listeners: Invalid value: "array": Combination of port, protocol and hostname must be unique for each listener/);
    const immutable = await newest(["patch", "gatewayclass", "example", "--type=merge", "-p", '{"spec":{"controllerName":"example.com/other"}}']);
    assert.match(immutable.stderr, /spec\.controllerName: Invalid value: "string": Value is immutable/);
    const usage = scratch(
      "bad-usage.json",
      JSON.stringify({ apiVersion: "protection.crossplane.io/v1beta1", kind: "Usage", metadata: { name: "x" }, spec: { of: { kind: "A" } } }),
    );
    const unbound = await newest(["create", "-f", usage]);
    assert.match(unbound.stderr, /spec: Invalid value: "object": either "spec\.by" or "spec\.reason" must be specified\./);
    assert.match(unbound.stderr, /spec\.of: Invalid value: "object": either a resource reference or a resource selector should be set\./);
  });
});
