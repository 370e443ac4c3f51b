import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { ApiObject } from "../api/object.js";
import { ORCH_PROFILE } from "../api/profile.js";
import { customObjectSchema } from "../api/crd/custom-object-schema.js";
import type { JsonSchema } from "../api/crd/json-schema.js";
import { decodeToCache, type ResourceCodec } from "./cacher/cached-object.js";
import type { ResourceDefinition } from "./definition.js";
import { decodeStored, decodeStoredStamped, encodeForStorage, storedTextProblem, writtenJson } from "./stored-object.js";
import { stringifyJson } from "../util/deep-json.js";

/** A custom kind's schema with defaults at the top, nested, in list items and in map values. */
const SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    apiVersion: { type: "string" },
    kind: { type: "string" },
    metadata: { type: "object" },
    spec: {
      type: "object",
      properties: {
        mode: { type: "string", default: "Rolling" },
        nested: { type: "object", properties: { count: { type: "integer", default: 1 }, note: { type: "string" } } },
        ports: { type: "array", items: { type: "object", properties: { name: { type: "string" }, protocol: { type: "string", default: "TCP" } } } },
        labels: { type: "object", additionalProperties: { type: "object", properties: { value: { type: "string", default: "x" } } } },
      },
    },
  },
};

const DEFINITION = {
  group: "example.com",
  version: "v1",
  kind: "Widget",
  plural: "widgets",
  readAsServed: true,
  schema: customObjectSchema("com.example.v1.Widget", SCHEMA, { extensionPrefixes: ORCH_PROFILE.openApiExtensionPrefixes }),
} as unknown as ResourceDefinition;

const CODEC: ResourceCodec = {
  kind: "Widget",
  apiVersion: "example.com/v1",
  decode: (value, revision) => decodeStored(value, revision, DEFINITION),
  decodeStamped: (value, revision) => decodeStoredStamped(value, revision, DEFINITION),
  extraFieldsOf: () => undefined,
};

function widget(spec: Record<string, unknown>, apiVersion = "example.com/v1"): ApiObject {
  return { apiVersion, kind: "Widget", metadata: { name: "w", namespace: "default", uid: "u" }, spec };
}

const DEFAULTED = { mode: "Rolling", nested: { count: 1 }, ports: [{ name: "http", protocol: "TCP" }], labels: { a: { value: "x" } } };

