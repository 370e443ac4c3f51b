import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ORCH_PROFILE } from "../../api/profile.js";
import { builtinSchemas } from "../../api/schema/builtin.js";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";

const schemas = builtinSchemas(ORCH_PROFILE);
const POD = schemas.schemaFor("", "v1", "Pod");
const SERVICE = schemas.schemaFor("", "v1", "Service");

describe("applyStrategicMergePatch(): lists merge as the kind's schema says", () => {
  const cases: { name: string; schema: typeof POD; target: unknown; patch: unknown; result: unknown }[] = [
    {
      name: "pod containers merge by name, fields inside merge",
      schema: POD,
      target: {
        spec: {
          containers: [
            { name: "a", image: "1", env: [{ name: "X", value: "1" }] },
            { name: "b", image: "1" },
          ],
        },
      },
      patch: {
        spec: {
          containers: [
            { name: "a", env: [{ name: "Y", value: "2" }] },
            { name: "c", image: "3" },
          ],
        },
      },
      result: {
        spec: {
          containers: [
            {
              name: "a",
              image: "1",
              env: [
                { name: "X", value: "1" },
                { name: "Y", value: "2" },
              ],
            },
            { name: "b", image: "1" },
            { name: "c", image: "3" },
          ],
        },
      },
    },
    {
      name: "container ports merge by containerPort, service ports by port",
      schema: SERVICE,
      target: { spec: { ports: [{ port: 80, name: "http" }] } },
      patch: { spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443 }] } },
      result: { spec: { ports: [{ port: 80, name: "http", targetPort: 8080 }, { port: 443 }] } },
    },
    {
      name: "$patch: delete removes an item by its key",
      schema: POD,
      target: { spec: { volumes: [{ name: "v1" }, { name: "v2" }] } },
      patch: { spec: { volumes: [{ name: "v1", $patch: "delete" }] } },
      result: { spec: { volumes: [{ name: "v2" }] } },
    },
    {
      name: "metadata.finalizers merge as a set; $deleteFromPrimitiveList removes",
      schema: POD,
      target: { metadata: { finalizers: ["a", "b"] } },
      patch: { metadata: { finalizers: ["b", "c"], "$deleteFromPrimitiveList/finalizers": ["a"] } },
      result: { metadata: { finalizers: ["b", "c"] } },
    },
    {
      name: "lists without a merge strategy (args, tolerations) are replaced",
      schema: POD,
      target: { spec: { tolerations: [{ key: "a" }], containers: [{ name: "a", args: ["x", "y"] }] } },
      patch: { spec: { tolerations: [{ key: "b" }], containers: [{ name: "a", args: ["z"] }] } },
      result: { spec: { tolerations: [{ key: "b" }], containers: [{ name: "a", args: ["z"] }] } },
    },
    {
      name: "without a schema every list is replaced",
      schema: schemas.schemaFor("example.com", "v1", "Widget"),
      target: { spec: { containers: [{ name: "a" }] } },
      patch: { spec: { containers: [{ name: "b" }] } },
      result: { spec: { containers: [{ name: "b" }] } },
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => assert.deepEqual(applyStrategicMergePatch(testCase.target, testCase.patch, testCase.schema), testCase.result));
  }
});
