import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ApiObject } from "../api/object.js";
import { defineResource } from "./resources/define.js";
import {
  APPS_SCALE,
  labelMapString,
  labelSelectorString,
  parentApplyConfiguration,
  parentWithScale,
  REPLICATION_CONTROLLER_SCALE,
  scaleOf,
  withDesiredReplicas,
} from "./scale.js";

const deployments = defineResource({ group: "apps", version: "v1", kind: "Deployment", plural: "deployments", scope: "Namespaced", scale: APPS_SCALE });
const controllers = defineResource({
  group: "",
  version: "v1",
  kind: "ReplicationController",
  plural: "replicationcontrollers",
  scope: "Namespaced",
  scale: REPLICATION_CONTROLLER_SCALE,
});

const META = {
  name: "web",
  namespace: "team",
  uid: "u-1",
  resourceVersion: "42",
  creationTimestamp: "2026-01-01T00:00:00Z",
  generation: 3,
  labels: { a: "b" },
};

describe("labelSelectorString(): a LabelSelector as kube's selector string", () => {
  const cases: { name: string; selector: unknown; expected: string }[] = [
    { name: "no selector", selector: undefined, expected: "" },
    { name: "an empty selector", selector: {}, expected: "" },
    { name: "labels, by key", selector: { matchLabels: { tier: "web", app: "shop" } }, expected: "app=shop,tier=web" },
    {
      name: "every operator, by key, values sorted",
      selector: {
        matchExpressions: [
          { key: "zone", operator: "NotIn", values: ["b", "a"] },
          { key: "env", operator: "In", values: ["prod", "canary"] },
          { key: "legacy", operator: "DoesNotExist" },
          { key: "canary", operator: "Exists" },
        ],
      },
      expected: "canary,env in (canary,prod),!legacy,zone notin (a,b)",
    },
    {
      name: "a label before an expression on the same key",
      selector: { matchLabels: { app: "x" }, matchExpressions: [{ key: "app", operator: "In", values: ["x"] }] },
      expected: "app=x,app in (x)",
    },
  ];
  for (const { name, selector, expected } of cases) {
    it(`renders ${name}`, () => assert.equal(labelSelectorString(selector), expected));
  }
});

describe("labelMapString(): a label map as a selector string", () => {
  it("joins the labels by key", () => assert.equal(labelMapString({ b: "2", a: "1" }), "a=1,b=2"));
  it("renders no map as an empty string", () => assert.equal(labelMapString(undefined), ""));
});

describe("scaleOf(): the Scale of a parent", () => {
  it("copies identity metadata, desired and observed replicas and the selector", () => {
    const parent: ApiObject = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: META,
      spec: { replicas: 3, selector: { matchLabels: { app: "web" } } },
      status: { replicas: 2 },
    };
    assert.deepEqual(scaleOf(deployments, parent), {
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      metadata: { name: "web", namespace: "team", uid: "u-1", resourceVersion: "42", creationTimestamp: "2026-01-01T00:00:00Z" },
      spec: { replicas: 3 },
      status: { replicas: 2, selector: "app=web" },
    });
  });

  it("leaves out zero desired replicas and an empty selector, and reads no status as 0", () => {
    const parent: ApiObject = { metadata: { name: "idle" }, spec: { replicas: 0 } };
    assert.deepEqual(scaleOf(deployments, parent), {
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      metadata: { name: "idle" },
      spec: {},
      status: { replicas: 0 },
    });
  });

  it("renders a ReplicationController's label map selector", () => {
    const parent: ApiObject = { metadata: { name: "rc" }, spec: { replicas: 1, selector: { tier: "db", app: "x" } } };
    assert.equal((scaleOf(controllers, parent)["status"] as Record<string, unknown>)["selector"], "app=x,tier=db");
  });

  it("fills the kind's default when the parent has no desired replicas", () => {
    const defaulting = {
      ...deployments,
      schema: {
        id: "test",
        unknownFields: () => [],
        decodeMismatch: () => undefined,
        validate: () => [],
        applyDefaults: (object: ApiObject) => {
          Object.assign(object, { spec: { replicas: 1 } });
          return true;
        },
      },
    };
    assert.deepEqual(scaleOf(defaulting, { metadata: { name: "web" }, spec: {} })["spec"], { replicas: 1 });
  });
});

describe("parentWithScale(): the parent a Scale write stores", () => {
  const current: ApiObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: META, spec: { replicas: 3, paused: true }, status: { replicas: 3 } };

  it("takes only the desired replicas and the resourceVersion precondition, leaving the argument alone", () => {
    const next = parentWithScale(deployments, current, {
      metadata: { name: "web", resourceVersion: "41", labels: { x: "y" } },
      spec: { replicas: 7 },
      status: { replicas: 99 },
    });
    assert.deepEqual(next, { ...current, metadata: { ...META, resourceVersion: "41" }, spec: { replicas: 7, paused: true } });
    assert.equal((current["spec"] as Record<string, unknown>)["replicas"], 3);
  });

  it("reads absent replicas as 0 and writes unconditionally without a resourceVersion", () => {
    const next = parentWithScale(deployments, current, { metadata: { name: "web" }, spec: {} });
    assert.equal((next["spec"] as Record<string, unknown>)["replicas"], 0);
    assert.equal(next.metadata.resourceVersion, undefined);
  });
});

describe("parentApplyConfiguration(): a Scale apply configuration for the parent kind", () => {
  it("keeps the name, resourceVersion and desired replicas under the parent's kind", () => {
    const config: ApiObject = {
      apiVersion: "autoscaling/v1",
      kind: "Scale",
      metadata: { name: "rc", resourceVersion: "9", labels: { ignored: "yes" } },
      spec: { replicas: 2 },
    };
    assert.deepEqual(parentApplyConfiguration(controllers, config), {
      apiVersion: "v1",
      kind: "ReplicationController",
      metadata: { name: "rc", resourceVersion: "9" },
      spec: { replicas: 2 },
    });
  });

  it("applies no replicas when the configuration has none", () => {
    assert.deepEqual(parentApplyConfiguration(deployments, { metadata: { name: "web" } }), {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
    });
  });
});

describe("withDesiredReplicas(): what the store keeps of a scale write", () => {
  it("changes only the desired replicas of the stored object", () => {
    const stored: ApiObject = { metadata: { name: "web", labels: { a: "b" } }, spec: { replicas: 1, paused: true } };
    const built: ApiObject = { metadata: { name: "web", labels: { c: "d" } }, spec: { replicas: 4, paused: false } };
    assert.deepEqual(withDesiredReplicas(APPS_SCALE, stored, built), { metadata: { name: "web", labels: { a: "b" } }, spec: { replicas: 4, paused: true } });
  });
});
