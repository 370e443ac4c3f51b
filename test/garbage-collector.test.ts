import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../src/testing/in-process.js";
import { MemoryStorage } from "../src/storage/memory/memory-storage.js";
import { waitFor } from "./helpers/wait.js";
import { apiGroup, ORCH_PROFILE } from "../src/api/profile.js";
import { crdFixture } from "../src/testing/crd-fixtures.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

const NS = "/api/v1/namespaces/default";
const CM = `${NS}/configmaps`;

function meta(json: Json): Json {
  return json["metadata"] as Json;
}

async function create(server: Server, name: string, owners: Json[] = [], path = CM): Promise<string> {
  const response = await server.call("POST", path, { body: { metadata: { name, ownerReferences: owners.length === 0 ? undefined : owners } } });
  assert.equal(response.status, 201, response.text);
  return String(meta(response.json)["uid"]);
}

function ownerRef(name: string, uid: string, block = true, kind = "ConfigMap", apiVersion = "v1"): Json {
  return { apiVersion, kind, name, uid, blockOwnerDeletion: block };
}

async function exists(server: Server, name: string, path = CM): Promise<boolean> {
  const response = await server.call("GET", `${path}/${name}`);
  return response.status === 200;
}

/** a ← b ← c (c owned by b, b by a); returns the uids. */
async function chain(server: Server, prefix: string): Promise<void> {
  const a = await create(server, `${prefix}-a`);
  const b = await create(server, `${prefix}-b`, [ownerRef(`${prefix}-a`, a)]);
  await create(server, `${prefix}-c`, [ownerRef(`${prefix}-b`, b)]);
}

async function gone(server: Server, names: string[], what: string): Promise<void> {
  await waitFor(async () => (await Promise.all(names.map((name) => exists(server, name)))).every((present) => !present), { what });
}

