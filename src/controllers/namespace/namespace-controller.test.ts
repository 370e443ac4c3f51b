import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiObject } from "../../api/object.js";
import type { ApiClient } from "../../api/client.js";
import type { FeedChange, ObjectFeed } from "../../authz/feed.js";
import { InformerFactory } from "../runtime/informer.js";
import { namespaceConditions, namespaceController } from "./namespace-controller.js";

/** A feed over a fixed set of objects (no changes). */
function fixedFeed(objects: readonly ApiObject[]): ObjectFeed {
  return {
    objects: () => objects,
    get: (namespace, name) => objects.find((object) => (object.metadata.namespace ?? "") === namespace && object.metadata.name === name),
    subscribe: (_listener: (change: FeedChange) => void) => () => {},
  };
}

/** A client whose namespaced resources still hold `left` objects; records finalize calls. */
function client(left: number, finalized: string[]): ApiClient {
  return {
    namespacedResources: () => [{ group: "", version: "v1", plural: "configmaps" }],
    servedResources: () => [],
    list: async () => ({ items: Array.from({ length: left }, (_, index) => ({ metadata: { name: `cm-${index}` } }) as ApiObject), resourceVersion: "1" }),
    deleteCollection: async () => {},
    create: async (_resource, _namespace, object) => object,
    update: async (_resource, _namespace, _name, object) => object,
    updateSubresource: async (_resource, _namespace, name, subresource, object) => {
      if (subresource === "finalize") finalized.push(name);
      return object;
    },
    get: async (_resource, _namespace, name) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name }, spec: { finalizers: ["test/finalizer"] } }),
    delete: async () => false,
    changed: async function* () {},
  };
}

const terminating: ApiObject = {
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name: "going", deletionTimestamp: "2026-01-01T00:00:00Z" },
  spec: { finalizers: ["test/finalizer"] },
};
const active: ApiObject = { apiVersion: "v1", kind: "Namespace", metadata: { name: "staying" }, spec: { finalizers: ["test/finalizer"] } };

describe("namespace controller (work queue)", () => {
  const informers = (): InformerFactory => new InformerFactory(() => fixedFeed([terminating, active]));

  it("queues only terminating namespaces at start", () => {
    const spec = namespaceController({ client: client(0, []), informers: informers(), finalizer: "test/finalizer" });
    assert.deepEqual([...spec.initialKeys()], ["going"]);
  });

  it("finalizes an emptied namespace and asks for another pass while objects are left", async () => {
    const finalized: string[] = [];
    const emptied = namespaceController({ client: client(0, finalized), informers: informers(), finalizer: "test/finalizer", resyncMs: 250 });
    assert.equal(await emptied.reconcile("going"), undefined);
    assert.deepEqual(finalized, ["going"]);
    const busy = namespaceController({ client: client(2, finalized), informers: informers(), finalizer: "test/finalizer", resyncMs: 250 });
    assert.equal(await busy.reconcile("going"), 250);
    assert.equal(await busy.reconcile("staying"), undefined, "an active namespace is left alone");
    assert.deepEqual(finalized, ["going"]);
  });
});

describe("namespace deletion conditions (kube's namespace deleter)", () => {
  const empty = { resources: new Map<string, number>(), finalizers: new Map<string, number>(), errors: [] as string[] };
  const held = {
    resources: new Map([
      ["widgets.example.com", 2],
      ["configmaps.", 1],
    ]),
    finalizers: new Map([
      ["b.example.com/x", 1],
      ["a.example.com/y", 2],
    ]),
    errors: [] as string[],
  };
  const summary = (conditions: readonly Record<string, unknown>[]) =>
    conditions.map((c) => [c["type"], c["status"], c["reason"], c["message"], c["lastTransitionTime"]]);

  it("adds the five types in kube's order: the ok ones False, what is left True with sorted counts", () => {
    const conditions = namespaceConditions([], held, "T1");
    assert.deepEqual(summary(conditions ?? []), [
      ["NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered", "All resources successfully discovered", "T1"],
      ["NamespaceDeletionGroupVersionParsingFailure", "False", "ParsedGroupVersions", "All legacy kube types successfully parsed", "T1"],
      ["NamespaceDeletionContentFailure", "False", "ContentDeleted", "All content successfully deleted, may be waiting on finalization", "T1"],
      [
        "NamespaceContentRemaining",
        "True",
        "SomeResourcesRemain",
        "Some resources are remaining: configmaps. has 1 resource instances, widgets.example.com has 2 resource instances",
        "T1",
      ],
      [
        "NamespaceFinalizersRemaining",
        "True",
        "SomeFinalizersRemain",
        "Some content in the namespace has finalizers remaining: a.example.com/y in 2 resource instances, b.example.com/x in 1 resource instances",
        "T1",
      ],
    ]);
  });

  it("reports objects left without finalizers as a content deletion failure", () => {
    const conditions = namespaceConditions([], { ...empty, errors: ["b", "a"] }, "T1") ?? [];
    const failure = conditions.find((c) => c["type"] === "NamespaceDeletionContentFailure");
    assert.deepEqual(
      [failure?.["status"], failure?.["reason"], failure?.["message"]],
      ["True", "ContentDeletionFailed", "Failed to delete all resource types, 2 remaining: a, b"],
    );
  });

  it("changes the transition time only when a status flips, keeps other types, and reports no change when nothing changed", () => {
    const first = [{ type: "Other", status: "True" }, ...(namespaceConditions([], held, "T1") ?? [])];
    const fewer = { ...held, resources: new Map([["configmaps.", 1]]) };
    const second = namespaceConditions(first, fewer, "T2") ?? [];
    assert.deepEqual(second[0], { type: "Other", status: "True" });
    const remaining = second.find((c) => c["type"] === "NamespaceContentRemaining");
    assert.equal(remaining?.["message"], "Some resources are remaining: configmaps. has 1 resource instances");
    assert.equal(remaining?.["lastTransitionTime"], "T1", "same status: only reason and message change");
    const cleared = namespaceConditions(second, empty, "T3") ?? [];
    const gone = cleared.find((c) => c["type"] === "NamespaceContentRemaining");
    assert.deepEqual([gone?.["status"], gone?.["reason"], gone?.["lastTransitionTime"]], ["False", "ContentRemoved", "T3"]);
    assert.equal(namespaceConditions(cleared, empty, "T4"), undefined);
  });

  it("writes them to the namespace's status before it finalizes", async () => {
    const writes: string[] = [];
    const base = client(0, writes);
    const recording: ApiClient = {
      ...base,
      updateSubresource: async (resource, namespace, name, subresource, object) => {
        writes.push(subresource);
        const conditions = (object["status"] as Record<string, unknown> | undefined)?.["conditions"];
        if (subresource === "status") assert.equal(Array.isArray(conditions) ? conditions.length : 0, 5);
        return base.updateSubresource(resource, namespace, name, subresource, object);
      },
    };
    const spec = namespaceController({ client: recording, informers: new InformerFactory(() => fixedFeed([terminating])), finalizer: "test/finalizer" });
    assert.equal(await spec.reconcile("going"), undefined);
    assert.deepEqual(writes, ["status", "finalize", "going"]);
  });
});
