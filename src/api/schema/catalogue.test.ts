import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiGroup, KUBERNETES_PROFILE, ORCH_PROFILE, type Profile } from "../profile.js";
import { builtinSchemas } from "./builtin.js";
import { builtinCatalogue, type SchemaCatalogue } from "./catalogue.js";
import { fieldTypeOf, type FieldType } from "./field-type.js";
import type { SchemaNode } from "./node.js";
import { definitionClosure, publicName, renderDefinitions, renderNode } from "./render.js";

/** The node at a dotted path under a kind (list items are stepped into). */
function nodeAt(catalogue: SchemaCatalogue, id: string, path: string): SchemaNode {
  let node = catalogue.resolve({ ref: id });
  for (const name of path.split(".")) {
    if (node.items !== undefined) node = catalogue.resolve(node.items);
    const next = node.properties?.[name];
    if (next === undefined) throw new Error(`${id}: no ${name} in ${path}`);
    node = catalogue.resolve(next);
  }
  return node;
}

function markers(node: SchemaNode): string {
  const parts: string[] = [];
  if (node.listType !== undefined) parts.push(`list-type=${node.listType}`);
  if (node.listMapKeys !== undefined) parts.push(`keys=${node.listMapKeys.join("+")}`);
  if (node.patchStrategy !== undefined) parts.push(`patch=${node.patchStrategy}`);
  if (node.patchMergeKey !== undefined) parts.push(`merge-key=${node.patchMergeKey}`);
  if (node.mapType !== undefined) parts.push(`map-type=${node.mapType}`);
  return parts.join(" ");
}

