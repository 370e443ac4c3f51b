import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../testing/in-process.js";
import { apiGroup, ORCH_PROFILE } from "../../api/profile.js";

const EXTENSIONS = apiGroup(ORCH_PROFILE, "apiextensions");
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
    const spec = quotaController({ client: { servedResources: () => [] } as unknown as ApiClient, informers, ledger: {} as QuotaLedger });
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

describe("the quota controller gives back a deleted object's usage, whatever its kind (in process)", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer();
    assert.equal(
      (await server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "counted" } } })).status,
      201,
    );
  });
  after(() => server.stop());

  /** Polls until `check` holds (the controller works off the watch cache), failing after 5 s. */
  async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 5_000;
    while (!(await check())) {
      if (Date.now() > deadline) assert.fail(`not within 5 s: ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function createQuotaAndCycle(hard: Record<string, string>, path: string, body: (name: string) => Record<string, unknown>): Promise<void> {
    const name = Object.keys(hard)[0]?.replace(/[^a-z]/g, "") ?? "q";
    const quota = { apiVersion: "v1", kind: "ResourceQuota", metadata: { name }, spec: { hard } };
    assert.equal((await server.call("POST", "/api/v1/namespaces/counted/resourcequotas", { body: quota })).status, 201);
    assert.equal((await server.call("POST", path, { body: body("first") })).status, 201);
    const refused = await server.call("POST", path, { body: body("second") });
    assert.equal(refused.status, 403, refused.text);
    assert.equal((await server.call("DELETE", `${path}/first`)).status, 200);
    await eventually(
      async () => (await server.call("POST", path, { body: body("second") })).status === 201,
      `a second object after the first's delete (${path})`,
    );
  }

  it("a Deployment (count/deployments.apps)", async () => {
    await createQuotaAndCycle({ "count/deployments.apps": "1" }, "/apis/apps/v1/namespaces/counted/deployments", (name) => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name },
      spec: {
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "x" }] } },
      },
    }));
  });

  it("a custom resource whose definition was created after start (count/widgets.example.com)", async () => {
    const crd = {
      apiVersion: `${EXTENSIONS}/v1`,
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.example.com" },
      spec: {
        group: "example.com",
        scope: "Namespaced",
        names: { plural: "widgets", singular: "widget", kind: "Widget" },
        versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
      },
    };
    const created = await server.call("POST", `/apis/${EXTENSIONS}/v1/customresourcedefinitions`, { body: crd });
    assert.equal(created.status, 201, created.text);
    const path = "/apis/example.com/v1/namespaces/counted/widgets";
    await eventually(async () => (await server.call("GET", path)).status === 200, "the widgets resource served");
    await createQuotaAndCycle({ "count/widgets.example.com": "1" }, path, (name) => ({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name } }));
  });
});
