import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ORCH_PROFILE } from "../../../api/profile.js";
import type { ApiObject } from "../../../api/object.js";
import { DEDUCED } from "../../../api/schema/field-type.js";
import { CompiledSchemas } from "./compiled-schemas.js";
import { customResourceDefinitions, namesOf, type VersionArtifacts } from "./custom-resources.js";

function widgetDefinition(generation: number): ApiObject {
  return {
    apiVersion: "apiextensions.orch.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com", uid: "u-1", generation },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { plural: "widgets", kind: "Widget" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: { spec: { type: "object", properties: { size: { type: "integer", default: 3 } } } },
            },
          },
        },
      ],
    },
  };
}

describe("CompiledSchemas", () => {
  test("keeps the most recently used entries up to its limit and builds a dropped one again", () => {
    const cache = new CompiledSchemas<string>(2);
    const builds: string[] = [];
    const get = (key: string) =>
      cache.get(key, () => {
        builds.push(key);
        return `built ${key}`;
      });
    assert.equal(get("a"), "built a");
    get("b");
    get("a"); // a is now more recent than b
    get("c"); // b goes
    assert.equal(cache.size, 2);
    get("a");
    get("b");
    assert.deepEqual(builds, ["a", "b", "c", "b"]);
  });

  test("forget drops every key under a prefix", () => {
    const cache = new CompiledSchemas<number>(10);
    cache.get("x/1/v1", () => 1);
    cache.get("x/1/v2", () => 2);
    cache.get("y/1/v1", () => 3);
    cache.forget("x/");
    assert.equal(cache.size, 1);
  });
});

describe("customResourceDefinitions(): schemas compiled on first use", () => {
  test("a served version reads its definition again only when its schema is needed and not kept", () => {
    const compiled = new CompiledSchemas<VersionArtifacts>(1);
    let reads = 0;
    const crd = widgetDefinition(1);
    const [definition] = customResourceDefinitions(crd, namesOf((crd["spec"] as Record<string, unknown>)["names"]), {
      extensionPrefixes: ORCH_PROFILE.openApiExtensionPrefixes,
      compiled,
      reload: () => {
        reads += 1;
        return widgetDefinition(1);
      },
    });
    assert.ok(definition !== undefined);
    assert.equal(reads, 0, "nothing is compiled while serving is set up");
    const object: ApiObject = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: {} };
    definition.schema?.applyDefaults(object);
    assert.deepEqual(object["spec"], { size: 3 });
    assert.equal(definition.openApiSchema?.()["type"], "object");
    assert.equal(reads, 1, "compiled once, then kept");
    const schema = definition.schema;
    assert.ok(schema !== undefined);
    compiled.get("another/version", () => ({ openApiSchema: {}, schema, fieldType: DEDUCED }));
    definition.schema?.applyDefaults({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "v" }, spec: {} });
    assert.equal(reads, 2, "dropped by the limit, so read and compiled again");
  });

  test("a version whose definition is gone answers an error instead of an empty schema", () => {
    const crd = widgetDefinition(1);
    const [definition] = customResourceDefinitions(crd, namesOf((crd["spec"] as Record<string, unknown>)["names"]), {
      extensionPrefixes: ORCH_PROFILE.openApiExtensionPrefixes,
      reload: () => undefined,
    });
    assert.throws(() => definition?.schema?.validate({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" } }, undefined), /not available/);
  });
});
