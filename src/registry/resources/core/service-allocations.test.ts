import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SqliteStorage } from "../../../storage/sqlite/sqlite-storage.js";
import { inProcessServer } from "../../../testing/in-process.js";
import { parseServiceNetwork } from "./service-network.js";

type Json = Record<string, unknown>;

const SERVICES = "/api/v1/namespaces/default/services";

function service(name: string, spec: Json = {}): Json {
  return { apiVersion: "v1", kind: "Service", metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } };
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function specOf(object: Json): Json {
  return object["spec"] as Json;
}

describe("service cluster IPs and node ports: durable allocation", () => {
  const dir = mkdtempSync(join(tmpdir(), "orch-alloc-"));
  // A /29 has 6 usable addresses (.1-.6); node ports 30000-30004.
  const network = parseServiceNetwork("10.96.0.0/29", "30000-30004");
  let storage = SqliteStorage.open(join(dir, "store.db"));
  let server = undefined as unknown as Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ storage, serviceNetwork: network });
  });
  after(async () => {
    await server.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function restart(): Promise<void> {
    await server.stop();
    await storage.close();
    storage = SqliteStorage.open(join(dir, "store.db"));
    server = await inProcessServer({ storage, serviceNetwork: network });
  }

  it("hands out every address of a small range once, then answers range-full; a restart keeps them; a delete releases one", async () => {
    const seen = new Set<string>();
    // The server's own service holds the first address of the range.
    const own = await eventually(
      () => server.call("GET", `${SERVICES}/orch`),
      (answer) => answer.status === 200,
    );
    assert.equal(specOf(own.json)["clusterIP"], "10.96.0.1");
    const existing = await server.call("GET", "/api/v1/services");
    for (const item of existing.json["items"] as Json[]) {
      const ip = specOf(item)["clusterIP"];
      if (typeof ip === "string" && ip !== "None") seen.add(ip);
    }
    for (let index = 0; seen.size < 6; index++) {
      const created = await server.call("POST", SERVICES, { body: service(`full-${index}`) });
      assert.equal(created.status, 201, created.text);
      const ip = String(specOf(created.json)["clusterIP"]);
      assert.ok(!seen.has(ip), `${ip} handed out twice`);
      assert.match(ip, /^10\.96\.0\.[1-6]$/);
      seen.add(ip);
    }
    const full = await server.call("POST", SERVICES, { body: service("one-too-many") });
    assert.equal(full.status, 500, full.text);
    assert.match(String(full.json["message"]), /range is full/);

    await restart();
    const stillFull = await server.call("POST", SERVICES, { body: service("after-restart") });
    assert.equal(stillFull.status, 500, stillFull.text);

    const victim = await server.call("GET", `${SERVICES}/full-0`);
    const freed = String(specOf(victim.json)["clusterIP"]);
    assert.equal((await server.call("DELETE", `${SERVICES}/full-0`)).status, 200);
    const reused = await server.call("POST", SERVICES, { body: service("reuses") });
    assert.equal(reused.status, 201, reused.text);
    assert.equal(specOf(reused.json)["clusterIP"], freed);
  });

  it("honours a requested node port, refuses a taken or out-of-range one, releases on type change", async () => {
    const headless = await server.call("POST", SERVICES, {
      body: service("np-a", { type: "NodePort", clusterIP: "None", ports: [{ port: 80, nodePort: 30002 }] }),
    });
    assert.equal(headless.status, 422, headless.text);
    assert.match(String(headless.json["message"]), /may not be set to 'None' for NodePort services/);
    // Two addresses free: one for np-a, one for the refused services to try (and give back).
    for (const name of ["reuses", "full-1"]) {
      const released = await server.call("DELETE", `${SERVICES}/${name}`);
      assert.equal(released.status, 200, released.text);
    }
    const a = await server.call("POST", SERVICES, { body: service("np-a", { type: "NodePort", ports: [{ port: 80, nodePort: 30002 }] }) });
    assert.equal(a.status, 201, a.text);
    assert.equal((specOf(a.json)["ports"] as Json[])[0]?.["nodePort"], 30002);
    const taken = await server.call("POST", SERVICES, { body: service("np-b", { type: "NodePort", ports: [{ port: 80, nodePort: 30002 }] }) });
    assert.equal(taken.status, 422, taken.text);
    assert.match(String(taken.json["message"]), /spec\.ports\[0\]\.nodePort: Invalid value: 30002: provided port is already allocated/);
    const outside = await server.call("POST", SERVICES, { body: service("np-c", { type: "NodePort", ports: [{ port: 80, nodePort: 31000 }] }) });
    assert.equal(outside.status, 422, outside.text);
    assert.match(String(outside.json["message"]), /provided port is not in the valid range\. The range of valid ports is 30000-30004/);
    // Back to ClusterIP: the node port is released (and the update keeps the cluster IP it had).
    const current = a.json;
    const spec = specOf(current);
    spec["type"] = "ClusterIP";
    spec["ports"] = [{ port: 80 }];
    delete spec["externalTrafficPolicy"];
    const updated = await server.call("PUT", `${SERVICES}/np-a`, { body: current });
    assert.equal(updated.status, 200, updated.text);
    const again = await server.call("POST", SERVICES, {
      body: service("np-d", { type: "NodePort", clusterIP: String(spec["clusterIP"]), ports: [{ port: 80, nodePort: 30002 }] }),
    });
    assert.equal(again.status, 422, "the cluster IP is still np-a's");
    assert.match(String(again.json["message"]), /provided IP is already allocated/);
  });

  it("keeps the cluster IP on an update that leaves it out, and refuses to change it", async () => {
    const got = await server.call("GET", `${SERVICES}/np-a`);
    const ip = specOf(got.json)["clusterIP"];
    const replaced = service("np-a");
    (replaced["metadata"] as Json)["resourceVersion"] = (got.json["metadata"] as Json)["resourceVersion"];
    const kept = await server.call("PUT", `${SERVICES}/np-a`, { body: replaced });
    assert.equal(kept.status, 200, kept.text);
    assert.equal(specOf(kept.json)["clusterIP"], ip);
    const changed = kept.json;
    // Another address of the range (the one held may be any of them).
    const other = ip === "10.96.0.6" ? "10.96.0.5" : "10.96.0.6";
    specOf(changed)["clusterIP"] = other;
    specOf(changed)["clusterIPs"] = [other];
    const refused = await server.call("PUT", `${SERVICES}/np-a`, { body: changed });
    assert.equal(refused.status, 422, refused.text);
    assert.match(String(refused.json["message"]), /spec\.clusterIPs\[0\]: Invalid value: .*may not change once set/);
  });
});

