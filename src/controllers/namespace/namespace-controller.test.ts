import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiObject } from "../../api/object.js";
import type { ApiClient } from "../../api/client.js";
import type { FeedChange, ObjectFeed } from "../../authz/feed.js";
import { InformerFactory } from "../runtime/informer.js";
import { namespaceController } from "./namespace-controller.js";

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