describe("garbage collector", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(async () => server.stop());

  it("background (the default): the owner goes at once, then its dependents level by level", async () => {
    await chain(server, "bg");
    const deleted = await server.call("DELETE", `${CM}/bg-a`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.json["kind"], "Status");
    await gone(server, ["bg-b", "bg-c"], "the background cascade");
  });

  it("propagationPolicy=Background in the body behaves the same", async () => {
    await chain(server, "bgb");
    await server.call("DELETE", `${CM}/bgb-a`, { body: { propagationPolicy: "Background" } });
    await gone(server, ["bgb-a", "bgb-b", "bgb-c"], "the background cascade");
  });

  it("foreground: the owner keeps foregroundDeletion until its blocking dependents are gone", async () => {
    await chain(server, "fg");
    const deleted = await server.call("DELETE", `${CM}/fg-a`, { body: { propagationPolicy: "Foreground" } });
    assert.equal(deleted.status, 200);
    assert.ok(meta(deleted.json)["deletionTimestamp"]);
    assert.deepEqual(meta(deleted.json)["finalizers"], ["foregroundDeletion"]);
    // Whenever the owner is seen gone, both levels below it are already gone.
    await waitFor(
      async () => {
        if (await exists(server, "fg-a")) return false;
        assert.equal(await exists(server, "fg-b"), false, "b outlived a");
        assert.equal(await exists(server, "fg-c"), false, "c outlived a");
        return true;
      },
      { what: "the foreground cascade", intervalMs: 1 },
    );
  });

  it("orphan: the owner goes and its dependents stay, without the reference to it", async () => {
    await chain(server, "or");
    const deleted = await server.call("DELETE", `${CM}/or-a?propagationPolicy=Orphan`);
    assert.equal(deleted.status, 200);
    assert.deepEqual(meta(deleted.json)["finalizers"], ["orphan"]);
    await gone(server, ["or-a"], "the orphaned owner");
    const b = await server.call("GET", `${CM}/or-b`);
    assert.equal(b.status, 200);
    assert.equal(meta(b.json)["ownerReferences"], undefined);
    const c = await server.call("GET", `${CM}/or-c`);
    assert.equal((meta(c.json)["ownerReferences"] as Json[])[0]?.["name"], "or-b");
  });

  it("legacy orphanDependents=true orphans; orphanDependents=false cascades", async () => {
    await chain(server, "lo");
    await server.call("DELETE", `${CM}/lo-a`, { body: { orphanDependents: true } });
    await gone(server, ["lo-a"], "the orphaned owner");
    assert.equal(await exists(server, "lo-b"), true);
    await server.call("DELETE", `${CM}/lo-b?orphanDependents=false`);
    await gone(server, ["lo-b", "lo-c"], "the cascade below b");
  });

  it("refuses propagationPolicy and orphanDependents together in the body (422)", async () => {
    await create(server, "both");
    const refused = await server.call("DELETE", `${CM}/both`, { body: { propagationPolicy: "Orphan", orphanDependents: true } });
    assert.equal(refused.status, 422);
  });

  it("collects a dependent whose owner never existed (dangling reference)", async () => {
    await create(server, "dangling", [ownerRef("nobody", "00000000-0000-0000-0000-000000000000")]);
    await gone(server, ["dangling"], "the dependent of a missing owner");
  });

  it("keeps a dependent with one live owner and drops the reference to the gone one", async () => {
    const live = await create(server, "two-live");
    const doomed = await create(server, "two-doomed");
    await create(server, "two-dep", [ownerRef("two-live", live), ownerRef("two-doomed", doomed)]);
    await server.call("DELETE", `${CM}/two-doomed`);
    await waitFor(
      async () => {
        const dep = await server.call("GET", `${CM}/two-dep`);
        const refs = (meta(dep.json)["ownerReferences"] as Json[] | undefined) ?? [];
        return refs.length === 1 && refs[0]?.["uid"] === live;
      },
      { what: "the gone owner's reference removed" },
    );
  });

  it("a namespaced dependent of a cluster-scoped owner is collected with it; a cluster-scoped dependent of a namespaced kind is not", async () => {
    const rbac = "/apis/rbac.authorization.orch.io/v1/clusterroles";
    const roleUid = await create(server, "gc-owner-role", [], rbac);
    await create(server, "owned-by-role", [ownerRef("gc-owner-role", roleUid, false, "ClusterRole", "rbac.authorization.orch.io/v1")]);
    const cmOwner = await create(server, "cm-owner");
    await create(server, "role-owned-by-cm", [ownerRef("cm-owner", cmOwner, false)], rbac);
    await server.call("DELETE", `${rbac}/gc-owner-role`);
    await gone(server, ["owned-by-role"], "the configmap owned by a cluster role");
    // A later dangling object is collected; the invalid reference still holds the cluster role.
    await create(server, "sentinel", [ownerRef("nobody", "11111111-0000-0000-0000-000000000000")]);
    await gone(server, ["sentinel"], "the sentinel");
    await server.call("DELETE", `${CM}/cm-owner`);
    await gone(server, ["cm-owner"], "the namespaced owner");
    await create(server, "sentinel2", [ownerRef("nobody", "22222222-0000-0000-0000-000000000000")]);
    await gone(server, ["sentinel2"], "the second sentinel");
    assert.equal(await exists(server, "role-owned-by-cm", rbac), true);
  });

  it("a foreground deletion through an ownership cycle ends", async () => {
    const x = await create(server, "cycle-x");
    const y = await create(server, "cycle-y", [ownerRef("cycle-x", x)]);
    const current = await server.call("GET", `${CM}/cycle-x`);
    const updated = await server.call("PUT", `${CM}/cycle-x`, {
      body: { ...current.json, metadata: { ...meta(current.json), ownerReferences: [ownerRef("cycle-y", y)] } },
    });
    assert.equal(updated.status, 200, updated.text);
    await server.call("DELETE", `${CM}/cycle-x`, { body: { propagationPolicy: "Foreground" } });
    await gone(server, ["cycle-x", "cycle-y"], "both members of the cycle");
  });

  it("collects 1,000 dependents of one owner", async () => {
    const owner = await create(server, "many-owner");
    for (let index = 0; index < 1000; index += 1) await create(server, `many-${index}`, [ownerRef("many-owner", owner, false)]);
    await server.call("DELETE", `${CM}/many-owner`);
    await waitFor(
      async () => {
        const list = await server.call("GET", `${CM}?limit=2000`);
        return (list.json["items"] as Json[]).every((item) => !String(meta(item)["name"]).startsWith("many-"));
      },
      { what: "1,000 dependents collected", timeoutMs: 30_000, intervalMs: 50 },
    );
  });
});

/** The OwnerRefInvalidNamespace Warning Events about `name` in `namespace`. */
async function invalidOwnerEvents(server: Server, namespace: string, name: string): Promise<Json[]> {
  const list = await server.call("GET", `/api/v1/namespaces/${namespace}/events`);
  return ((list.json["items"] as Json[] | undefined) ?? []).filter(
    (event) => event["reason"] === "OwnerRefInvalidNamespace" && (event["involvedObject"] as Json)["name"] === name,
  );
}

