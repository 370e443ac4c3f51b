import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { atomic, mapOf, obj, ref, str, stringMap, time, type SchemaNode } from "../schema/node.js";
import { parseMessages } from "./messages.js";
import { numberFields, type NumberingOptions, type ProtoShape } from "./numbering.js";

const MESSAGES = parseMessages([
  {
    "t.v1.Thing": "metadata=1:t.v1.Meta spec=2:t.v1.Spec",
    "t.v1.Meta": "name=1 labels=11 created=8:meta.v1.Time",
    "t.v1.Spec": "volumes=3:t.v1.Volume byName=4:t.v1.Port items=5:t.v1.Item",
    "t.v1.Volume": "name=1 volumeSource=2:t.v1.VolumeSource",
    "t.v1.VolumeSource": "hostPath=1:t.v1.HostPath common=9:t.v1.Common",
    "t.v1.Common": "path=1",
    "t.v1.HostPath": "path=1 type=2",
    "t.v1.Port": "port=1",
    "t.v1.Item": "items=1",
    "t.v1.Schema": "ref=3 schema=2 title=7 properties=29:t.v1.Schema xProductListType=42 xProductListMapKeys=41",
  },
]);

const DEFINITIONS = new Map<string, SchemaNode>([
  ["t.v1.Meta", obj({ created: time(), labels: stringMap(), name: str() })],
  ["t.v1.Volume", obj({ hostPath: obj({ path: str(), type: str() }), name: str(), path: str() })],
]);

const THING = obj({
  apiVersion: str(),
  kind: str(),
  metadata: ref("t.v1.Meta"),
  spec: obj({
    byName: mapOf(obj({ port: str() })),
    items: atomic(atomic(str())),
    volumes: atomic(ref("t.v1.Volume")),
  }),
});

const OPTIONS: NumberingOptions = { messages: MESSAGES, definitions: DEFINITIONS, extensionPrefixes: ["x-a-", "x-b-"] };

/** Every field as `path=number[/embedded…][:shape or leaf]`, children after their parent, cycles cut. */
function flatten(shape: ProtoShape, prefix = "", seen = new Set<ProtoShape>()): string[] {
  if (seen.has(shape)) return [`${prefix}…`];
  seen.add(shape);
  return [...shape.fields].flatMap(([name, field]) => {
    const path = `${prefix}${name}`;
    const line = `${path}=${[...(field.embeddedIn ?? []), field.number].join("/")}${field.leaf === undefined ? "" : `:${field.leaf}`}`;
    return [line, ...(field.shape === undefined ? [] : flatten(field.shape, `${path}.`, seen))];
  });
}

describe("numberFields()", () => {
  it("numbers every property by name, through references, lists and maps, and leaves apiVersion and kind to the envelope", () => {
    const { shape, unresolved } = numberFields(THING, "t.v1.Thing", OPTIONS);
    assert.deepEqual(unresolved, []);
    assert.equal(shape.message, "t.v1.Thing");
    assert.deepEqual(flatten(shape), [
      "metadata=1",
      "metadata.created=8:meta.v1.Time",
      "metadata.labels=11",
      "metadata.name=1",
      "spec=2",
      "spec.byName=4",
      "spec.byName.port=1",
      "spec.items=5:t.v1.Item",
      "spec.volumes=3",
      "spec.volumes.hostPath=2/1",
      "spec.volumes.hostPath.path=1",
      "spec.volumes.hostPath.type=2",
      "spec.volumes.name=1",
      "spec.volumes.path=2/9/1",
    ]);
  });

  it("gives the same numbers whatever the order of the properties", () => {
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
    const definitions = new Map([...DEFINITIONS].map(([id, node]) => [id, reversed(node)]));
    const shuffled = numberFields(reversed(THING), "t.v1.Thing", { ...OPTIONS, definitions });
    assert.deepEqual(flatten(shuffled.shape), flatten(numberFields(THING, "t.v1.Thing", OPTIONS).shape));
  });

  it("reports properties the message lacks, objects where it has a scalar, and missing messages", () => {
    const node = obj({
      apiVersion: str(),
      metadata: obj({ name: obj({ first: str() }), nickname: str() }),
      spec: obj({ volumes: atomic(obj({ name: str() })) }),
      status: str(),
    });
    const { shape, unresolved } = numberFields(node, "t.v1.Thing", {
      ...OPTIONS,
      messages: parseMessages([{ "t.v1.Thing": "metadata=1:t.v1.Meta spec=2:t.v1.Missing" }]),
    });
    assert.deepEqual(unresolved, ["metadata: no message t.v1.Meta", "spec: no message t.v1.Missing", "status: not in t.v1.Thing"]);
    assert.deepEqual([...shape.fields.keys()], ["metadata", "spec"]);
    const scalar = numberFields(obj({ metadata: obj({ name: obj({ first: str() }) }) }), "t.v1.Thing", OPTIONS);
    assert.deepEqual(scalar.unresolved, ["metadata.name: an object in the schema, a scalar field in the message"]);
  });

  it("leaves out the apiVersion and kind of a whole object nested in another, not of other objects", () => {
    const messages = parseMessages([
      {
        "t.v1.Thing": "spec=2:t.v1.Spec",
        "t.v1.Spec": "template=1:t.v1.Template other=2:t.v1.Port",
        "t.v1.Template": "metadata=1:t.v1.Port",
        "t.v1.Port": "port=1",
      },
    ]);
    const node = obj({
      spec: obj({ other: obj({ kind: str(), port: str() }), template: obj({ apiVersion: str(), kind: str(), metadata: obj({ port: str() }) }) }),
    });
    const { shape, unresolved } = numberFields(node, "t.v1.Thing", { ...OPTIONS, messages });
    assert.deepEqual(unresolved, ["spec.other.kind: not in t.v1.Port"]);
    assert.deepEqual(flatten(shape), [
      "spec=2",
      "spec.other=2",
      "spec.other.port=1",
      "spec.template=1",
      "spec.template.metadata=1",
      "spec.template.metadata.port=1",
    ]);
  });

  it("maps JSON-Schema spellings ($ref, every extension prefix) to the message's names, and ends at cycles", () => {
    const schema: SchemaNode = obj({
      $ref: str(),
      $schema: str(),
      properties: mapOf(ref("t.v1.Schema")),
      title: str(),
      "x-a-list-type": str(),
      "x-b-list-type": str(),
      "x-b-list-map-keys": atomic(str()),
    });
    const definitions = new Map([["t.v1.Schema", schema]]);
    const { shape, unresolved } = numberFields(ref("t.v1.Schema"), "t.v1.Schema", { ...OPTIONS, definitions });
    assert.deepEqual(unresolved, []);
    assert.deepEqual(flatten(shape), [
      "$ref=3",
      "$schema=2",
      "properties=29",
      "properties.…",
      "title=7",
      "x-a-list-type=42",
      "x-b-list-map-keys=41",
      "x-b-list-type=42",
    ]);
    assert.equal(shape.fields.get("properties")?.shape, shape);
  });

  it("does not take an extension with an unknown prefix or a word the message lacks", () => {
    const schema = obj({ "x-c-list-type": str(), "x-a-list-size": str() });
    assert.deepEqual(numberFields(schema, "t.v1.Schema", OPTIONS).unresolved, ["x-a-list-size: not in t.v1.Schema", "x-c-list-type: not in t.v1.Schema"]);
  });
});
