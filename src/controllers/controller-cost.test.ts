import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../testing/in-process.js";

/**
 * A guard on what controllers do per change, counted rather than timed: creating pods must not
 * make a controller list a resource per event (a list costs every stored object, so a create
 * would cost more as the store grows). Only admission's per-request lookups may list, at most a
 * fixed number per create.
 */

type Server = Awaited<ReturnType<typeof inProcessServer>>;

const NS = "cost-guard";
/** The lists admission makes for one pod create (LimitRanger, ResourceQuota, Priority). */
const ADMISSION_LISTS_PER_CREATE = 3;

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 1000; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

function pod(name: string, app: string): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels: { app } },
    spec: { containers: [{ name: "c", image: "busybox" }] },
  };
}

function service(name: string, app: string): Record<string, unknown> {
  return { apiVersion: "v1", kind: "Service", metadata: { name }, spec: { selector: { app }, ports: [{ port: 80 }] } };
}

describe("controllers' cost per change (counted)", () => {
  let server: Server;
  /** store list calls by resource, while counting is on. */
  const lists = new Map<string, number>();
  let counting = false;

  before(async () => {
    server = await inProcessServer();
    for (const store of server.server.registry.stores) {
      const original = store.list.bind(store);
      store.list = (...args) => {
        if (counting) lists.set(store.definition.plural, (lists.get(store.definition.plural) ?? 0) + 1);
        return original(...args);
      };
    }
    await server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } });
    await until(async () => (await server.call("GET", `/api/v1/namespaces/${NS}/serviceaccounts/default`)).status === 200, "the default account");
    await server.call("POST", `/api/v1/namespaces/${NS}/services`, { body: service("web", "web") });
    await until(async () => (await server.call("GET", `/api/v1/namespaces/${NS}/endpoints/web`)).status === 200, "the web Endpoints");
  });
  after(async () => {
    await server.stop();
  });

  it("lists nothing per pod event: 120 pod creates make only admission's per-request lists", async () => {
    counting = true;
    const creates = 120;
    for (let index = 0; index < creates; index++) {
      // Most pods are selected by no Service; some by `web`, whose Endpoints controller then works on them.
      const created = await server.call("POST", `/api/v1/namespaces/${NS}/pods`, { body: pod(`p-${index}`, index % 6 === 0 ? "web" : "other") });
      assert.equal(created.status, 201, created.text);
    }
    // A Service created after the pods: once its Endpoints exist, the controllers have handled the pod events before it.
    await server.call("POST", `/api/v1/namespaces/${NS}/services`, { body: service("probe", "web") });
    await until(async () => (await server.call("GET", `/api/v1/namespaces/${NS}/endpoints/probe`)).status === 200, "the probe Endpoints");
    counting = false;
    const total = [...lists.values()].reduce((sum, count) => sum + count, 0);
    assert.equal(lists.get("pods") ?? 0, 0, `pods listed ${lists.get("pods")} times: ${JSON.stringify(Object.fromEntries(lists))}`);
    assert.ok(
      total <= creates * ADMISSION_LISTS_PER_CREATE + 10,
      `${total} lists for ${creates} creates (at most ${ADMISSION_LISTS_PER_CREATE} a create allowed): ${JSON.stringify(Object.fromEntries(lists))}`,
    );
  });
});
