import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ORCH_PROFILE } from "../api/profile.js";
import { DEDUCED, type FieldType } from "../api/schema/field-type.js";
import { fieldTypeFromOpenApi } from "../api/schema/openapi.js";
import { pathString } from "./path.js";
import { reconcileWithSchema } from "./reconcile.js";
import { ConflictError, Updater, type VersionedSet } from "./updater.js";

/** Markers spelled with the profile's prefix, as the schemas of #4 will carry them. */
const prefix = ORCH_PROFILE.openApiExtensionPrefixes[0] ?? "";
const ext = (name: string, value: unknown): Record<string, unknown> => ({ [`${prefix}${name}`]: value });
const schema = (value: Record<string, unknown>): FieldType => fieldTypeFromOpenApi(value, { extensionPrefixes: ORCH_PROFILE.openApiExtensionPrefixes });

const TYPE = schema({
  type: "object",
  properties: {
    replicas: { type: "integer" },
    args: { type: "array", items: { type: "string" } },
    finalizers: { type: "array", items: { type: "string" }, ...ext("list-type", "set") },
    labels: { type: "object", additionalProperties: { type: "string" } },
    selector: { type: "object", ...ext("map-type", "atomic") },
    containers: {
      type: "array",
      ...ext("list-type", "map"),
      ...ext("list-map-keys", ["name"]),
      items: {
        type: "object",
        properties: {
          image: { type: "string" },
          env: { type: "array", items: { type: "object", properties: {} }, ...ext("patch-strategy", "merge"), ...ext("patch-merge-key", "name") },
          ports: {
            type: "array",
            ...ext("list-type", "map"),
            ...ext("list-map-keys", ["containerPort", "protocol"]),
            items: { type: "object", properties: { protocol: { type: "string", default: "TCP" } } },
          },
          tags: { type: "array", items: { type: "string" }, ...ext("list-type", "set") },
        },
      },
    },
  },
});

type Step =
  | { readonly apply: string; readonly config: Record<string, unknown>; readonly force?: boolean; readonly conflicts?: readonly string[] }
  | { readonly update: string; readonly object: Record<string, unknown> };

interface Case {
  readonly name: string;
  readonly type?: FieldType;
  readonly steps: readonly Step[];
  readonly object: Record<string, unknown>;
  /** Manager → owned paths, as kube prints them. */
  readonly owners: Readonly<Record<string, readonly string[]>>;
}

/** Runs steps from an empty object; conflicting steps must fail with exactly the listed conflicts and change nothing. */
function run(testCase: Case): { object: unknown; managers: ReadonlyMap<string, VersionedSet> } {
  const updater = new Updater({ type: testCase.type ?? TYPE });
  let object: unknown = {};
  let managers: ReadonlyMap<string, VersionedSet> = new Map();
  for (const step of testCase.steps) {
    if ("update" in step) {
      managers = updater.update(object, step.object, "v1", managers, step.update);
      object = step.object;
      continue;
    }
    if (step.conflicts !== undefined) {
      assert.throws(
        () => updater.apply(object, step.config, "v1", managers, step.apply, step.force ?? false),
        (error: unknown) => {
          assert.ok(error instanceof ConflictError);
          assert.deepEqual(error.conflicts.map((conflict) => `${conflict.manager} ${pathString(conflict.path)}`).sort(), [...(step.conflicts ?? [])].sort());
          return true;
        },
      );
      continue;
    }
    const result = updater.apply(object, step.config, "v1", managers, step.apply, step.force ?? false);
    object = result.object;
    managers = result.managers;
  }
  return { object, managers };
}

function owners(managers: ReadonlyMap<string, VersionedSet>): Record<string, string[]> {
  return Object.fromEntries([...managers].map(([manager, owned]) => [manager, owned.set.leaves().paths().map(pathString)]));
}