describe("builtinCatalogue(): the schema of every kind", () => {
  for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
    const catalogue = builtinCatalogue(profile);
    it(`resolves every reference of every definition (${profile.name} profile)`, () => {
      const dangling: string[] = [];
      const visit = (node: SchemaNode, where: string): void => {
        if (node.ref !== undefined && catalogue.node(node.ref) === undefined) dangling.push(`${where} → ${node.ref}`);
        if (node.items !== undefined) visit(node.items, `${where}[]`);
        if (node.additionalProperties !== undefined) visit(node.additionalProperties, `${where}{}`);
        for (const [name, property] of Object.entries(node.properties ?? {})) visit(property, `${where}.${name}`);
      };
      for (const [id, node] of catalogue.definitions) visit(node, id);
      assert.deepEqual(dangling, []);
    });

    it(`lists only properties it declares as required (${profile.name} profile)`, () => {
      const wrong: string[] = [];
      for (const [id, node] of catalogue.definitions)
        for (const name of node.required ?? []) if (node.properties?.[name] === undefined) wrong.push(`${id}.${name}`);
      assert.deepEqual(wrong, []);
    });
  }

  it("finds kinds by the profile's group names, and a List kind for each", () => {
    const orch = builtinCatalogue(ORCH_PROFILE);
    const kube = builtinCatalogue(KUBERNETES_PROFILE);
    assert.equal(orch.idOf(apiGroup(ORCH_PROFILE, "networking"), "v1", "Ingress"), "networking.v1.Ingress");
    assert.equal(kube.idOf(apiGroup(KUBERNETES_PROFILE, "networking"), "v1", "Ingress"), "networking.v1.Ingress");
    assert.equal(orch.idOf(apiGroup(KUBERNETES_PROFILE, "networking"), "v1", "Ingress"), undefined);
    assert.equal(orch.idOf("", "v1", "PodList"), "core.v1.PodList");
    assert.deepEqual(orch.kindsOf("core.v1.PodList"), [{ group: "", version: "v1", kind: "PodList" }]);
    assert.deepEqual(orch.kindsOf("batch.v1beta1.CronJob"), [{ group: "batch", version: "v1beta1", kind: "CronJob" }]);
    assert.deepEqual(orch.kindsOf("core.v1.Container"), []);
  });

  const catalogue = builtinCatalogue(ORCH_PROFILE);
  const cases: { kind: string; path: string; expected: string }[] = [
    { kind: "core.v1.Pod", path: "spec.containers", expected: "list-type=map keys=name patch=merge merge-key=name" },
    { kind: "core.v1.Pod", path: "spec.containers.ports", expected: "list-type=map keys=containerPort+protocol patch=merge merge-key=containerPort" },
    { kind: "core.v1.Pod", path: "spec.containers.env", expected: "patch=merge merge-key=name" },
    { kind: "core.v1.Pod", path: "spec.containers.volumeMounts", expected: "patch=merge merge-key=mountPath" },
    { kind: "core.v1.Pod", path: "spec.volumes", expected: "list-type=map keys=name patch=merge,retainKeys merge-key=name" },
    { kind: "core.v1.Pod", path: "spec.tolerations", expected: "list-type=atomic" },
    { kind: "core.v1.Pod", path: "spec.nodeSelector", expected: "map-type=atomic" },
    {
      kind: "core.v1.Pod",
      path: "spec.topologySpreadConstraints",
      expected: "list-type=map keys=topologyKey+whenUnsatisfiable patch=merge merge-key=topologyKey",
    },
    { kind: "core.v1.Pod", path: "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution", expected: "map-type=atomic" },
    { kind: "core.v1.Pod", path: "metadata.finalizers", expected: "list-type=set patch=merge" },
    { kind: "core.v1.Pod", path: "metadata.ownerReferences", expected: "list-type=map keys=uid patch=merge merge-key=uid" },
    { kind: "core.v1.Pod", path: "status.conditions", expected: "list-type=map keys=type patch=merge merge-key=type" },
    { kind: "core.v1.Service", path: "spec.ports", expected: "list-type=map keys=port+protocol patch=merge merge-key=port" },
    { kind: "core.v1.Service", path: "spec.selector", expected: "map-type=atomic" },
    { kind: "core.v1.Node", path: "spec.podCIDRs", expected: "list-type=set patch=merge" },
    { kind: "apps.v1.Deployment", path: "spec.selector", expected: "map-type=atomic" },
    { kind: "apps.v1.Deployment", path: "spec.strategy", expected: "patch=retainKeys" },
    { kind: "apps.v1.Deployment", path: "spec.template.spec.containers", expected: "list-type=map keys=name patch=merge merge-key=name" },
    { kind: "apps.v1.StatefulSet", path: "spec.volumeClaimTemplates", expected: "list-type=atomic" },
    { kind: "policy.v1.PodDisruptionBudget", path: "spec.selector", expected: "patch=replace map-type=atomic" },
    { kind: "admissionregistration.v1.ValidatingWebhookConfiguration", path: "webhooks", expected: "list-type=map keys=name patch=merge merge-key=name" },
    { kind: "storage.v1.CSINode", path: "spec.drivers", expected: "list-type=map keys=name patch=merge merge-key=name" },
  ];
  for (const testCase of cases) {
    it(`carries kube's markers: ${testCase.kind} ${testCase.path}`, () =>
      assert.equal(markers(nodeAt(catalogue, testCase.kind, testCase.path)), testCase.expected));
  }

  const requiredCases: { kind: string; path: string; required: string[] }[] = [
    { kind: "core.v1.Pod", path: "spec", required: ["containers"] },
    { kind: "core.v1.Pod", path: "spec.containers", required: ["name"] },
    { kind: "networking.v1.Ingress", path: "spec.rules.http.paths", required: ["backend", "pathType"] },
    { kind: "certificates.v1.CertificateSigningRequest", path: "spec", required: ["request", "signerName", "usages"] },
    {
      kind: "admissionregistration.v1.MutatingWebhookConfiguration",
      path: "webhooks",
      required: ["admissionReviewVersions", "clientConfig", "name", "sideEffects"],
    },
    { kind: "admissionregistration.v1beta1.MutatingWebhookConfiguration", path: "webhooks", required: ["clientConfig", "name"] },
    { kind: "apiextensions.v1.CustomResourceDefinition", path: "spec", required: ["group", "names", "scope", "versions"] },
  ];
  for (const testCase of requiredCases) {
    it(`requires what kube requires: ${testCase.kind} ${testCase.path}`, () => {
      const node = nodeAt(catalogue, testCase.kind, testCase.path);
      assert.deepEqual([...(catalogue.resolve(node.items ?? node).required ?? [])].sort(), testCase.required);
    });
  }

  it("spells JSONSchemaProps' extension properties with each of the profile's prefixes", () => {
    const names = (profile: Profile): string[] =>
      Object.keys(builtinCatalogue(profile).node("apiextensions.v1.JSONSchemaProps")?.properties ?? {}).filter((name) =>
        name.endsWith("preserve-unknown-fields"),
      );
    assert.deepEqual(
      names(ORCH_PROFILE),
      ORCH_PROFILE.openApiExtensionPrefixes.map((prefix) => `${prefix}preserve-unknown-fields`),
    );
    assert.deepEqual(
      names(KUBERNETES_PROFILE),
      KUBERNETES_PROFILE.openApiExtensionPrefixes.map((prefix) => `${prefix}preserve-unknown-fields`),
    );
  });
});

