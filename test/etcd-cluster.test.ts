// Three orch-apiserver processes on a three-member etcd cluster (loopback, temporary data): every
// server sees every write, reads through another server see a client's own writes, allocation and
// quota stay right under concurrent requests through different servers, one leader runs the
// controllers, each server publishes its identity Lease; then faults: an etcd member killed under
// a 64-client write load (the leader, then a follower), etcd entirely down, one server killed -9
// under an informer. Each step is bounded in time.
import assert from "node:assert/strict";
import https from "node:https";
import { hostname } from "node:os";
import { after, before, describe, it } from "node:test";
import * as k8s from "@kubernetes/client-node";
import { ORCH_PROFILE } from "../src/api/profile.js";
import { identityLeaseName } from "../src/controllers/apiserver-identity/identity-lease-controller.js";
import { type EtcdCluster, startEtcdCluster } from "../src/storage/etcd/etcd-member.js";
import type { Credentials } from "./helpers/http.js";
import { type KeepAliveClient, keepAliveClient, type OrchCluster, portOf, startOrchCluster, switchProxy } from "./helpers/orch-cluster.js";
import { waitFor } from "./helpers/wait.js";

type Json = Record<string, unknown>;
const ROOT_CA = ORCH_PROFILE.rootCAConfigMap;

function configMap(name: string, data: Record<string, string> = {}): Json {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data };
}

function itemsOf(json: Json): Json[] {
  return Array.isArray(json["items"]) ? (json["items"] as Json[]) : [];
}

function nameOf(object: Json): string {
  return String((object["metadata"] as Json | undefined)?.["name"] ?? "");
}

/** A watch as a stream of JSON lines, read until it ends. */
interface OpenWatch {
  events(): Json[];
  readonly ended: Promise<void>;
  close(): void;
}

function openWatch(credentials: Credentials, path: string): Promise<OpenWatch> {
  return new Promise((resolve, reject) => {
    const events: Json[] = [];
    let endedResolve: () => void = () => {};
    const ended = new Promise<void>((done) => (endedResolve = done));
    const request = https.request(
      new URL(path, credentials.url),
      { ca: credentials.ca, cert: credentials.cert, key: credentials.key, agent: false },
      (response) => {
        if (response.statusCode !== 200) {
          reject(new Error(`watch ${path}: HTTP ${response.statusCode}`));
          return;
        }
        let buffer = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          buffer += chunk;
          for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
            const line = buffer.slice(0, newline).trim();
            buffer = buffer.slice(newline + 1);
            if (line !== "") events.push(JSON.parse(line) as Json);
          }
        });
        response.on("end", endedResolve);
        response.on("error", endedResolve);
        response.on("close", endedResolve);
        resolve({ events: () => events, ended, close: () => request.destroy() });
      },
    );
    request.on("error", (error) => {
      endedResolve();
      reject(error);
    });
    request.end();
  });
}