const CASES: readonly Case[] = [
  // scalars
  {
    name: "a scalar set by an applier is owned by it",
    steps: [{ apply: "a", config: { replicas: 1 } }],
    object: { replicas: 1 },
    owners: { a: [".replicas"] },
  },
  {
    name: "a different value for a field another applier owns conflicts",
    steps: [
      { apply: "a", config: { replicas: 1 } },
      { apply: "b", config: { replicas: 2 }, conflicts: ["a .replicas"] },
    ],
    object: { replicas: 1 },
    owners: { a: [".replicas"] },
  },
  {
    name: "force takes the field over and removes it from the other manager",
    steps: [
      { apply: "a", config: { replicas: 1, args: ["x"] } },
      { apply: "b", config: { replicas: 2 }, force: true },
    ],
    object: { replicas: 2, args: ["x"] },
    owners: { a: [".args"], b: [".replicas"] },
  },
  {
    name: "the same value is shared ownership",
    steps: [
      { apply: "a", config: { replicas: 1 } },
      { apply: "b", config: { replicas: 1 } },
    ],
    object: { replicas: 1 },
    owners: { a: [".replicas"], b: [".replicas"] },
  },
  {
    name: "changing a shared field from either applier conflicts with the other",
    steps: [
      { apply: "a", config: { replicas: 1 } },
      { apply: "b", config: { replicas: 1 } },
      { apply: "b", config: { replicas: 3 }, conflicts: ["a .replicas"] },
    ],
    object: { replicas: 1 },
    owners: { a: [".replicas"], b: [".replicas"] },
  },
  {
    name: "a field dropped from an apply is removed when nobody else owns it",
    steps: [
      { apply: "a", config: { replicas: 1, args: ["x"] } },
      { apply: "a", config: { args: ["x"] } },
    ],
    object: { args: ["x"] },
    owners: { a: [".args"] },
  },
  {
    name: "a shared field dropped by one applier stays, owned by the other",
    steps: [
      { apply: "a", config: { replicas: 1 } },
      { apply: "b", config: { replicas: 1 } },
      { apply: "a", config: {} },
    ],
    object: { replicas: 1 },
    owners: { b: [".replicas"] },
  },
  {
    name: "a field dropped by an applier stays when an updater changed it since",
    steps: [
      { apply: "a", config: { replicas: 1 } },
      { update: "u", object: { replicas: 5 } },
      { apply: "a", config: {} },
    ],
    object: { replicas: 5 },
    owners: { u: [".replicas"] },
  },
  {
    name: "non-apply writes take what they change and never conflict",
    steps: [
      { apply: "a", config: { replicas: 1, args: ["x"] } },
      { update: "u", object: { replicas: 2, args: ["x"] } },
    ],
    object: { replicas: 2, args: ["x"] },
    owners: { a: [".args"], u: [".replicas"] },
  },
  {
    name: "a field an updater removes is released by everyone",
    steps: [
      { apply: "a", config: { replicas: 1, args: ["x"] } },
      { update: "u", object: { args: ["x"] } },
    ],
    object: { args: ["x"] },
    owners: { a: [".args"] },
  },
  // atomic lists
  {
    name: "an atomic list is one value with one owner: any change conflicts",
    steps: [
      { apply: "a", config: { args: ["x", "y"] } },
      { apply: "b", config: { args: ["x", "y", "z"] }, conflicts: ["a .args"] },
    ],
    object: { args: ["x", "y"] },
    owners: { a: [".args"] },
  },
  {
    name: "an atomic list is replaced whole by its new owner",
    steps: [
      { apply: "a", config: { args: ["x", "y"] } },
      { apply: "b", config: { args: ["z"] }, force: true },
    ],
    object: { args: ["z"] },
    owners: { b: [".args"] },
  },
  // sets
  {
    name: "set items are owned one by one and merge between appliers",
    steps: [
      { apply: "a", config: { finalizers: ["x"] } },
      { apply: "b", config: { finalizers: ["y"] } },
    ],
    object: { finalizers: ["x", "y"] },
    owners: { a: ['.finalizers[="x"]'], b: ['.finalizers[="y"]'] },
  },
  {
    name: "a set item dropped by its applier is removed, others' stay",
    steps: [
      { apply: "a", config: { finalizers: ["x", "z"] } },
      { apply: "b", config: { finalizers: ["y"] } },
      { apply: "a", config: { finalizers: ["z"] } },
    ],
    object: { finalizers: ["z", "y"] },
    owners: { a: ['.finalizers[="z"]'], b: ['.finalizers[="y"]'] },
  },
  // map lists
  {
    name: "map list items are merged by key and their fields owned separately",
    steps: [
      { apply: "a", config: { containers: [{ name: "web", image: "nginx" }] } },
      { apply: "b", config: { containers: [{ name: "log", image: "fluentd" }] } },
    ],
    object: {
      containers: [
        { name: "web", image: "nginx" },
        { name: "log", image: "fluentd" },
      ],
    },
    owners: { a: ['.containers[name="web"].image', '.containers[name="web"].name'], b: ['.containers[name="log"].image', '.containers[name="log"].name'] },
  },
  {
    name: "changing a field inside another applier's item conflicts on that field only",
    steps: [
      { apply: "a", config: { containers: [{ name: "web", image: "nginx" }] } },
      { apply: "b", config: { containers: [{ name: "web", image: "httpd" }] }, conflicts: ['a .containers[name="web"].image'] },
    ],
    object: { containers: [{ name: "web", image: "nginx" }] },
    owners: { a: ['.containers[name="web"].image', '.containers[name="web"].name'] },
  },
  {
    name: "a co-owned item keeps the fields its other owner applies when one applier drops it",
    steps: [
      { apply: "a", config: { containers: [{ name: "web", image: "nginx" }] } },
      { apply: "b", config: { containers: [{ name: "web", tags: ["t"] }] } },
      { apply: "a", config: {} },
    ],
    object: { containers: [{ name: "web", tags: ["t"] }] },
    owners: { b: ['.containers[name="web"].name', '.containers[name="web"].tags[="t"]'] },
  },
  {
    name: "an item dropped by its only applier is removed whole",
    steps: [
      {
        apply: "a",
        config: {
          containers: [
            { name: "web", image: "nginx" },
            { name: "log", image: "fluentd" },
          ],
        },
      },
      { apply: "a", config: { containers: [{ name: "log", image: "fluentd" }] } },
    ],
    object: { containers: [{ name: "log", image: "fluentd" }] },
    owners: { a: ['.containers[name="log"].image', '.containers[name="log"].name'] },
  },
  {
    name: "list-map keys omitted by an item take the schema's default",
    steps: [
      { apply: "a", config: { containers: [{ name: "web", ports: [{ containerPort: 80 }] }] } },
      { apply: "b", config: { containers: [{ name: "web", ports: [{ containerPort: 80, protocol: "TCP", name: "http" }] }] } },
    ],
    object: { containers: [{ name: "web", ports: [{ containerPort: 80, protocol: "TCP", name: "http" }] }] },
    owners: {
      a: ['.containers[name="web"].name', '.containers[name="web"].ports[containerPort=80,protocol="TCP"].containerPort'],
      b: [
        '.containers[name="web"].name',
        '.containers[name="web"].ports[containerPort=80,protocol="TCP"].containerPort',
        '.containers[name="web"].ports[containerPort=80,protocol="TCP"].name',
        '.containers[name="web"].ports[containerPort=80,protocol="TCP"].protocol',
      ],
    },
  },
  {
    name: "a patch merge key without a list type makes a map list",
    steps: [
      { apply: "a", config: { containers: [{ name: "web", env: [{ name: "A", value: "1" }] }] } },
      { apply: "b", config: { containers: [{ name: "web", env: [{ name: "B", value: "2" }] }] } },
    ],
    object: {
      containers: [
        {
          name: "web",
          env: [
            { name: "A", value: "1" },
            { name: "B", value: "2" },
          ],
        },
      ],
    },
    owners: {
      a: ['.containers[name="web"].env[name="A"].name', '.containers[name="web"].env[name="A"].value', '.containers[name="web"].name'],
      b: ['.containers[name="web"].env[name="B"].name', '.containers[name="web"].env[name="B"].value', '.containers[name="web"].name'],
    },
  },
  {
    name: "shared items keep the applier's order, live-only items keep their place",
    steps: [
      { update: "u", object: { containers: [{ name: "a" }, { name: "b" }, { name: "c" }] } },
      { apply: "x", config: { containers: [{ name: "c" }, { name: "a" }, { name: "d" }] } },
    ],
    object: { containers: [{ name: "b" }, { name: "c" }, { name: "a" }, { name: "d" }] },
    owners: {
      u: ['.containers[name="a"].name', '.containers[name="b"].name', '.containers[name="c"].name'],
      x: ['.containers[name="a"].name', '.containers[name="c"].name', '.containers[name="d"].name'],
    },
  },
  // maps
  {
    name: "granular map entries are owned one by one",
    steps: [
      { apply: "a", config: { labels: { x: "1" } } },
      { apply: "b", config: { labels: { y: "2" } } },
      { apply: "a", config: {} },
    ],
    object: { labels: { y: "2" } },
    owners: { b: [".labels.y"] },
  },
  {
    name: "an atomic map is one value: a change to any key conflicts",
    steps: [
      { apply: "a", config: { selector: { app: "web" } } },
      { apply: "b", config: { selector: { app: "web", tier: "x" } }, conflicts: ["a .selector"] },
    ],
    object: { selector: { app: "web" } },
    owners: { a: [".selector"] },
  },
  {
    name: "an atomic map is replaced whole, not merged",
    steps: [
      { apply: "a", config: { selector: { app: "web" } } },
      { apply: "a", config: { selector: { tier: "x" } } },
    ],
    object: { selector: { tier: "x" } },
    owners: { a: [".selector"] },
  },
  // schema-less
  {
    name: "without a schema keys are granular and lists atomic",
    type: DEDUCED,
    steps: [
      { apply: "a", config: { spec: { x: 1, list: [1, 2] } } },
      { apply: "b", config: { spec: { y: 2 } } },
      { apply: "b", config: { spec: { list: [3] } }, conflicts: ["a .spec.list"] },
    ],
    object: { spec: { x: 1, list: [1, 2], y: 2 } },
    owners: { a: [".spec.list", ".spec.x"], b: [".spec.y"] },
  },
];

