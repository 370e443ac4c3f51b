import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiGroup, ORCH_PROFILE } from "../src/api/profile.js";
import { inProcessServer } from "../src/testing/in-process.js";
import { MemoryStorage } from "../src/storage/memory/memory-storage.js";

type Json = Record<string, unknown>;
type Server = Awaited<ReturnType<typeof inProcessServer>>;

const APIEXTENSIONS = apiGroup(ORCH_PROFILE, "apiextensions");
const CRDS = `/apis/${APIEXTENSIONS}/v1/customresourcedefinitions`;
const GROUP = "shape.example.com";
const X = "x-kubernetes-";
const ROOT = "spec.validation.openAPIV3Schema"; // kube reports a schema every version shares at the top (its internal form)

function definition(name: string, spec: Json): Json {
  return {
    apiVersion: `${APIEXTENSIONS}/v1`,
    kind: "CustomResourceDefinition",
    metadata: { name: `${name}s.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural: `${name}s`, singular: name, kind: name[0]?.toUpperCase() + name.slice(1), listKind: `${name}List` },
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec } } } }],
    },
  };
}

function causes(json: Json): string[] {
  return (((json["details"] as Json | undefined)?.["causes"] as Json[] | undefined) ?? []).map(
    (cause) => `${String(cause["field"])}: ${String(cause["message"])}`,
  );
}

describe("structural schema rules of CustomResourceDefinitions", () => {
  let server: Server;
  const storage = new MemoryStorage();
  before(async () => {
    server = await inProcessServer({ storage });
  });
  after(async () => server.server.stop());

  const cases: [string, Json, string][] = [
    [
      "properties with additionalProperties",
      { type: "object", properties: { a: { type: "string" } }, additionalProperties: { type: "string" } },
      `${ROOT}.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
    ],
    ["$ref", { type: "object", $ref: "#/definitions/x" }, `${ROOT}.properties[spec].$ref: Forbidden: $ref is not supported`],
    [
      "int-or-string with a type",
      { type: "object", properties: { port: { type: "string", [`${X}int-or-string`]: true } } },
      `${ROOT}.properties[spec].properties[port].type: Invalid value: "string": must be empty if ${X}int-or-string is true`,
    ],
    [
      "preserve-unknown-fields false",
      { type: "object", [`${X}preserve-unknown-fields`]: false },
      `${ROOT}.properties[spec].${X}preserve-unknown-fields: Invalid value: false: must be true or undefined`,
    ],
    [
      "an embedded resource that is not an object",
      { type: "object", properties: { template: { type: "string", [`${X}embedded-resource`]: true } } },
      `${ROOT}.properties[spec].properties[template].type: Invalid value: "string": must be object if ${X}embedded-resource is true`,
    ],
    [
      "an unknown list type",
      { type: "object", properties: { tags: { type: "array", items: { type: "string" }, [`${X}list-type`]: "bag" } } },
      `${ROOT}.properties[spec].properties[tags].${X}list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`,
    ],
    [
      "a set of granular objects",
      { type: "object", properties: { tags: { type: "array", items: { type: "object" }, [`${X}list-type`]: "set" } } },
      `${ROOT}.properties[spec].properties[tags].items.${X}map-type: Invalid value: "null": must be atomic as item of a list with ${X}list-type=set`,
    ],
    [
      "a map type on a string",
      { type: "object", properties: { name: { type: "string", [`${X}map-type`]: "atomic" } } },
      `${ROOT}.properties[spec].properties[name].type: Invalid value: "string": must be object if ${X}map-type is specified`,
    ],
    [
      "a type under anyOf",
      { type: "object", anyOf: [{ type: "object", required: ["a"] }] },
      `${ROOT}.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural`,
    ],
    [
      "an int-or-string anyOf whose branch says more than its type",
      { type: "object", properties: { q: { [`${X}int-or-string`]: true, anyOf: [{ type: "integer", description: "n" }, { type: "string" }] } } },
      `${ROOT}.properties[spec].properties[q].anyOf[0].type: Forbidden: must be empty to be structural`,
    ],
    [
      "a pattern RE2 cannot compile",
      { type: "object", properties: { foo: { type: "string", pattern: "+" } } },
      `${ROOT}.properties[spec].properties[foo].pattern: Invalid value: "+": must be a valid regular expression, but isn't: error parsing regexp: missing argument to repetition operator: \`+\``,
    ],
    [
      "a default under allOf",
      { type: "object", properties: { a: { type: "string" } }, allOf: [{ properties: { a: { default: "x" } } }] },
      `${ROOT}.properties[spec].allOf[0].properties[a].default: Forbidden: must be undefined to be structural`,
    ],
    [
      "a missing type",
      { type: "object", properties: { a: { description: "untyped" } } },
      `${ROOT}.properties[spec].properties[a].type: Required value: must not be empty for specified object fields`,
    ],
  ];
  for (const [title, spec, expected] of cases) {
    it(`refuses ${title} with 422 and kube's message`, async () => {
      const response = await server.call("POST", CRDS, { body: definition("bad", spec) });
      assert.equal(response.status, 422, response.text);
      assert.ok(causes(response.json).includes(expected), causes(response.json).join("\n"));
    });
  }

  it("accepts value validations under junctors and atomic sets of objects", async () => {
    const spec = {
      type: "object",
      properties: {
        a: { type: "string" },
        pairs: { type: "array", [`${X}list-type`]: "set", items: { type: "object", [`${X}map-type`]: "atomic", properties: { k: { type: "string" } } } },
      },
      anyOf: [{ required: ["a"] }, { properties: { a: { minLength: 2 } } }],
    };
    const response = await server.call("POST", CRDS, { body: definition("good", spec) });
    assert.equal(response.status, 201, response.text);
  });

  it("accepts int-or-string spelled as anyOf [integer, string], directly or as allOf's first branch (controller-gen's Quantity)", async () => {
    const either = { anyOf: [{ type: "integer" }, { type: "string" }] };
    const spec = {
      type: "object",
      properties: {
        limits: { type: "object", additionalProperties: { ...either, pattern: "^[0-9]+$", [`${X}int-or-string`]: true } },
        port: { allOf: [{ ...either, maxLength: 5 }, { minimum: 1 }], [`${X}int-or-string`]: true },
      },
    };
    const response = await server.call("POST", CRDS, { body: definition("quantity", spec) });
    assert.equal(response.status, 201, response.text);
  });

  it("reports a stored non-structural definition in a NonStructuralSchema condition", async () => {
    const crd = definition("legacy", { type: "object", properties: { a: { type: "string" } }, additionalProperties: { type: "string" } });
    const metadata = { ...(crd["metadata"] as Json), uid: "legacy-uid", creationTimestamp: "2026-01-01T00:00:00Z", generation: 1 };
    await storage.create(`/${APIEXTENSIONS}/customresourcedefinitions/legacys.${GROUP}`, JSON.stringify({ ...crd, metadata }));
    let condition: Json | undefined;
    for (let attempt = 0; attempt < 250 && condition === undefined; attempt++) {
      const read = await server.call("GET", `${CRDS}/legacys.${GROUP}`);
      const conditions = ((read.json["status"] as Json | undefined)?.["conditions"] as Json[] | undefined) ?? [];
      condition = conditions.find((item) => item["type"] === "NonStructuralSchema");
      if (condition === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(condition?.["status"], "True");
    assert.equal(condition?.["reason"], "Violations");
    assert.equal(condition?.["message"], `${ROOT}.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`);
  });
});
