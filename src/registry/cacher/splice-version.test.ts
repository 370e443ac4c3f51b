import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { spliceResourceVersion } from "./splice-version.js";

/** What the watch cache did before: parse the stored text, stamp the version, encode again. */
function stringified(stored: string, resourceVersion: string): string {
  const object = JSON.parse(stored) as { metadata: Record<string, unknown> };
  object.metadata.resourceVersion = resourceVersion;
  return JSON.stringify(object);
}

const metadataWithoutVersion = fc
  .dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 })
  .map((metadata) => Object.fromEntries(Object.entries(metadata).filter(([key]) => key !== "resourceVersion")));

describe("spliceResourceVersion", () => {
  it("gives exactly what parse, stamp and JSON.stringify give, whatever the keys, values and order around metadata", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 5 }),
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 5 }),
        metadataWithoutVersion,
        fc.nat(),
        (before, after, metadata, revision) => {
          const object: Record<string, unknown> = {};
          for (const [key, value] of Object.entries(before)) if (key !== "metadata") object[key] = value;
          object["metadata"] = metadata;
          for (const [key, value] of Object.entries(after)) if (key !== "metadata" && !(key in object)) object[key] = value;
          const stored = JSON.stringify(object);
          const spliced = spliceResourceVersion(stored, String(revision));
          assert.equal(spliced, stringified(stored, String(revision)));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("splices a stored ConfigMap as the server writes it, and an empty metadata", () => {
    const stored = JSON.stringify({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "a",
        namespace: "b",
        labels: { x: "y" },
        annotations: { note: '{"resourceVersion":"1"} \\" }' },
        managedFields: [{ manager: "m", fieldsV1: { "f:data": {} } }],
      },
      data: { payload: 'x"}{][' },
    });
    assert.equal(spliceResourceVersion(stored, "42"), stringified(stored, "42"));
    assert.equal(spliceResourceVersion('{"kind":"X","metadata":{}}', "7"), '{"kind":"X","metadata":{"resourceVersion":"7"}}');
  });

  it("answers undefined (the caller encodes) for text of another shape", () => {
    for (const text of [
      '{"kind":"X"}',
      '{"metadata":null}',
      '{"metadata":"x"}',
      '{"metadata":{"name":"a","resourceVersion":"3"}}',
      '{ "metadata": {} }',
      "[]",
      "",
      '{"metadata":{"name":"a"',
    ]) {
      assert.equal(spliceResourceVersion(text, "9"), undefined, text);
    }
  });
});