describe("Updater: structured merge with field ownership", () => {
  for (const testCase of CASES) {
    it(testCase.name, () => {
      const { object, managers } = run(testCase);
      assert.deepEqual(object, testCase.object);
      assert.deepEqual(owners(managers), testCase.owners);
    });
  }

  it("lists every conflicting field with its manager", () => {
    const updater = new Updater({ type: TYPE });
    let state = updater.apply({}, { replicas: 1, labels: { x: "1" } }, "v1", new Map(), "a", false);
    state = updater.apply(state.object, { args: ["q"] }, "v1", state.managers, "b", false);
    assert.throws(
      () => updater.apply(state.object, { replicas: 2, labels: { x: "2" }, args: ["r"] }, "v1", state.managers, "c", false),
      (error: unknown) =>
        error instanceof ConflictError &&
        error.conflicts
          .map((conflict) => `${conflict.manager} ${pathString(conflict.path)}`)
          .sort()
          .join(",") === "a .labels.x,a .replicas,b .args",
    );
  });
});

describe("reconcileWithSchema(): topology changes", () => {
  const granular = schema({
    type: "object",
    properties: {
      selector: { type: "object", additionalProperties: { type: "string" } },
      list: { type: "array", items: { type: "string" }, ...ext("list-type", "set") },
    },
  });
  const atomic = schema({
    type: "object",
    properties: { selector: { type: "object", ...ext("map-type", "atomic") }, list: { type: "array", items: { type: "string" } } },
  });

  it("granular → atomic: whoever owned part of the value owns all of it, and later changes conflict", () => {
    const before = new Updater({ type: granular });
    const state = before.apply({}, { selector: { a: "1" }, list: ["x"] }, "v1", new Map(), "a", false);
    const owned = state.managers.get("a");
    assert.ok(owned !== undefined);
    const reconciled = reconcileWithSchema(owned.set, atomic);
    assert.deepEqual(reconciled.leaves().paths().map(pathString), [".list", ".selector"]);
    const after = new Updater({ type: atomic });
    assert.throws(
      () => after.apply(state.object, { selector: { a: "1", b: "2" } }, "v1", new Map([["a", { ...owned, set: reconciled }]]), "b", false),
      ConflictError,
    );
  });

  it("atomic → granular: ownership cannot be split, so nothing conflicts on the next change", () => {
    const before = new Updater({ type: atomic });
    const state = before.apply({}, { selector: { a: "1" } }, "v1", new Map(), "a", false);
    const owned = state.managers.get("a");
    assert.ok(owned !== undefined);
    assert.ok(reconcileWithSchema(owned.set, granular) === owned.set, "unchanged");
    const after = new Updater({ type: granular });
    const result = after.apply(state.object, { selector: { a: "2" } }, "v1", state.managers, "b", false);
    assert.deepEqual(result.object, { selector: { a: "2" } });
  });
});
