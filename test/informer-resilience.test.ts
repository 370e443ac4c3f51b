// An informer from @kubernetes/client-node stays in sync across a server-side 410 (it relists)
// and across a server restart (restarted from its error handler, the way informers are run).
import assert from "node:assert/strict";
import { ORCH_PROFILE } from "../src/api/profile.js";
import { after, describe, it } from "node:test";
import * as k8s from "@kubernetes/client-node";
import { startServer, type RunningServer } from "../src/index.js";
import { makeTempDir, removeDir } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

type Informer = k8s.Informer<k8s.V1ConfigMap> & k8s.ObjectCache<k8s.V1ConfigMap>;

function clients(server: RunningServer): { config: k8s.KubeConfig; core: k8s.CoreV1Api } {
  const config = new k8s.KubeConfig();
  config.loadFromString(server.kubeconfig);
  return { config, core: config.makeApiClient(k8s.CoreV1Api) };
}

/** Names the informer's cache holds, sorted. */
function cached(informer: Informer): string[] {
  return (
    informer
      .list()
      .map((object) => object.metadata?.name ?? "")
      .filter((name) => name !== ORCH_PROFILE.rootCAConfigMap)
      // The root CA publisher's config map is in every namespace.
      .filter((name) => name !== "orch-root-ca.crt")
      .sort()
  );
}

async function serverNames(core: k8s.CoreV1Api, namespace: string): Promise<string[]> {
  const list = await core.listNamespacedConfigMap({ namespace });
  // The root-CA config map the publisher adds to every namespace is not the test's.
  return list.items
    .map((object) => object.metadata?.name ?? "")
    .filter((name) => name !== ORCH_PROFILE.rootCAConfigMap)
    .sort();
}

/** Runs an informer that restarts itself after an error, as controllers do. */
function resilientInformer(
  config: k8s.KubeConfig,
  core: k8s.CoreV1Api,
  namespace: string,
  errors: unknown[],
): { informer: Informer; lists: () => number; stop(): Promise<void> } {
  let lists = 0;
  const informer = k8s.makeInformer(config, `/api/v1/namespaces/${namespace}/configmaps`, () => {
    lists++;
    return core.listNamespacedConfigMap({ namespace });
  });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  informer.on(k8s.ERROR, (error) => {
    errors.push(error);
    if (stopped) return;
    timer = setTimeout(() => void informer.start().catch((failure: unknown) => errors.push(failure)), 100);
  });
  return {
    informer,
    lists: () => lists,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await informer.stop();
    },
  };
}

describe("informers across server-side interruptions", () => {
  const dirs: string[] = [];
  const servers: RunningServer[] = [];
  after(async () => {
    for (const server of servers) await server.stop();
    for (const dir of dirs) removeDir(dir);
  });

  it("relists after a 410 when its resume version fell out of the watch window", async () => {
    const dataDir = makeTempDir("orch-informer-410-");
    dirs.push(dataDir);
    // Watches end after 1–2 s; the window keeps only 5 events per resource.
    const server = await startServer({ dataDir, securePort: 0, storageBackend: "memory", minRequestTimeoutSeconds: 1, watchCacheSize: 5 });
    servers.push(server);
    const { config, core } = clients(server);
    await core.createNamespace({ body: { metadata: { name: "quiet" } } });
    await core.createNamespace({ body: { metadata: { name: "busy" } } });
    await core.createNamespacedConfigMap({ namespace: "quiet", body: { metadata: { name: "before" } } });
    const errors: unknown[] = [];
    const { informer, lists, stop } = resilientInformer(config, core, "quiet", errors);
    await informer.start();
    assert.deepEqual(cached(informer), ["before"]);
    assert.equal(lists(), 1);
    // Other namespaces' writes push its last version out of the window; when its watch ends
    // (1–2 s) and it resumes from that version, the server answers 410 and it must list again.
    for (let index = 0; index < 30; index++) await core.createNamespacedConfigMap({ namespace: "busy", body: { metadata: { name: `flood-${index}` } } });
    await waitFor(() => lists() >= 2, { timeoutMs: 15_000, what: "a re-list after the 410" });
    await core.createNamespacedConfigMap({ namespace: "quiet", body: { metadata: { name: "after-410" } } });
    await core.deleteNamespacedConfigMap({ namespace: "quiet", name: "before" });
    await waitFor(async () => JSON.stringify(cached(informer)) === JSON.stringify(await serverNames(core, "quiet")), {
      timeoutMs: 15_000,
      what: "informer cache never matched the server",
    });
    assert.deepEqual(cached(informer), ["after-410"]);
    await stop();
  });

  it("catches up after the server restarts on the same port", async () => {
    const dataDir = makeTempDir("orch-informer-restart-");
    dirs.push(dataDir);
    const first = await startServer({ dataDir, securePort: 0, storageBackend: "sqlite" });
    const port = first.port;
    let { config, core } = clients(first);
    await core.createNamespace({ body: { metadata: { name: "durable" } } });
    await core.createNamespacedConfigMap({ namespace: "durable", body: { metadata: { name: "one" } } });
    const errors: unknown[] = [];
    const { informer, stop } = resilientInformer(config, core, "durable", errors);
    await informer.start();
    assert.deepEqual(cached(informer), ["one"]);
    await first.stop();
    await waitFor(async () => errors.length > 0, { timeoutMs: 10_000, what: "the informer never noticed the stop" });
    const second = await startServer({ dataDir, securePort: port, storageBackend: "sqlite" });
    servers.push(second);
    ({ config, core } = clients(second));
    await core.createNamespacedConfigMap({ namespace: "durable", body: { metadata: { name: "two" } } });
    await core.deleteNamespacedConfigMap({ namespace: "durable", name: "one" });
    await waitFor(async () => JSON.stringify(cached(informer)) === JSON.stringify(["two"]), {
      timeoutMs: 20_000,
      what: `informer cache is ${JSON.stringify(cached(informer))}`,
    });
    await stop();
  });
});
