// kube's APIServerIdentity on a shared etcd: three in-process servers with their own host names
// publish one Lease each (`apiserver-<hash>`, identity and host name labels), renew it, and
// delete the Lease of a server that stopped once it has expired.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { identityLeaseName } from "../src/controllers/apiserver-identity/identity-lease-controller.js";
import { type EtcdCluster, startEtcdCluster } from "../src/storage/etcd/etcd-member.js";
import { EtcdStorage } from "../src/storage/etcd/etcd-storage.js";
import { inProcessServer } from "../src/testing/in-process.js";
import { waitFor } from "./helpers/wait.js";

type Json = Record<string, unknown>;
type Server = Awaited<ReturnType<typeof inProcessServer>>;
const LEASES = "/apis/coordination.orch.io/v1/namespaces/orch-system/leases";
const SELECTOR = "labelSelector=apiserver.orch.io%2Fidentity%3Dorch-apiserver";

describe("identity Leases of servers sharing etcd (APIServerIdentity)", { timeout: 120_000 }, () => {
  let etcd: EtcdCluster;
  const servers: Server[] = [];
  const hosts = ["host-a", "host-b", "host-c"];

  before(async () => {
    etcd = await startEtcdCluster();
    for (const host of hosts) {
      const storage = await EtcdStorage.open({ endpoints: etcd.endpoints, prefix: "/registry" });
      servers.push(
        await inProcessServer({
          storage,
          identityLease: { enabled: true, hostname: host, leaseDurationSeconds: 1, renewIntervalMs: 100, gcIntervalMs: 200 },
        }),
      );
    }
  });

  after(async () => {
    for (const server of servers) await server.stop().catch(() => undefined);
    await etcd?.stop();
  });

  const leases = async (server: Server): Promise<Json[]> => {
    const listed = await server.call("GET", `${LEASES}?${SELECTOR}`);
    assert.equal(listed.status, 200);
    return listed.json["items"] as Json[];
  };
  const names = (items: Json[]): string[] => items.map((item) => String((item["metadata"] as Json)["name"])).sort();

  it("each server holds one Lease named after its host name, labelled and renewed", async () => {
    const expected = hosts.map(identityLeaseName).sort();
    assert.ok(
      expected.every((name) => /^apiserver-[a-z2-7]{26}$/.test(name)),
      expected.join(" "),
    );
    const first = await waitFor(
      async () => {
        const items = await leases(servers[0] as Server);
        return JSON.stringify(names(items)) === JSON.stringify(expected) ? items : undefined;
      },
      { what: "three identity Leases" },
    );
    for (const item of first) {
      const metadata = item["metadata"] as Json;
      const spec = item["spec"] as Json;
      const host = (metadata["labels"] as Json)["orch.io/hostname"];
      assert.equal(metadata["name"], identityLeaseName(String(host)));
      assert.match(String(spec["holderIdentity"]), new RegExp(`^${String(metadata["name"])}_[0-9a-f-]{36}$`));
      assert.equal(spec["leaseDurationSeconds"], 1);
    }
    const renewed = (items: Json[], name: string): string =>
      String((items.find((item) => (item["metadata"] as Json)["name"] === name)?.["spec"] as Json | undefined)?.["renewTime"]);
    const name = identityLeaseName("host-b");
    const before = renewed(first, name);
    await waitFor(async () => renewed(await leases(servers[1] as Server), name) !== before, { what: "host-b's Lease renewed" });
  });

  it("a stopped server's Lease is deleted by the others once it expired", async () => {
    const stopped = servers.pop() as Server;
    await stopped.stop();
    const remaining = [identityLeaseName("host-a"), identityLeaseName("host-b")].sort();
    await waitFor(async () => JSON.stringify(names(await leases(servers[0] as Server))) === JSON.stringify(remaining), {
      what: "host-c's Lease collected",
      timeoutMs: 15_000,
    });
    // The live servers' Leases stay.
    assert.deepEqual(names(await leases(servers[1] as Server)), remaining);
  });
});
