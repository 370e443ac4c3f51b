import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { FieldSet } from "./field-set.js";
import { fieldElement, indexElement, keyElement, parseElement, pathString, valueElement, type Path } from "./path.js";

const f = fieldElement;
const k = (fields: Record<string, string | number | boolean>): ReturnType<typeof keyElement> =>
  keyElement(Object.entries(fields).map(([name, value]) => ({ name, value })));

describe("FieldSet FieldsV1 encoding", () => {
  const cases: { name: string; paths: Path[]; json: string }[] = [
    {
      name: "leaves are {} and keys are f: fields",
      paths: [
        [f("data"), f("key")],
        [f("metadata"), f("labels"), f("app")],
      ],
      json: '{"f:data":{"f:key":{}},"f:metadata":{"f:labels":{"f:app":{}}}}',
    },
    {
      name: "an element that is a member and has children gets '.' first",
      paths: [
        [f("spec"), f("containers"), k({ name: "nginx" })],
        [f("spec"), f("containers"), k({ name: "nginx" }), f("image")],
        [f("spec"), f("containers"), k({ name: "nginx" }), f("name")],
      ],
      json: '{"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:name":{}}}}}',
    },
    {
      name: "key fields are sorted by name and values keep their JSON type",
      paths: [[f("ports"), k({ protocol: "TCP", containerPort: 80 })]],
      json: '{"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{}}}',
    },
    {
      name: "set items are v: values",
      paths: [[f("metadata"), f("finalizers"), valueElement("a/b")]],
      json: '{"f:metadata":{"f:finalizers":{"v:\\"a/b\\"":{}}}}',
    },
    {
      name: "fields sort before keys, values and indexes",
      paths: [
        [f("x"), indexElement(2)],
        [f("x"), valueElement(1)],
        [f("x"), f("z")],
        [f("x"), k({ a: 1 })],
      ],
      json: '{"f:x":{"f:z":{},"k:{\\"a\\":1}":{},"v:1":{},"i:2":{}}}',
    },
    {
      name: "HTML characters in keys are escaped as Go does",
      paths: [[f("l"), k({ name: "a<b&c>" })]],
      json: '{"f:l":{"k:{\\"name\\":\\"a\\\\u003cb\\\\u0026c\\\\u003e\\"}":{}}}',
    },
    {
      name: "numbers order numerically, strings bytewise",
      paths: [
        [f("p"), valueElement(10)],
        [f("p"), valueElement(9)],
        [f("q"), valueElement("b")],
        [f("q"), valueElement("B")],
      ],
      json: '{"f:p":{"v:9":{},"v:10":{}},"f:q":{"v:\\"B\\"":{},"v:\\"b\\"":{}}}',
    },
  ];
  for (const testCase of cases) {
    it(`toFieldsV1(): ${testCase.name}`, () => {
      const set = FieldSet.of(testCase.paths);
      assert.equal(JSON.stringify(set.toFieldsV1()), testCase.json);
      assert.ok(FieldSet.fromFieldsV1(JSON.parse(testCase.json)).equals(set), "round trip");
    });
  }

  it("fromFieldsV1() reads kube's output ('.' marks the element itself) and rejects other shapes", () => {
    const set = FieldSet.fromFieldsV1({ "f:spec": { "f:rollingUpdate": { ".": {}, "f:maxSurge": {} } } });
    assert.ok(set.has([f("spec"), f("rollingUpdate")]));
    assert.ok(set.has([f("spec"), f("rollingUpdate"), f("maxSurge")]));
    assert.ok(!set.has([f("spec")]));
    assert.throws(() => FieldSet.fromFieldsV1({ "x:bad": {} }), /invalid fieldsV1 key/);
    assert.throws(() => FieldSet.fromFieldsV1({ "f:a": 1 }), /must be an object/);
    assert.throws(() => FieldSet.fromFieldsV1([]), /must be an object/);
  });
});

describe("FieldSet operations", () => {
  const a = FieldSet.of([[f("a"), f("x")], [f("a"), f("y")], [f("b")]]);
  const b = FieldSet.of([[f("a"), f("y")], [f("c")]]);
  const paths = (set: FieldSet): string[] => set.paths().map(pathString);

  it("union, intersection and difference work path by path", () => {
    assert.deepEqual(paths(a.union(b)), [".a.x", ".a.y", ".b", ".c"]);
    assert.deepEqual(paths(a.intersection(b)), [".a.y"]);
    assert.deepEqual(paths(a.difference(b)), [".a.x", ".b"]);
  });

  it("recursiveDifference() also removes what is below a member of the other set", () => {
    assert.deepEqual(paths(a.recursiveDifference(FieldSet.of([[f("a")]]))), [".b"]);
    assert.deepEqual(paths(a.difference(FieldSet.of([[f("a")]]))), [".a.x", ".a.y", ".b"]);
  });

  it("leaves() drops members that have members below them", () => {
    const set = FieldSet.of([
      [f("l"), k({ name: "a" })],
      [f("l"), k({ name: "a" }), f("v")],
      [f("l"), k({ name: "b" })],
    ]);
    assert.deepEqual(paths(set.leaves()), ['.l[name="a"].v', '.l[name="b"]']);
  });

  it("restrictTo() keeps only the named top-level subtrees", () => {
    assert.deepEqual(paths(a.restrictTo([f("a")])), [".a.x", ".a.y"]);
  });

  it("parseElement() reads every kind of key and rejects unknown prefixes", () => {
    assert.deepEqual(parseElement('k:{"b":2,"a":"x"}'), k({ a: "x", b: 2 }));
    assert.equal(parseElement("i:3")?.key, "i:3");
    assert.equal(parseElement("z:1"), undefined);
    assert.equal(parseElement("i:-1"), undefined);
  });

  it("pathString() prints paths as kube's conflict messages do", () => {
    assert.equal(
      pathString([f("spec"), f("containers"), k({ name: "web" }), f("ports"), k({ protocol: "TCP", containerPort: 80 })]),
      '.spec.containers[name="web"].ports[containerPort=80,protocol="TCP"]',
    );
    assert.equal(pathString([f("metadata"), f("finalizers"), valueElement("x")]), '.metadata.finalizers[="x"]');
    assert.equal(pathString([f("items"), indexElement(0)]), ".items[0]");
  });
});
