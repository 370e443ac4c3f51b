import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../profile.js";
import { builtinSchemas, goZeroAnnotator } from "./builtin.js";
import { builtinCatalogue } from "./catalogue.js";
import { openApiTypeReader } from "./openapi.js";
import { definitionClosure, publicName, renderDefinitions } from "./render.js";

describe("builtinSchemas(): definitions rendered on demand", () => {
  for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
    it(`${profile.name}: every kind's type is the one read from the whole rendered document`, () => {
      const catalogue = builtinCatalogue(profile);
      // The whole document, as /openapi/v3 renders it (without descriptions), read by one reader.
      const whole = openApiTypeReader({
        extensionPrefixes: profile.openApiExtensionPrefixes,
        annotate: goZeroAnnotator(profile),
        components: renderDefinitions(catalogue, definitionClosure(catalogue, catalogue.definitions.keys()), { profile, target: "v3", descriptions: false }),
      });
      const lazy = builtinSchemas(profile);
      let kinds = 0;
      for (const id of [...catalogue.definitions.keys()].sort()) {
        for (const gvk of catalogue.kindsOf(id)) {
          const expected = whole({ $ref: `#/components/schemas/${publicName(profile, id)}` });
          assert.deepEqual(lazy.schemaFor(gvk.group, gvk.version, gvk.kind), expected, `${gvk.group}/${gvk.version} ${gvk.kind}`);
          kinds++;
        }
      }
      assert.ok(kinds > 100, `only ${kinds} kinds compared`);
    });
  }
});
