import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiGroup, KUBERNETES_PROFILE, ORCH_PROFILE } from "../profile.js";
import { builtinCatalogue, SchemaCatalogue } from "../schema/catalogue.js";
import { BUILTIN_KINDS, EXCHANGED_KINDS, builtinDefinitions } from "../schema/kinds/index.js";
import type { SchemaNode } from "../schema/node.js";
import { builtinProtoMessages } from "./fields/index.js";
import { numberFields, type ProtoField, type ProtoShape } from "./numbering.js";

/** The field at a dotted path of a shape (`spec.ports.appProtocol`: list elements are stepped into). */
function fieldAt(shape: ProtoShape | undefined, path: string): ProtoField {
  let current = shape;
  let field: ProtoField | undefined;
  for (const name of path.split(".")) {
    field = current?.fields.get(name);
    if (field === undefined) throw new Error(`no field at ${name} of ${path}`);
    current = field.shape;
  }
  if (field === undefined) throw new Error(`empty path ${path}`);
  return field;
}

describe("protobuf numbers of the served and exchanged kinds", () => {
  const messages = builtinProtoMessages();
  for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
    it(`cover every property of every kind (${profile.name} profile)`, () => {
      const definitions = builtinDefinitions(profile.openApiExtensionPrefixes);
      const withoutMessage: string[] = [];
      const unresolved: string[] = [];
      for (const kind of [...BUILTIN_KINDS, ...EXCHANGED_KINDS]) {
        const name = `${kind.group === "" ? "" : `${kind.group}/`}${kind.version} ${kind.kind}`;
        const root = definitions.get(kind.id);
        if (root === undefined || !messages.has(kind.id)) {
          withoutMessage.push(`${name} (${kind.id})`);
          continue;
        }
        const numbering = numberFields(root, kind.id, { messages, definitions, extensionPrefixes: profile.openApiExtensionPrefixes });
        unresolved.push(...numbering.unresolved.map((path) => `${name}: ${path}`));
      }
      assert.deepEqual(withoutMessage, [], "kinds without a root message");
      assert.deepEqual(unresolved, [], "properties without a field");
    });
  }

  const catalogue = builtinCatalogue(ORCH_PROFILE);
  const pod = catalogue.protoShape("", "v1", "Pod");

  const known: readonly (readonly [string, ProtoShape | undefined, string, number, (readonly number[])?])[] = [
    ["Pod", pod, "metadata", 1],
    ["Pod", pod, "spec", 2],
    ["Pod", pod, "status", 3],
    ["Pod", pod, "spec.containers.name", 1],
    ["Pod", pod, "spec.containers.image", 2],
    ["Pod", pod, "spec.containers.command", 3],
    ["Pod", pod, "spec.containers.livenessProbe.httpGet", 2, [1]],
    ["Pod", pod, "spec.initContainers.env.valueFrom.secretKeyRef.name", 1, [1]],
    ["Pod", pod, "spec.ephemeralContainers.image", 2, [1]],
    ["Pod", pod, "spec.ephemeralContainers.targetContainerName", 2],
    ["Pod", pod, "spec.volumes.name", 1],
    ["Pod", pod, "spec.volumes.hostPath", 1, [2]],
    ["Pod", pod, "spec.volumes.hostPath.path", 1],
    ["Pod", pod, "spec.volumes.projected.sources.secret.name", 1, [1]],
    ["Pod", pod, "status.hostIPs.ip", 1],
    ["Pod", pod, "metadata.name", 1],
    ["Pod", pod, "metadata.generateName", 2],
    ["Pod", pod, "metadata.namespace", 3],
    ["Pod", pod, "metadata.uid", 5],
    ["Pod", pod, "metadata.resourceVersion", 6],
    ["Pod", pod, "metadata.labels", 11],
    ["Pod", pod, "metadata.managedFields", 17],
    ["Service", catalogue.protoShape("", "v1", "Service"), "spec.ports.appProtocol", 6],
    ["PersistentVolume", catalogue.protoShape("", "v1", "PersistentVolume"), "spec.hostPath", 3, [2]],
    ["Deployment", catalogue.protoShape("apps", "v1", "Deployment"), "spec.template.spec.containers.name", 1],
    ["PodList", catalogue.protoShape("", "v1", "PodList"), "items.spec.containers.image", 2],
  ];
  for (const [kind, shape, path, number, embeddedIn] of known) {
    it(`gives ${kind} ${path} number ${embeddedIn === undefined ? "" : `${embeddedIn.join("/")}/`}${number}`, () => {
      const field = fieldAt(shape, path);
      assert.equal(field.number, number);
      assert.deepEqual(field.embeddedIn, embeddedIn);
    });
  }

  it("leaves apiVersion and kind out of a kind's fields and stops at leaf messages", () => {
    assert.equal(pod?.fields.has("apiVersion"), false);
    assert.equal(pod?.fields.has("kind"), false);
    assert.equal(fieldAt(pod, "metadata.creationTimestamp").leaf, "meta.v1.Time");
    assert.equal(fieldAt(pod, "spec.containers.resources.limits").leaf, "resource.Quantity");
    assert.equal(fieldAt(catalogue.protoShape("", "v1", "PodList"), "metadata").shape?.message, "meta.v1.ListMeta");
  });

  it("gives CustomResourceDefinition schemas their numbers under either profile's extension spelling", () => {
    for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
      const crd = builtinCatalogue(profile).protoShape(apiGroup(profile, "apiextensions"), "v1", "CustomResourceDefinition");
      const schema = fieldAt(crd, "spec.versions.schema.openAPIV3Schema").shape;
      assert.equal(schema?.fields.get("$ref")?.number, 3);
      for (const prefix of profile.openApiExtensionPrefixes) {
        assert.equal(schema?.fields.get(`${prefix}preserve-unknown-fields`)?.number, 38);
        assert.equal(schema?.fields.get(`${prefix}validations`)?.shape?.fields.get("rule")?.number, 1);
      }
      assert.equal(schema?.fields.get("properties")?.shape, schema);
    }
  });

  it("answers undefined for a kind it does not serve, and the same shape each time", () => {
    assert.equal(catalogue.protoShape("", "v1", "Nothing"), undefined);
    assert.equal(catalogue.protoShape("", "v1", "Pod"), pod);
  });

  it("numbers by name, not by the order of a schema's properties", () => {
    const reversed = (node: SchemaNode): SchemaNode => ({
      ...node,
      ...(node.properties === undefined
        ? {}
        : {
            properties: Object.fromEntries(
              Object.entries(node.properties)
                .reverse()
                .map(([name, child]) => [name, reversed(child)]),
            ),
          }),
      ...(node.items === undefined ? {} : { items: reversed(node.items) }),
      ...(node.additionalProperties === undefined ? {} : { additionalProperties: reversed(node.additionalProperties) }),
    });
    const definitions = new Map([...builtinDefinitions(ORCH_PROFILE.openApiExtensionPrefixes)].map(([id, node]) => [id, reversed(node)]));
    const shuffled = new SchemaCatalogue(definitions, [{ group: "", version: "v1", kind: "Pod", id: "core.v1.Pod" }], {
      extensionPrefixes: ORCH_PROFILE.openApiExtensionPrefixes,
    });
    const numbers = (shape: ProtoShape | undefined, prefix: string, depth: number): string[] =>
      depth === 0 || shape === undefined
        ? []
        : [...shape.fields]
            .map(([name, field]): [string, ProtoField] => [name, field])
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .flatMap(([name, field]) => [
              `${prefix}${name}=${[...(field.embeddedIn ?? []), field.number].join("/")}`,
              ...numbers(field.shape, `${prefix}${name}.`, depth - 1),
            ]);
    const expected = numbers(pod, "", 6);
    assert.ok(expected.length > 500, `only ${expected.length} fields`);
    assert.deepEqual(numbers(shuffled.protoShape("", "v1", "Pod"), "", 6), expected);
  });
});