describe("render: catalogue definitions as OpenAPI", () => {
  const profile = ORCH_PROFILE;
  const catalogue = builtinCatalogue(profile);
  const prefixes = profile.openApiExtensionPrefixes;

  it("names definitions after kube's packages under the profile's domain", () => {
    const domain = profile.apiDomain.split(".").reverse().join(".");
    assert.equal(publicName(profile, "core.v1.Pod"), `${domain}.api.core.v1.Pod`);
    assert.equal(publicName(profile, "meta.v1.ObjectMeta"), `${domain}.apimachinery.pkg.apis.meta.v1.ObjectMeta`);
    assert.equal(publicName(profile, "intstr.IntOrString"), `${domain}.apimachinery.pkg.util.intstr.IntOrString`);
    assert.equal(publicName(profile, "resource.Quantity"), `${domain}.apimachinery.pkg.api.resource.Quantity`);
    assert.equal(publicName(profile, "apiextensions.v1.JSONSchemaProps"), `${domain}.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps`);
    assert.notEqual(publicName(KUBERNETES_PROFILE, "core.v1.Pod"), publicName(ORCH_PROFILE, "core.v1.Pod"));
  });

  const renderCases: { name: string; node: SchemaNode; target: "v3" | "v2"; expected: Record<string, unknown> }[] = [
    {
      name: "a bare reference (v3)",
      node: { ref: "core.v1.Container" },
      target: "v3",
      expected: { $ref: `#/components/schemas/${publicName(profile, "core.v1.Container")}` },
    },
    {
      name: "a bare reference (v2)",
      node: { ref: "core.v1.Container" },
      target: "v2",
      expected: { $ref: `#/definitions/${publicName(profile, "core.v1.Container")}` },
    },
    {
      name: "a reference with a default is wrapped in allOf (v3)",
      node: { ref: "core.v1.PodSecurityContext", default: {} },
      target: "v3",
      expected: { allOf: [{ $ref: `#/components/schemas/${publicName(profile, "core.v1.PodSecurityContext")}` }], default: {} },
    },
    {
      name: "a reference with markers keeps them beside $ref (v2)",
      node: { ref: "apps.v1.DeploymentStrategy", patchStrategy: "retainKeys" },
      target: "v2",
      expected: {
        $ref: `#/definitions/${publicName(profile, "apps.v1.DeploymentStrategy")}`,
        ...Object.fromEntries(prefixes.map((prefix) => [`${prefix}patch-strategy`, "retainKeys"])),
      },
    },
    {
      name: "a list map with its keys and patch markers under every prefix",
      node: { type: "array", items: { type: "string" }, listType: "map", listMapKeys: ["a", "b"], patchStrategy: "merge", patchMergeKey: "a" },
      target: "v3",
      expected: {
        type: "array",
        items: { type: "string" },
        ...Object.fromEntries(
          prefixes.flatMap((prefix) => [
            [`${prefix}list-type`, "map"],
            [`${prefix}list-map-keys`, ["a", "b"]],
            [`${prefix}patch-merge-key`, "a"],
            [`${prefix}patch-strategy`, "merge"],
          ]),
        ),
      },
    },
    {
      name: "int-or-string: oneOf in v3",
      node: { intOrString: true },
      target: "v3",
      expected: {
        oneOf: [{ type: "integer" }, { type: "string" }],
        format: "int-or-string",
        ...Object.fromEntries(prefixes.map((prefix) => [`${prefix}int-or-string`, true])),
      },
    },
    {
      name: "int-or-string: a string format in v2",
      node: { intOrString: true },
      target: "v2",
      expected: { type: "string", format: "int-or-string", ...Object.fromEntries(prefixes.map((prefix) => [`${prefix}int-or-string`, true])) },
    },
    { name: "quantity: string or number in v3", node: { format: "quantity" }, target: "v3", expected: { oneOf: [{ type: "string" }, { type: "number" }] } },
    {
      name: "an enum with a default",
      node: { type: "string", enum: ["A", "B"], default: "A", description: "d" },
      target: "v2",
      expected: { type: "string", description: "d", enum: ["A", "B"], default: "A" },
    },
  ];
  for (const testCase of renderCases) {
    it(`renders ${testCase.name}`, () =>
      assert.deepEqual(renderNode(testCase.node, { profile, target: testCase.target, descriptions: true }), testCase.expected));
  }

  it("leaves descriptions out when asked (server-side apply's types)", () => {
    const rendered = renderNode({ ref: "core.v1.PodSpec", description: "the spec" }, { profile, target: "v3", descriptions: false });
    assert.deepEqual(rendered, { $ref: `#/components/schemas/${publicName(profile, "core.v1.PodSpec")}` });
  });

  it("tags kinds with their group-version-kind list and includes every definition they reach", () => {
    const ids = definitionClosure(catalogue, ["apps.v1.Deployment"]);
    for (const id of [
      "apps.v1.Deployment",
      "apps.v1.DeploymentSpec",
      "core.v1.PodSpec",
      "core.v1.Container",
      "meta.v1.ObjectMeta",
      "meta.v1.LabelSelector",
      "intstr.IntOrString",
      "core.v1.Volume",
    ])
      assert.ok(ids.includes(id), id);
    assert.ok(!ids.includes("batch.v1.Job"));
    const rendered = renderDefinitions(catalogue, ids, { profile, target: "v3", descriptions: true });
    const deployment = rendered[publicName(profile, "apps.v1.Deployment")] as Record<string, unknown>;
    for (const prefix of prefixes) assert.deepEqual(deployment[`${prefix}group-version-kind`], [{ group: "apps", kind: "Deployment", version: "v1" }]);
    assert.equal((rendered[publicName(profile, "core.v1.Container")] as Record<string, unknown>)[`${prefixes[0] ?? ""}group-version-kind`], undefined);
  });
});