describe("service allocation under concurrency", () => {
  it("gives 200 services created at once 200 different addresses and node ports", async () => {
    const server = await inProcessServer({ serviceNetwork: parseServiceNetwork("10.100.0.0/24", "30000-30299") });
    try {
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, index) => server.call("POST", SERVICES, { body: service(`c-${index}`, { type: "NodePort" }) })),
      );
      for (const result of results) assert.equal(result.status, 201, result.text);
      const ips = results.map((result) => specOf(result.json)["clusterIP"]);
      const ports = results.map((result) => (specOf(result.json)["ports"] as Json[])[0]?.["nodePort"]);
      assert.equal(new Set(ips).size, 200);
      assert.equal(new Set(ports).size, 200);
      const kept = await server.storage.list("/ranges/serviceips/");
      for (const ip of ips)
        assert.ok(
          kept.items.some((item) => item.key.endsWith(`/${String(ip)}`)),
          `${String(ip)} is recorded`,
        );
    } finally {
      await server.stop();
    }
  });

  it("allocates both families on a dual-stack range for PreferDualStack, one for SingleStack", async () => {
    const server = await inProcessServer({ serviceNetwork: parseServiceNetwork("10.0.0.0/24,fd00:10::/112", "30000-32767") });
    try {
      const dual = await server.call("POST", SERVICES, { body: service("dual", { ipFamilyPolicy: "PreferDualStack" }) });
      assert.equal(dual.status, 201, dual.text);
      assert.deepEqual(specOf(dual.json)["ipFamilies"], ["IPv4", "IPv6"]);
      const ips = specOf(dual.json)["clusterIPs"] as string[];
      assert.match(ips[0] ?? "", /^10\.0\.0\./);
      assert.match(ips[1] ?? "", /^fd00:10::/);
      const six = await server.call("POST", SERVICES, { body: service("six", { ipFamilies: ["IPv6"] }) });
      assert.equal(six.status, 201, six.text);
      assert.deepEqual(specOf(six.json)["ipFamilies"], ["IPv6"]);
      assert.equal(specOf(six.json)["ipFamilyPolicy"], "SingleStack");
    } finally {
      await server.stop();
    }
  });
});

