import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { duplicateJsonFields, parseYamlWithDuplicates } from "./duplicate-fields.js";

describe("duplicateJsonFields(): keys an object sets twice", () => {
  const cases: { name: string; text: string; duplicates: string[] }[] = [
    { name: "none", text: '{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}', duplicates: [] },
    { name: "at the top", text: '{"kind":"Pod","kind":"Pod"}', duplicates: ["kind"] },
    { name: "nested, by path", text: '{"spec":{"replicas":1,"paused":true,"replicas":2}}', duplicates: ["spec.replicas"] },
    {
      name: "inside list items, by index",
      text: '{"spec":{"containers":[{"name":"a"},{"name":"b","image":"x","name":"c"}]}}',
      duplicates: ["spec.containers[1].name"],
    },
    { name: "the same key in sibling objects is not a duplicate", text: '{"a":{"x":1},"b":{"x":1}}', duplicates: [] },
    { name: "string values that look like keys are ignored", text: '{"a":"\\"a\\":1","b":["a","a"],"c":"{\\"a\\":1,\\"a\\":2}"}', duplicates: [] },
    { name: "escaped keys are compared decoded", text: '{"\\u0061":1,"a":2}', duplicates: ["a"] },
    { name: "whitespace and nested lists", text: '{ "l" : [ [ {"k":1, "k":2} ] ] , "l" : 1 }', duplicates: ["l[0][0].k", "l"] },
    { name: "a top-level list", text: '[{"op":"add","op":"remove"}]', duplicates: ["[0].op"] },
    {
      name: "several, in order",
      text: '{"metadata":{"name":"a","name":"b"},"data":{"x":"1","x":"2","y":"3","y":"4"}}',
      duplicates: ["metadata.name", "data.x", "data.y"],
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => {
      JSON.parse(testCase.text);
      assert.deepEqual(duplicateJsonFields(testCase.text), testCase.duplicates);
    });
  }
});

describe("parseYamlWithDuplicates(): YAML keeping the last of duplicate keys", () => {
  it("reports duplicates by path and keeps the last value, as JSON decoding does", () => {
    const parsed = parseYamlWithDuplicates("kind: ConfigMap\ndata:\n  a: '1'\n  a: '2'\nitems:\n- name: x\n  name: y\n");
    assert.deepEqual(parsed.duplicates, ["data.a", "items[0].name"]);
    assert.deepEqual(parsed.value, { kind: "ConfigMap", data: { a: "2" }, items: [{ name: "y" }] });
  });

  it("reports nothing for a document without duplicates", () => {
    assert.deepEqual(parseYamlWithDuplicates("a: 1\nb: {a: 1}\n").duplicates, []);
  });

  it("throws for malformed YAML", () => {
    assert.throws(() => parseYamlWithDuplicates("a: [1, 2\n"));
  });
});
