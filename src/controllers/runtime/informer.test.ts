import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ApiObject } from "../../api/object.js";
import type { FeedChange, ObjectFeed } from "../../authz/feed.js";
import { InformerFactory, type InformerView } from "./informer.js";

const PODS = { group: "", version: "v1", plural: "pods" };

function pod(name: string, namespace: string, extra: Record<string, unknown> = {}): ApiObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace, labels: { app: name } }, spec: { big: "x".repeat(100) }, ...extra };
}

/** A feed over a map of objects, whose changes the test pushes. */
function fakeFeed(initial: readonly ApiObject[]): { feed: ObjectFeed; push(change: FeedChange): void; objects: Map<string, ApiObject> } {
  const objects = new Map(initial.map((object) => [`${object.metadata.namespace}/${object.metadata.name}`, object]));
  const listeners = new Set<(change: FeedChange) => void>();
  return {
    objects,
    push(change) {
      if (change.kind === "set") objects.set(`${change.object.metadata.namespace}/${change.object.metadata.name}`, change.object);
      if (change.kind === "delete") objects.delete(`${change.previous.metadata.namespace}/${change.previous.metadata.name}`);
      for (const listener of listeners) listener(change);
    },
    feed: {
      objects: () => objects.values(),
      get: (namespace, name) => objects.get(`${namespace}/${name}`),
      subscribe(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
  };
}

/** Keeps only name, namespace and labels. */
const NAMES: InformerView = {
  name: "names",
  project: (object) => ({
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata: { name: object.metadata.name, namespace: object.metadata.namespace, labels: object.metadata.labels },
  }),
};

describe("informer views (kube's informer transform)", () => {
  it("keep and hand out the projected objects: index, reads and handlers alike", () => {
    const source = fakeFeed([pod("a", "ns"), pod("b", "other")]);
    const factory = new InformerFactory(() => source.feed);
    const narrowed = factory.indexed(PODS, NAMES);
    const seen: ApiObject[] = [];
    narrowed.addHandlers({
      onAdd: (object) => seen.push(object),
      onUpdate: (object, previous) => seen.push(object, previous),
      onDelete: (previous) => seen.push(previous),
    });
    assert.deepEqual(
      narrowed.listNamespace("ns").map((object) => object["spec"]),
      [undefined],
    );
    assert.equal(narrowed.get("other", "b")?.metadata.labels?.["app"], "b");
    source.push({ kind: "set", object: pod("c", "ns"), previous: undefined });
    source.push({ kind: "set", object: pod("c", "ns", { status: { phase: "Running" } }), previous: pod("c", "ns") });
    source.push({ kind: "delete", previous: pod("a", "ns") });
    assert.equal(seen.length, 4);
    for (const object of seen) assert.deepEqual(Object.keys(object), ["apiVersion", "kind", "metadata"]);
    assert.deepEqual(
      narrowed.listNamespace("ns").map((object) => object.metadata.name),
      ["c"],
    );
    assert.deepEqual(Object.keys(narrowed.get("ns", "c") ?? {}), ["apiVersion", "kind", "metadata"]);
  });

  it("are informers of their own: the resource's plain informer still hands out whole objects", () => {
    const source = fakeFeed([pod("a", "ns")]);
    const factory = new InformerFactory(() => source.feed);
    const narrowed = factory.indexed(PODS, NAMES);
    const whole = factory.indexed(PODS);
    assert.notEqual(narrowed, whole);
    assert.equal(factory.indexed(PODS, NAMES), narrowed, "one informer per view name");
    narrowed.addHandlers({});
    whole.addHandlers({});
    assert.equal(whole.get("ns", "a")?.["spec"] !== undefined, true);
    assert.equal(narrowed.get("ns", "a")?.["spec"], undefined);
    // Unindexed reads of a view are projected too.
    const unindexed = factory.informer({ ...PODS, plural: "pods" }, { ...NAMES, name: "names-2" });
    assert.deepEqual(
      unindexed.list().map((object) => Object.keys(object)),
      [["apiVersion", "kind", "metadata"]],
    );
    assert.equal(unindexed.get("ns", "a")?.["spec"], undefined);
  });

  it("are forgotten with their resource", () => {
    const source = fakeFeed([pod("a", "ns")]);
    const factory = new InformerFactory(() => source.feed);
    const narrowed = factory.informer(PODS, NAMES);
    const whole = factory.informer(PODS);
    factory.forget(PODS);
    assert.notEqual(factory.informer(PODS, NAMES), narrowed);
    assert.notEqual(factory.informer(PODS), whole);
  });
});