describe("garbage collector: invalid owner references and custom resources", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(async () => server.stop());

  it("a cluster-scoped dependent naming a namespaced owner kind: a Warning Event OwnerRefInvalidNamespace in default, the dependent kept", async () => {
    const rbac = `/apis/${apiGroup(ORCH_PROFILE, "rbac.authorization")}/v1/clusterroles`;
    const cmOwner = await create(server, "ev-cm-owner");
    await create(server, "ev-role-owned-by-cm", [ownerRef("ev-cm-owner", cmOwner, false)], rbac);
    const events = await waitFor(
      async () => {
        const found = await invalidOwnerEvents(server, "default", "ev-role-owned-by-cm");
        return found.length > 0 ? found : undefined;
      },
      { what: "the OwnerRefInvalidNamespace event" },
    );
    const event = events[0] as Json;
    assert.equal(event["type"], "Warning");
    assert.equal((event["involvedObject"] as Json)["kind"], "ClusterRole");
    assert.equal((event["source"] as Json)["component"], "garbage-collector-controller");
    assert.match(String(event["message"]), /^ownerRef \[v1\/ConfigMap, namespace: , name: ev-cm-owner, uid: .+\] does not exist in namespace ""$/);
    assert.equal(await exists(server, "ev-role-owned-by-cm", rbac), true);
  });

  it("a namespaced dependent naming an owner of another namespace: the reference is absent, the dependent collected, an Event in its namespace", async () => {
    for (const name of ["gc-ns-a", "gc-ns-b"]) {
      const made = await server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name } } });
      assert.equal(made.status, 201, made.text);
    }
    const owner = await create(server, "cross-owner", [], "/api/v1/namespaces/gc-ns-a/configmaps");
    await create(server, "cross-dep", [ownerRef("cross-owner", owner, false)], "/api/v1/namespaces/gc-ns-b/configmaps");
    await waitFor(async () => !(await exists(server, "cross-dep", "/api/v1/namespaces/gc-ns-b/configmaps")), {
      what: "the cross-namespace dependent collected",
    });
    const events = await waitFor(
      async () => {
        const found = await invalidOwnerEvents(server, "gc-ns-b", "cross-dep");
        return found.length > 0 ? found : undefined;
      },
      { what: "the OwnerRefInvalidNamespace event in gc-ns-b" },
    );
    assert.match(String((events[0] as Json)["message"]), /namespace: gc-ns-b, name: cross-owner, .* does not exist in namespace "gc-ns-b"/);
    assert.equal(await exists(server, "cross-owner", "/api/v1/namespaces/gc-ns-a/configmaps"), true, "the owner in the other namespace stays");
  });

  it("custom resources of a CRD created after start, owned by a ConfigMap, are collected with it", async () => {
    const apiextensions = apiGroup(ORCH_PROFILE, "apiextensions");
    const group = "gc.example.com";
    const crd = await server.call("POST", `/apis/${apiextensions}/v1/customresourcedefinitions`, {
      body: crdFixture({ group, plural: "gadgets", kind: "Gadget", apiextensionsGroup: apiextensions }),
    });
    assert.equal(crd.status, 201, crd.text);
    const gadgets = `/apis/${group}/v1/namespaces/default/gadgets`;
    await waitFor(async () => (await server.call("GET", gadgets)).status === 200, { what: "gadgets served" });
    const owner = await create(server, "gadget-owner");
    for (const name of ["g1", "g2", "g3"]) {
      const made = await server.call("POST", gadgets, {
        body: { apiVersion: `${group}/v1`, kind: "Gadget", metadata: { name, ownerReferences: [ownerRef("gadget-owner", owner)] }, spec: { image: "nginx" } },
      });
      assert.equal(made.status, 201, made.text);
    }
    await server.call("DELETE", `${CM}/gadget-owner`);
    await waitFor(
      async () => {
        const list = await server.call("GET", gadgets);
        return ((list.json["items"] as Json[] | undefined) ?? []).length === 0;
      },
      { what: "the gadgets collected" },
    );
  });
});

describe("garbage collector across a restart", () => {
  it("a foreground cascade stopped midway finishes under the next server", async () => {
    const storage = new MemoryStorage();
    const first = await inProcessServer({ storage });
    const owner = await create(first, "restart-owner");
    const count = 300;
    for (let index = 0; index < count; index += 1) await create(first, `restart-${index}`, [ownerRef("restart-owner", owner)]);
    await first.call("DELETE", `${CM}/restart-owner`, { body: { propagationPolicy: "Foreground" } });
    await first.server.stop();
    const second = await inProcessServer({ storage });
    try {
      await waitFor(async () => !(await exists(second, "restart-owner")), { what: "the owner gone under the second server", timeoutMs: 30_000 });
      const list = await second.call("GET", CM);
      assert.deepEqual(
        (list.json["items"] as Json[]).map((item) => meta(item)["name"]).filter((name) => String(name).startsWith("restart-")),
        [],
      );
    } finally {
      await second.stop();
    }
  });

  it("with the garbage collector switched off (--controllers=*,-garbagecollector) the owner waits", async () => {
    const storage = new MemoryStorage();
    const off = await inProcessServer({ storage, controllers: ["*", "-garbagecollector"] });
    const owner = await create(off, "held-owner");
    await create(off, "held-dep", [ownerRef("held-owner", owner)]);
    await off.call("DELETE", `${CM}/held-owner`, { body: { propagationPolicy: "Foreground" } });
    await off.server.stop();
    assert.equal(await exists(off, "held-owner"), true);
    const on = await inProcessServer({ storage });
    try {
      await gone(on, ["held-owner", "held-dep"], "the cascade once the collector runs");
    } finally {
      await on.stop();
    }
  });
});
