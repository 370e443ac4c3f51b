import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiClient, ResourceRef } from "../../api/client.js";
import type { ApiObject } from "../../api/object.js";
import type { QuotaLedger } from "../../admission/plugins/index.js";
import type { InformerFactory, InformerHandlers } from "../runtime/informer.js";
import { quotaChangeNeedsRecount, quotaController } from "./quota-controller.js";

function quota(hard: Record<string, string>, status?: { hard?: Record<string, string>; used?: Record<string, string> }): ApiObject {
  return {
    apiVersion: "v1",
    kind: "ResourceQuota",
    metadata: { name: "cap", namespace: "team" },
    spec: { hard },
    ...(status === undefined ? {} : { status }),
  } as ApiObject;
}

describe("quotaChangeNeedsRecount", () => {
  it("recounts for a spec change or a status that does not capture the spec, never for a charge to status.used", () => {
    const charged = quota({ configmaps: "8" }, { hard: { configmaps: "8" }, used: { configmaps: "3" } });
    const cases: [string, ApiObject, ApiObject, boolean][] = [
      ["admission's charge (used 3 → 4)", quota({ configmaps: "8" }, { hard: { configmaps: "8" }, used: { configmaps: "4" } }), charged, false],
      ["unchanged (a resync's update)", charged, charged, false],
      ["spec.hard raised", quota({ configmaps: "9" }, { hard: { configmaps: "8" }, used: { configmaps: "3" } }), charged, true],
      ["a resource added to spec.hard", quota({ configmaps: "8", secrets: "2" }, { hard: { configmaps: "8" }, used: { configmaps: "3" } }), charged, true],
      ["status.hard behind the spec", quota({ configmaps: "8" }, { hard: { configmaps: "7" }, used: { configmaps: "3" } }), charged, true],
      ["no status yet", quota({ configmaps: "8" }), quota({ configmaps: "8" }), true],
      ["a limited resource without used", quota({ configmaps: "8" }, { hard: { configmaps: "8" }, used: {} }), charged, true],
    ];
    for (const [name, current, previous, expected] of cases) assert.equal(quotaChangeNeedsRecount(current, previous), expected, name);
  });
});

describe("the quota controller's quota handler", () => {
  // Servers sharing etcd: another server's charge writes status.used before its object is stored.
  // A recount here then (this server's ledger does not know that charge) wrote the lower count
  // back, and concurrent creates through three servers stored 9 config maps under a quota of 8.
  it("queues a namespace for a quota's spec change, not for a charge written to its status", () => {
    let handlers: InformerHandlers | undefined;
    const quotaInformer = {
      addHandlers(given: InformerHandlers) {
        handlers = given;
        return () => {};
      },
      list: () => [],
      listNamespace: () => [],
    };
    const informers = {
      indexed: () => quotaInformer,
      informer: (resource: ResourceRef) => ({ resource, addHandlers: () => () => {} }),
    } as unknown as InformerFactory;
    const spec = quotaController({ client: {} as ApiClient, informers, ledger: {} as QuotaLedger });
    const queued: string[] = [];
    const stop = spec.watch({ add: (key) => queued.push(key), addAfter: () => {} });
    const before = quota({ configmaps: "8" }, { hard: { configmaps: "8" }, used: { configmaps: "3" } });
    handlers?.onUpdate?.(quota({ configmaps: "8" }, { hard: { configmaps: "8" }, used: { configmaps: "4" } }), before);
    assert.deepEqual(queued, [], "a charge does not recount");
    handlers?.onUpdate?.(quota({ configmaps: "9" }, { hard: { configmaps: "8" }, used: { configmaps: "3" } }), before);
    assert.deepEqual(queued, ["team"], "a spec change does");
    stop();
  });
});
