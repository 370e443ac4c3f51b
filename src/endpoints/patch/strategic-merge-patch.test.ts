import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ORCH_PROFILE } from "../../api/profile.js";
import { builtinSchemas } from "../../api/schema/builtin.js";
import { ApiError } from "../../api/errors.js";
import { applyPatch } from "./apply-patch.js";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";

const schemas = builtinSchemas(ORCH_PROFILE);
const POD = schemas.schemaFor("", "v1", "Pod");
const SERVICE = schemas.schemaFor("", "v1", "Service");
const DEPLOYMENT = schemas.schemaFor("apps", "v1", "Deployment");

describe("applyStrategicMergePatch(): lists merge as the kind's schema says", () => {
  const cases: { name: string; schema: typeof POD; target: unknown; patch: unknown; result: unknown }[] = [
    {
      name: "pod containers merge by name, fields inside merge; items the live list lacks go before its own (kube's order)",
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
                { name: "Y", value: "2" },
                { name: "X", value: "1" },
              ],
            },
            { name: "c", image: "3" },
            { name: "b", image: "1" },
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

function names(list: unknown): string[] {
  return (list as { name: string }[]).map((item) => item.name);
}

describe("applyStrategicMergePatch(): merged lists are ordered as kube orders them", () => {
  it("a container a bare patch adds goes first (kube's kubectl-patch task shows patch-demo-ctr-2 before patch-demo-ctr)", () => {
    const result = applyStrategicMergePatch(
      { spec: { containers: [{ name: "patch-demo-ctr", image: "nginx" }] } },
      { spec: { containers: [{ name: "patch-demo-ctr-2", image: "redis" }] } },
      POD,
    ) as { spec: { containers: unknown } };
    assert.deepEqual(names(result.spec.containers), ["patch-demo-ctr-2", "patch-demo-ctr"]);
  });

  it("live items keep their places around the patch's: a live item goes first only when the live order puts it before the next patch item", () => {
    const result = applyStrategicMergePatch(
      { spec: { volumes: [{ name: "a" }, { name: "b" }, { name: "c" }] } },
      { spec: { volumes: [{ name: "b", emptyDir: {} }, { name: "d" }] } },
      POD,
    ) as { spec: { volumes: unknown } };
    assert.deepEqual(names(result.spec.volumes), ["a", "b", "d", "c"]);
  });

  it("a primitive merge list (finalizers) puts added values first", () => {
    assert.deepEqual(applyStrategicMergePatch({ metadata: { finalizers: ["a/x"] } }, { metadata: { finalizers: ["b/y"] } }, POD), {
      metadata: { finalizers: ["b/y", "a/x"] },
    });
  });

  it("$setElementOrder alone reorders the live list", () => {
    const result = applyStrategicMergePatch(
      { spec: { containers: [{ name: "a" }, { name: "b" }, { name: "c" }] } },
      { spec: { "$setElementOrder/containers": [{ name: "c" }, { name: "a" }, { name: "b" }] } },
      POD,
    ) as { spec: { containers: unknown } };
    assert.deepEqual(names(result.spec.containers), ["c", "a", "b"]);
  });

  it("$setElementOrder with deletions, as kubectl apply sends a reordered env list with one variable dropped", () => {
    const result = applyStrategicMergePatch(
      { spec: { containers: [{ name: "a", env: [{ name: "A" }, { name: "B" }, { name: "C" }] }] } },
      {
        spec: {
          containers: [{ name: "a", "$setElementOrder/env": [{ name: "C" }, { name: "A" }], env: [{ name: "B", $patch: "delete" }] }],
        },
      },
      POD,
    ) as { spec: { containers: { env: unknown }[] } };
    assert.deepEqual(names(result.spec.containers[0]?.env), ["C", "A"]);
  });

  it("$setElementOrder of a primitive list orders the merged values", () => {
    assert.deepEqual(
      applyStrategicMergePatch(
        { metadata: { finalizers: ["x", "y"] } },
        { metadata: { "$setElementOrder/finalizers": ["y", "z", "x"], finalizers: ["z"] } },
        POD,
      ),
      { metadata: { finalizers: ["y", "z", "x"] } },
    );
  });
});

describe("applyStrategicMergePatch(): malformed directives fail as kube's", () => {
  const failures: { name: string; patch: unknown; code: number; message: string }[] = [
    {
      name: "an unknown $patch in a map",
      patch: { metadata: { labels: { $patch: "frob" } } },
      code: 400,
      message: "unknown patch type: frob in map: map[$patch:frob]",
    },
    {
      name: "$patch: merge in a map (kube accepts only replace and delete there)",
      patch: { metadata: { labels: { $patch: "merge", q: "1" } } },
      code: 400,
      message: "unknown patch type: merge in map: map[$patch:merge q:1]",
    },
    {
      name: "$patch: merge in a list item",
      patch: { spec: { template: { spec: { containers: [{ name: "a", $patch: "merge" }] } } } },
      code: 400,
      message: "merging lists cannot yet be specified in the patch",
    },
    {
      name: "an unknown $patch in a list item",
      patch: { spec: { template: { spec: { containers: [{ name: "a", $patch: "frob" }] } } } },
      code: 400,
      message: "unknown patch type: frob in map: map[$patch:frob name:a]",
    },
    {
      name: "a list item without its merge key",
      patch: { spec: { template: { spec: { containers: [{ image: "x", ports: [{ containerPort: 80 }] }] } } } },
      code: 400,
      message: "map: map[image:x ports:[map[containerPort:80]]] does not contain declared merge key: name",
    },
    {
      name: "$patch: delete without the merge key",
      patch: { spec: { template: { spec: { containers: [{ $patch: "delete" }] } } } },
      code: 400,
      message: "map: map[$patch:delete] does not contain declared merge key: name",
    },
    {
      name: "$retainKeys that is not a list",
      patch: { spec: { strategy: { $retainKeys: "type" } } },
      code: 400,
      message: "invalid patch format of retainKeys",
    },
    {
      name: "a key beside $retainKeys that the list does not name",
      patch: { spec: { strategy: { $retainKeys: ["type"], type: "RollingUpdate", rollingUpdate: { maxSurge: 1 } } } },
      code: 400,
      message: "invalid patch format of retainKeys",
    },
    {
      name: "$setElementOrder that is not a list",
      patch: { spec: { template: { spec: { "$setElementOrder/containers": "a" } } } },
      code: 400,
      message: "invalid patch format of setElementOrder list",
    },
  ];
  const target = {
    metadata: { labels: { a: "1" } },
    spec: { strategy: { type: "Recreate" }, template: { spec: { containers: [{ name: "a", image: "i" }] } } },
  };
  for (const failure of failures) {
    it(`${failure.name}: ${String(failure.code)}`, () => {
      assert.throws(
        () => applyStrategicMergePatch(target, failure.patch, DEPLOYMENT),
        (error: unknown) => error instanceof ApiError && error.code === failure.code && error.message === failure.message,
      );
    });
  }
  it("kube's unclassified failures (its 500s without a reason) are 400 BadRequest here: hostile input is never a 5xx", () => {
    assert.throws(
      () => applyStrategicMergePatch(target, { metadata: { labels: { $patch: "frob" } } }, DEPLOYMENT),
      (error: unknown) => error instanceof ApiError && error.code === 400 && error.reason === "BadRequest",
    );
  });
  it("a patch that is not a JSON object is kube's map-decoding error (strategic merge, and merge with its error decoding patch: prefix)", () => {
    for (const [patch, type] of [
      [[{ op: "add" }], "array"],
      [5, "number"],
      ["x", "string"],
      [true, "bool"],
    ] as const) {
      const expected = `json: cannot unmarshal ${type} into Go value of type map[string]interface {}`;
      const is = (message: string) => (error: unknown) => error instanceof ApiError && error.code === 400 && error.message === message;
      assert.throws(() => applyPatch("strategic-merge-patch", target, patch, DEPLOYMENT), is(expected), type);
      assert.throws(() => applyPatch("merge-patch", target, patch), is(`error decoding patch: ${expected}`), type);
    }
  });
  it("$retainKeys clears the keys it does not name", () => {
    assert.deepEqual(
      applyStrategicMergePatch(
        { spec: { strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1 } } } },
        { spec: { strategy: { $retainKeys: ["type"], type: "Recreate" } } },
        DEPLOYMENT,
      ),
      { spec: { strategy: { type: "Recreate" } } },
    );
  });
});