describe("builtinSchemas(): apply's types derived from the catalogue", () => {
  const profile = ORCH_PROFILE;
  const catalogue = builtinCatalogue(profile);
  const schemas = builtinSchemas(profile);
  const at = (type: FieldType, path: string): FieldType => {
    let current = type;
    for (const name of path.split(".")) {
      if (current.kind === "list") current = current.items;
      if (current.kind !== "map") throw new Error(`not a map at ${name}`);
      current = fieldTypeOf(current, name);
    }
    return current;
  };

  it("types every kind of the catalogue from its own schema (named fields, not the schema-less default)", () => {
    const untyped: string[] = [];
    for (const id of catalogue.definitions.keys()) {
      for (const gvk of catalogue.kindsOf(id)) {
        const type = schemas.schemaFor(gvk.group, gvk.version, gvk.kind);
        if (type.kind !== "map" || !type.fields.has("apiVersion") || !type.fields.has("metadata")) untyped.push(`${gvk.group}/${gvk.version}/${gvk.kind}`);
      }
    }
    assert.deepEqual(untyped, []);
  });

  const cases: { group: string; version: string; kind: string; path: string; expected: string }[] = [
    { group: apiGroup(profile, "admissionregistration"), version: "v1", kind: "MutatingWebhookConfiguration", path: "webhooks", expected: "list map name" },
    { group: apiGroup(profile, "networking"), version: "v1", kind: "Ingress", path: "spec.rules", expected: "list atomic " },
    { group: apiGroup(profile, "storage"), version: "v1", kind: "CSINode", path: "spec.drivers", expected: "list map name" },
    { group: "batch", version: "v1", kind: "CronJob", path: "spec.jobTemplate.spec.template.spec.containers", expected: "list map name" },
    { group: "", version: "v1", kind: "Pod", path: "spec.containers.args", expected: "list atomic " },
  ];
  for (const testCase of cases) {
    it(`${testCase.kind} ${testCase.path}: ${testCase.expected}`, () => {
      const type = at(schemas.schemaFor(testCase.group, testCase.version, testCase.kind), testCase.path);
      assert.equal(type.kind === "list" ? `list ${type.listType} ${type.keys.join("+")}` : type.kind, testCase.expected);
    });
  }
});