/** Rejects when `promise` takes longer than `ms`. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

describe("three orch servers on a three-member etcd cluster", { timeout: 600_000 }, () => {
  let etcd: EtcdCluster;
  let cluster: OrchCluster;
  let clients: KeepAliveClient[] = [];
  const call = (index: number, method: string, path: string, body?: unknown) => {
    const client = clients[index % clients.length];
    assert.ok(client !== undefined);
    return client.call(method, path, body);
  };

  before(async () => {
    etcd = await startEtcdCluster({ size: 3 });
    cluster = await startOrchCluster(3, etcd.endpoints, [
      "--request-timeout",
      "5s",
      "--service-cluster-ip-range",
      "10.96.0.0/27",
      "--service-node-port-range",
      "30000-30029",
    ]);
    clients = cluster.servers.map((_, index) => keepAliveClient(cluster.admin(index), 64));
    for (const namespace of ["seen", "alloc", "quota", "load", "informed"]) {
      const created = await call(0, "POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
      assert.equal(created.status, 201, JSON.stringify(created.json));
    }
  });

  after(async () => {
    for (const client of clients) client.close();
    await cluster?.stop();
    await etcd?.stop();
  });

  it("every server sees every write, and a client reading through another server (resourceVersion unset) sees its own write", async () => {
    const watch = await openWatch(cluster.admin(1), "/api/v1/namespaces/seen/configmaps?watch=1");
    try {
      for (let index = 0; index < 12; index++) {
        const name = `write-${index}`;
        const created = await call(index, "POST", "/api/v1/namespaces/seen/configmaps", configMap(name, { n: String(index) }));
        assert.equal(created.status, 201, JSON.stringify(created.json));
        const rv = Number((created.json["metadata"] as Json)["resourceVersion"]);
        // A consistent list from the next server's cache, and a GET from the one after.
        const listed = await call(index + 1, "GET", "/api/v1/namespaces/seen/configmaps");
        assert.equal(listed.status, 200);
        assert.ok(
          itemsOf(listed.json).some((item) => nameOf(item) === name),
          `list through server ${(index + 1) % 3} misses ${name}`,
        );
        assert.ok(Number((listed.json["metadata"] as Json)["resourceVersion"]) >= rv, "the list is at least as new as the write");
        assert.equal((await call(index + 2, "GET", `/api/v1/namespaces/seen/configmaps/${name}`)).status, 200);
      }
      await waitFor(
        () => {
          const added = new Set(
            watch
              .events()
              .filter((event) => event["type"] === "ADDED")
              .map((event) => nameOf(event["object"] as Json)),
          );
          return Array.from({ length: 12 }, (_, index) => `write-${index}`).every((name) => added.has(name));
        },
        { what: "the watch on server 1 to see every create made through servers 0, 1 and 2", timeoutMs: 15_000 },
      );
    } finally {
      watch.close();
    }
  });

  it("cluster IPs and node ports stay unique under concurrent creates through different servers", async () => {
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, index) =>
        call(index, "POST", "/api/v1/namespaces/alloc/services", {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: `svc-${index}` },
          spec: { type: "NodePort", ports: [{ port: 80 }] },
        }),
      ),
    );
    for (const result of results) assert.equal(result.status, 201, JSON.stringify(result.json));
    const specs = results.map((result) => result.json["spec"] as Json);
    const ips = specs.map((spec) => String(spec["clusterIP"]));
    const ports = specs.map((spec) => Number(((spec["ports"] as Json[])[0] as Json)["nodePort"]));
    assert.equal(new Set(ips).size, 24, `cluster IPs handed out twice: ${ips.join(" ")}`);
    assert.equal(new Set(ports).size, 24, `node ports handed out twice: ${ports.join(" ")}`);
    // The server's own Service holds .1 of the 10.96.0.0/27 range.
    assert.ok(!ips.includes("10.96.0.1"));
  });

  it("ResourceQuota admission never admits past hard under concurrent creates through different servers", async () => {
    const quota = await call(0, "POST", "/api/v1/namespaces/quota/resourcequotas", {
      apiVersion: "v1",
      kind: "ResourceQuota",
      metadata: { name: "cap" },
      spec: { hard: { configmaps: "8" } },
    });
    assert.equal(quota.status, 201, JSON.stringify(quota.json));
    // The root CA publisher's config map counts too: wait for it so the arithmetic below is exact.
    await waitFor(async () => (await call(1, "GET", `/api/v1/namespaces/quota/configmaps/${ROOT_CA}`)).status === 200, { what: "the root CA config map" });
    // Quota admission reads each server's cache as kube's reads its informer (another server's
    // quota of a moment ago may be missing): a consistent read of the quota through each server
    // brings its cache up to the quota first, as a client waiting for the quota's status would.
    for (const server of [0, 1, 2]) assert.equal((await call(server, "GET", "/api/v1/namespaces/quota/resourcequotas/cap")).status, 200);
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, index) => call(index, "POST", "/api/v1/namespaces/quota/configmaps", configMap(`q-${index}`))),
    );
    const admitted = results.filter((result) => result.status === 201).length;
    for (const result of results) assert.ok([201, 403, 409].includes(result.status), JSON.stringify(result.json));
    const stored = itemsOf((await call(2, "GET", "/api/v1/namespaces/quota/configmaps")).json).length;
    assert.ok(stored <= 8, `${stored} config maps stored under a quota of 8`);
    assert.equal(stored, admitted + 1);
    assert.ok(admitted >= 1, "some creates were admitted");
    const used = (((await call(1, "GET", "/api/v1/namespaces/quota/resourcequotas/cap")).json["status"] as Json)["used"] as Json)["configmaps"];
    assert.ok(Number(used) <= 8, `status.used ${String(used)}`);
  });

  it("runs the controllers on one server only (the Lease holder), and every server publishes its identity Lease", async () => {
    // An object whose owner does not exist: the garbage collector (on the leader only) deletes it.
    const created = await call(2, "POST", "/api/v1/namespaces/seen/configmaps", {
      ...configMap("orphan"),
      metadata: { name: "orphan", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "gone", uid: "44444444-0000-0000-0000-000000000000" }] },
    });
    assert.equal(created.status, 201);
    await waitFor(async () => (await call(0, "GET", "/api/v1/namespaces/seen/configmaps/orphan")).status === 404, {
      what: "the garbage collector to delete the orphan",
      timeoutMs: 30_000,
    });
    const adds = await Promise.all(
      cluster.servers.map(async (_, index) => {
        const metrics = await call(index, "GET", "/metrics");
        const text = String(metrics.json["text"] ?? "");
        const match = /^workqueue_adds_total\{name="garbagecollector"\} (\d+)/m.exec(text);
        return match === null ? 0 : Number(match[1]);
      }),
    );
    assert.equal(adds.filter((count) => count > 0).length, 1, `garbage collector queue adds per server: ${adds.join(", ")}`);

    const lease = await call(1, "GET", `/apis/coordination.orch.io/v1/namespaces/orch-system/leases/${ORCH_PROFILE.controllerManagerLease}`);
    assert.equal(lease.status, 200);
    // All three run on this host: one identity Lease per host name, held by the newest server.
    const name = identityLeaseName(hostname());
    const identities = await call(
      0,
      "GET",
      "/apis/coordination.orch.io/v1/namespaces/orch-system/leases?labelSelector=apiserver.orch.io%2Fidentity%3Dorch-apiserver",
    );
    assert.deepEqual(itemsOf(identities.json).map(nameOf), [name]);
    const identity = itemsOf(identities.json)[0] as Json;
    assert.equal(((identity["metadata"] as Json)["labels"] as Json)["orch.io/hostname"], hostname());
    assert.match(String((identity["spec"] as Json)["holderIdentity"]), new RegExp(`^${name}_[0-9a-f-]{36}$`));
    assert.equal((identity["spec"] as Json)["leaseDurationSeconds"], 3600);
  });

  /** 64 clients creating config maps through the three servers until `stop`, each create retried on 5xx and connection errors. */
  function writeLoad(prefix: string): { stop(): Promise<{ acknowledged: string[]; failures: string[]; retries: number }> } {
    let running = true;
    const acknowledged: string[] = [];
    const failures: string[] = [];
    let retries = 0;
    const workers = Array.from({ length: 64 }, async (_, worker) => {
      for (let sequence = 0; running; sequence++) {
        const name = `${prefix}-${worker}-${sequence}`;
        let done = false;
        for (let attempt = 0; attempt < 20 && !done; attempt++) {
          if (attempt > 0) {
            retries++;
            await new Promise((resolve) => setTimeout(resolve, 100 * Math.min(attempt, 5)));
          }
          try {
            const result = await call(worker + sequence + attempt, "POST", "/api/v1/namespaces/load/configmaps", configMap(name));
            // 409 on a retry: the first attempt committed though its answer was lost.
            if (result.status === 201 || (result.status === 409 && attempt > 0)) done = true;
            else if (result.status < 500 && result.status !== 429) {
              failures.push(`${name}: HTTP ${result.status} ${JSON.stringify(result.json)}`);
              break;
            }
          } catch {
            // A connection the server dropped: retried.
          }
        }
        if (done) acknowledged.push(name);
        else if (!failures.some((failure) => failure.startsWith(`${name}:`))) failures.push(`${name}: no success in 20 attempts`);
      }
    });
    return {
      async stop() {
        running = false;
        await Promise.all(workers);
        return { acknowledged, failures, retries };
      },
    };
  }

  async function storedNames(server: number, namespace: string): Promise<Set<string>> {
    const listed = await call(server, "GET", `/api/v1/namespaces/${namespace}/configmaps`);
    assert.equal(listed.status, 200, JSON.stringify(listed.json));
    return new Set(itemsOf(listed.json).map(nameOf));
  }

  it("an etcd member killed under a 64-client write load (the leader, then a follower): no request fails beyond retries, no acknowledged write is lost", async () => {
    for (const role of ["leader", "follower"] as const) {
      const load = writeLoad(role);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const leader = await etcd.leader();
      const victim = role === "leader" ? leader : etcd.members.find((member) => member !== leader && member.running);
      assert.ok(victim !== undefined);
      await victim.kill();
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await victim.restart();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const { acknowledged, failures, retries } = await within(120_000, "the write load to end", load.stop());
      assert.deepEqual(failures, [], `requests failed beyond the client's retries (${retries} retries in all)`);
      assert.ok(acknowledged.length > 64, `only ${acknowledged.length} writes acknowledged`);
      for (const server of [0, 1, 2]) {
        const stored = await storedNames(server, "load");
        const lost = acknowledged.filter((name) => !stored.has(name));
        assert.deepEqual(lost, [], `server ${server} lists no ${lost.length} acknowledged writes`);
      }
    }
  });

  it("etcd entirely down: /readyz fails within 2 s, requests answer 503/504 promptly, watches end with an error, and all recovers when etcd is back", async () => {
    const watches = await Promise.all(cluster.servers.map((_, index) => openWatch(cluster.admin(index), "/api/v1/namespaces/seen/configmaps?watch=1")));
    try {
      await Promise.all(etcd.members.map((member) => member.kill()));
      const killed = Date.now();
      for (const [index] of cluster.servers.entries()) {
        const readyz = await call(index, "GET", "/readyz");
        assert.notEqual(readyz.status, 200, `server ${index} still ready`);
      }
      assert.ok(Date.now() - killed < 2_000, `/readyz took ${Date.now() - killed} ms to fail on the three servers`);
      for (const [index] of cluster.servers.entries()) {
        const started = Date.now();
        const write = await call(index, "POST", "/api/v1/namespaces/seen/configmaps", configMap(`outage-${index}`));
        assert.ok([503, 504].includes(write.status), `server ${index}: a write during the outage answered ${write.status}`);
        assert.ok(Date.now() - started < 7_000, `server ${index}: the write took ${Date.now() - started} ms (request timeout 5 s)`);
        const read = await call(index, "GET", "/api/v1/namespaces/seen/configmaps/write-0");
        assert.ok([503, 504].includes(read.status), `server ${index}: a read during the outage answered ${read.status}`);
      }
      await within(15_000, "every watch to end", Promise.all(watches.map((watch) => watch.ended)));
      for (const watch of watches) {
        const last = watch.events().at(-1);
        assert.equal(last?.["type"], "ERROR", "a watch ends with an ERROR event so the client re-lists");
      }
      await Promise.all(etcd.members.map((member) => member.restart()));
      for (const [index] of cluster.servers.entries()) {
        await waitFor(async () => (await call(index, "GET", "/readyz")).status === 200, { what: `server ${index} ready again`, timeoutMs: 30_000 });
      }
      const created = await call(0, "POST", "/api/v1/namespaces/seen/configmaps", configMap("after-outage"));
      assert.equal(created.status, 201, JSON.stringify(created.json));
      // Each cache re-lists by itself once etcd answers (with a backoff of up to 2 s); until then a consistent list may answer 504.
      for (const index of [1, 2]) {
        await waitFor(
          async () => {
            const listed = await call(index, "GET", "/api/v1/namespaces/seen/configmaps");
            return listed.status === 200 && itemsOf(listed.json).some((item) => nameOf(item) === "after-outage");
          },
          { what: `server ${index} to list the write made after the outage`, timeoutMs: 20_000 },
        );
      }
    } finally {
      for (const watch of watches) watch.close();
    }
  });

  it("one orch server killed -9: the others' clients are unaffected, and an informer on it resumes on another server from its resourceVersion", async () => {
    const proxy = await switchProxy(portOf(cluster.servers[0]?.url ?? ""));
    const config = new k8s.KubeConfig();
    config.loadFromString(cluster.kubeconfig);
    const current = config.getCurrentCluster();
    assert.ok(current !== null);
    config.clusters = config.clusters.map((entry) => (entry.name === current.name ? { ...entry, server: `https://127.0.0.1:${proxy.port}` } : entry));
    const core = config.makeApiClient(k8s.CoreV1Api);
    let lists = 0;
    const errors: unknown[] = [];
    const informer = k8s.makeInformer(config, "/api/v1/namespaces/informed/configmaps", () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace: "informed" });
    });
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    informer.on(k8s.ERROR, (error) => {
      errors.push(error);
      // Restarted from its error handler, the way informers are run; it keeps its resourceVersion.
      if (!stopped) timer = setTimeout(() => void informer.start().catch((failure: unknown) => errors.push(failure)), 200);
    });
    const names = (): string[] =>
      informer
        .list()
        .map((object) => object.metadata?.name ?? "")
        .filter((name) => name !== ROOT_CA)
        .sort();
    try {
      assert.equal((await call(0, "POST", "/api/v1/namespaces/informed/configmaps", configMap("before"))).status, 201);
      await informer.start();
      await waitFor(
        () => {
          if (names().includes("before")) return true;
          // Said when the wait fails: how far the informer got (lists made, errors met, what it holds).
          const seen = errors.map((error) => (error instanceof Error ? error.message : JSON.stringify(error)).slice(0, 200));
          throw new Error(`lists ${lists}, errors [${seen.join(" | ")}], names [${names().join(",")}]`);
        },
        { what: "the informer to list `before`" },
      );
      // Requests through the other two servers go on while the first dies.
      let running = true;
      const others: number[] = [];
      const traffic = (async () => {
        for (let index = 0; running; index++) {
          const result = await call(1 + (index % 2), "POST", "/api/v1/namespaces/informed/configmaps", configMap(`other-${index}`));
          others.push(result.status);
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const victim = cluster.servers[0];
      assert.ok(victim !== undefined);
      await victim.stop("SIGKILL");
      proxy.target(portOf(cluster.servers[1]?.url ?? ""));
      await new Promise((resolve) => setTimeout(resolve, 500));
      running = false;
      await traffic;
      assert.ok(others.length > 0);
      assert.deepEqual(
        others.filter((status) => status !== 201),
        [],
        "requests through the surviving servers all succeeded",
      );
      assert.equal((await call(2, "POST", "/api/v1/namespaces/informed/configmaps", configMap("after"))).status, 201);
      const expected = ["after", "before", ...others.map((_, index) => `other-${index}`)].sort();
      await waitFor(() => JSON.stringify(names()) === JSON.stringify(expected), {
        what: `the informer to follow the writes through the other servers (has ${names().length} of ${expected.length})`,
        timeoutMs: 30_000,
      });
      assert.ok(errors.length >= 1, "the informer noticed its server going away");
      assert.equal(lists, 1, "the informer resumed its watch from its resourceVersion instead of listing again");
    } finally {
      stopped = true;
      clearTimeout(timer);
      await informer.stop();
      await proxy.close();
    }
  });
});
