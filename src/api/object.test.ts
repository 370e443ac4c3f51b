import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { stringifyJson } from "../util/deep-json.js";
import { cloneObject } from "./object.js";

describe("cloneObject()", () => {
  it("copies plain JSON deeply: the copy shares nothing with the original", () => {
    const original = { metadata: { name: "a", labels: { x: "1" } }, spec: { ports: [{ name: "http", port: 80 }], tags: [] as string[] }, n: null };
    const copy = cloneObject(original);
    assert.deepEqual(copy, original);
    assert.notEqual(copy.metadata, original.metadata);
    assert.notEqual(copy.spec.ports[0], original.spec.ports[0]);
    copy.spec.ports[0] = { name: "https", port: 443 };
    copy.metadata.labels.x = "2";
    assert.equal(original.spec.ports[0]?.name, "http");
    assert.equal(original.metadata.labels.x, "1");
  });

  it("keeps a parsed __proto__ key as an own property, without touching the prototype", () => {
    const parsed = JSON.parse('{"spec":{"__proto__":{"polluted":true},"a":1}}') as { spec: Record<string, unknown> };
    const copy = cloneObject(parsed);
    assert.equal(Object.getPrototypeOf(copy.spec), Object.prototype);
    assert.deepEqual(Object.keys(copy.spec), ["__proto__", "a"]);
    assert.deepEqual(Object.getOwnPropertyDescriptor(copy.spec, "__proto__")?.value, { polluted: true });
    assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
  });

  it("keeps keys whose value is undefined, as structuredClone does", () => {
    const copy = cloneObject({ a: undefined, b: 1 });
    assert.deepEqual(Object.keys(copy), ["a", "b"]);
  });

  it("copies values other than plain JSON as structuredClone does (dates, cycles)", () => {
    const when = new Date(0);
    const dated = cloneObject({ when });
    assert.ok(dated.when instanceof Date);
    assert.notEqual(dated.when, when);
    assert.equal(dated.when.getTime(), 0);
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic["self"] = cyclic;
    const copy = cloneObject(cyclic);
    assert.equal(copy["self"], copy);
    assert.notEqual(copy, cyclic);
  });

  it("copies a body nested as deep as a body may be (10,000 levels)", () => {
    let deep: Record<string, unknown> = { leaf: true };
    for (let level = 0; level < 10_000; level++) deep = { next: deep };
    const copy = cloneObject(deep);
    assert.notEqual(copy, deep);
    assert.equal(stringifyJson(copy), stringifyJson(deep));
  });

  it("refuses functions as structuredClone does", () => {
    assert.throws(() => cloneObject({ call: () => 1 }), { name: "DataCloneError" });
  });
});