describe("service allocation repair", () => {
  it("releases a claim no service holds and re-claims a value a service holds without one, at start-up and in two periodic passes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "orch-repair-"));
    const network = parseServiceNetwork("10.97.0.0/29", "30100-30104");
    let storage = SqliteStorage.open(join(dir, "store.db"));
    let server = await inProcessServer({ storage, serviceNetwork: network });
    try {
      const kept = await server.call("POST", SERVICES, {
        body: service("kept", { type: "NodePort", clusterIP: "10.97.0.4", ports: [{ port: 80, nodePort: 30103 }] }),
      });
      assert.equal(kept.status, 201, kept.text);
      // A server that died between claiming and writing leaves claims nobody holds; a restored
      // store can hold a service whose claims are gone.
      await storage.create("/ranges/serviceips/10.97.0.5", JSON.stringify({ uid: "gone-uid", owner: "default/lost" }));
      await storage.create("/ranges/servicenodeports/30104", JSON.stringify({ uid: "gone-uid", owner: "default/lost" }));
      await storage.delete("/ranges/serviceips/10.97.0.4");
      await server.stop();
      await storage.close();
      storage = SqliteStorage.open(join(dir, "store.db"));
      server = await inProcessServer({ storage, serviceNetwork: network });
      const reclaimed = await server.call("POST", SERVICES, { body: service("wants-kept-ip", { clusterIP: "10.97.0.4" }) });
      assert.equal(reclaimed.status, 422, "the repair claimed kept's address for it again");
      assert.match(String(reclaimed.json["message"]), /provided IP is already allocated/);
      const freedIp = await server.call("POST", SERVICES, { body: service("gets-leaked-ip", { clusterIP: "10.97.0.5" }) });
      assert.equal(freedIp.status, 201, freedIp.text);
      const freedPort = await server.call("POST", SERVICES, {
        body: service("gets-leaked-port", { type: "NodePort", ports: [{ port: 80, nodePort: 30104 }] }),
      });
      assert.equal(freedPort.status, 201, freedPort.text);

      // While running, a leak is released only by the second pass that finds it unheld.
      await storage.create("/ranges/servicenodeports/30100", JSON.stringify({ uid: "in-flight-uid", owner: "default/in-flight" }));
      const first = await server.server.registry.repairAllocations();
      assert.deepEqual(
        first.flatMap((report) => report.released),
        [],
      );
      assert.deepEqual(
        first.flatMap((report) => [...report.suspects]),
        ["/ranges/servicenodeports/30100"],
      );
      const second = await server.server.registry.repairAllocations();
      assert.deepEqual(
        second.flatMap((report) => report.released),
        ["/ranges/servicenodeports/30100"],
      );
      await assert.rejects(storage.get("/ranges/servicenodeports/30100"));
    } finally {
      await server.stop();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