describe("decoding stored custom objects (defaults on read)", () => {
  it("tells an object left as stored from one that read-time defaulting or the served apiVersion changed", () => {
    assert.equal(decodeStoredStamped(encodeForStorage(widget(DEFAULTED)), 7, DEFINITION).onlyStamped, true);
    assert.equal(decodeStoredStamped(encodeForStorage(widget({ ...DEFAULTED, mode: undefined })), 7, DEFINITION).onlyStamped, false);
    assert.equal(decodeStoredStamped(encodeForStorage(widget({ ...DEFAULTED, ports: [{ name: "http" }] })), 7, DEFINITION).onlyStamped, false);
    assert.equal(decodeStoredStamped(encodeForStorage(widget({ ...DEFAULTED, labels: { b: {} } })), 7, DEFINITION).onlyStamped, false);
    assert.equal(decodeStoredStamped(encodeForStorage(widget({ ...DEFAULTED, mode: null })), 7, DEFINITION).onlyStamped, false);
    assert.equal(decodeStoredStamped(encodeForStorage(widget(DEFAULTED, "example.com/v1beta1")), 7, DEFINITION).onlyStamped, false);
    const decoded = decodeStoredStamped(encodeForStorage(widget({})), 7, DEFINITION);
    assert.equal(decoded.onlyStamped, false);
    assert.deepEqual(decoded.object["spec"], { mode: "Rolling" });
  });

  it("caches exactly the JSON of the decoded object, spliced or encoded again, whatever is stored", () => {
    const text = fc.constantFrom("a", "b", "é\u2028", "");
    const spec = fc.record(
      {
        mode: fc.oneof(text, fc.constant(null)),
        nested: fc.record({ count: fc.integer(), note: text }, { requiredKeys: [] }),
        ports: fc.array(fc.record({ name: text, protocol: text }, { requiredKeys: [] }), { maxLength: 3 }),
        labels: fc.dictionary(fc.constantFrom("a", "b", "__proto__"), fc.record({ value: text }, { requiredKeys: [] }), { maxKeys: 2 }),
        extra: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(spec, fc.boolean(), fc.nat(), (value, older, revision) => {
        const stored = encodeForStorage(widget(value, older ? "example.com/v1beta1" : "example.com/v1"));
        const { cached, object } = decodeToCache(CODEC, "/widgets/default/w", stored, revision);
        assert.equal(cached.json, stringifyJson(decodeStored(stored, revision, DEFINITION)));
        assert.equal(cached.json, stringifyJson(object));
      }),
      { numRuns: 300 },
    );
  });
});

describe("the created object's JSON from its stored text (writtenJson)", () => {
  /** Metadata as a create leaves it: the client's keys, the server's, managedFields, then (after the write) resourceVersion. */
  const metadataKey = fc.constantFrom("name", "labels", "annotations", "uid", "finalizers", "resourceVersion", "managedFields", 'x"y');
  const metadataValue = fc.oneof(fc.jsonValue(), fc.constant(undefined));

  it("is JSON.stringify of the object whenever it answers, and answers for the create order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(metadataKey, metadataValue), { maxLength: 6 }),
        fc.option(fc.array(fc.record({ manager: fc.string() }), { maxLength: 2 }), { nil: undefined }),
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }),
        fc.nat(),
        fc.boolean(),
        (entries, managedFields, rest, revision, createOrder) => {
          const metadata: Record<string, unknown> = {};
          for (const [key, value] of entries) metadata[key] = value;
          if (createOrder) {
            delete metadata["managedFields"];
            delete metadata["resourceVersion"];
            if (managedFields !== undefined) metadata["managedFields"] = managedFields;
          }
          const object = { ...rest, apiVersion: "v1", kind: "Pod", metadata } as unknown as ApiObject;
          const stored = encodeForStorage(object);
          if (createOrder) delete object.metadata.resourceVersion;
          object.metadata.resourceVersion = String(revision);
          const json = writtenJson(stored, object);
          if (json !== undefined) assert.equal(json, JSON.stringify(object));
          if (createOrder) assert.notEqual(json, undefined);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("declines when a key follows managedFields or the version is not last", () => {
    const written = (metadata: Record<string, unknown>): string | undefined => {
      const object = { apiVersion: "v1", kind: "Pod", metadata } as unknown as ApiObject;
      return writtenJson(encodeForStorage(object), object);
    };
    assert.equal(written({ name: "a", managedFields: [{ manager: "m" }], annotations: { a: "b" }, resourceVersion: "5" }), undefined);
    assert.equal(written({ name: "a", resourceVersion: "5", uid: "u" }), undefined);
    assert.equal(written({ name: "a" }), undefined);
    assert.equal(
      written({ name: "a", managedFields: [{ manager: "m" }], resourceVersion: "5" }),
      '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","managedFields":[{"manager":"m"}],"resourceVersion":"5"}}',
    );
  });
});

describe("storedTextProblem (the load's check that a stored value is whole)", () => {
  it("passes every value encodeForStorage writes, NUL characters in strings included (JSON escapes them)", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: "binary" }), fc.jsonValue()), fc.string({ unit: "binary" }), (data, name) => {
        assert.equal(
          storedTextProblem(encodeForStorage({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `${name}\u0000` }, data } as ApiObject)),
          undefined,
        );
      }),
      { numRuns: 200 },
    );
  });

  it("finds values a torn page or a cut body leaves", () => {
    const whole = encodeForStorage({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { pad: "x".repeat(100) } });
    const cases: [string, RegExp][] = [
      [`${whole.slice(0, -20)}${"\u0000".repeat(20)}`, /^holds a NUL character at offset \d+ of \d+$/],
      [`${whole.slice(0, 40)}\u0000${whole.slice(41)}`, /^holds a NUL character at offset 40 of /],
      [whole.slice(0, -3), /^is not a whole JSON object/],
      [whole.slice(0, 50), /^is not a whole JSON object/],
      ["", /^is not a JSON object$/],
      ["\u0000".repeat(8), /^is not a JSON object$/],
      ['"text"', /^is not a JSON object$/],
    ];
    for (const [text, reason] of cases) assert.match(storedTextProblem(text) ?? "passed", reason, JSON.stringify(text.slice(-30)));
    assert.equal(storedTextProblem(whole), undefined);
    // kube-apiserver's JSON in etcd (custom resources) ends with a newline; JSON allows whitespace around the object.
    assert.equal(storedTextProblem(`${whole}\n`), undefined);
    assert.equal(storedTextProblem(` \r\n${whole}\t \n`), undefined);
    assert.match(storedTextProblem(`${whole.slice(0, -3)}\n`) ?? "passed", /^is not a whole JSON object/);
  });
});
