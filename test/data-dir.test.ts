// A data dir belongs to one server at a time and to one --compat profile.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { join } from "node:path";
import { SqliteStorage } from "../src/storage/sqlite/sqlite-storage.js";
import { runCli, startCli, type CliServer } from "./helpers/cli.js";
import { makeTempDir, removeDir } from "./helpers/server.js";

describe("the data dir", () => {
  const dirs: string[] = [];
  const servers: CliServer[] = [];
  after(async () => {
    for (const server of servers) await server.stop();
    for (const dir of dirs) removeDir(dir);
  });

  it("refuses a second server at once with the first one's pid, and frees the dir when the first stops", async () => {
    const dataDir = makeTempDir();
    dirs.push(dataDir);
    const first = await startCli(["--data-dir", dataDir, "--secure-port", "0"]);
    servers.push(first);
    const second = await runCli(["--data-dir", dataDir, "--secure-port", "0"]);
    assert.equal(second.code, 1, second.stderr);
    assert.equal(second.stderr, `Error: data dir ${dataDir} in use by pid ${first.child.pid}\n`);
    await first.stop();
    const again = await startCli(["--data-dir", dataDir, "--secure-port", "0"]);
    servers.push(again);
    await again.stop();
  });

  it("takes over the lock of a server that was killed", async () => {
    const dataDir = makeTempDir();
    dirs.push(dataDir);
    const killed = await startCli(["--data-dir", dataDir, "--secure-port", "0"]);
    await killed.stop("SIGKILL");
    const next = await startCli(["--data-dir", dataDir, "--secure-port", "0"]);
    servers.push(next);
    await next.stop();
  });

  it("remembers its --compat profile and refuses the other one with the flag to use", async () => {
    const dataDir = makeTempDir();
    dirs.push(dataDir);
    const orch = await startCli(["--data-dir", dataDir, "--secure-port", "0"]);
    await orch.stop();
    const other = await runCli(["--data-dir", dataDir, "--secure-port", "0", "--compat", "kubernetes"]);
    assert.equal(other.code, 1, other.stderr);
    assert.match(
      other.stderr,
      /^Error: data dir .* was created with --compat orch; start it with --compat orch, or use another --data-dir for --compat kubernetes\n$/,
    );
  });

  it("moves a store written before kube's key layout to it on start, keeping every object", async () => {
    const dataDir = makeTempDir();
    dirs.push(dataDir);
    const first = await startCli(["--data-dir", dataDir, "--secure-port", "0"]);
    await first.stop();
    // Put objects where earlier versions kept them: /<group or core>/<plural>/<namespace>/<name>.
    const configMap = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "legacy", namespace: "default", uid: "6f1c2a52-0d7e-4b8e-9c1e-1a2b3c4d5e6f", creationTimestamp: "2026-01-02T03:04:05Z" },
      data: { kept: "yes" },
    };
    const old = SqliteStorage.open(join(dataDir, "store.db"));
    await old.create("/core/configmaps/default/legacy", JSON.stringify(configMap));
    await old.close();

    const server = await startCli(["--data-dir", dataDir, "--secure-port", "0"]);
    await server.stop();
    assert.match(server.stdout() + server.stderr(), /moved objects from the pre-kube key layout/);
    const store = SqliteStorage.open(join(dataDir, "store.db"));
    try {
      assert.equal((await store.list("/core/")).items.length, 0);
      const moved = JSON.parse((await store.get("/configmaps/default/legacy")).value) as typeof configMap;
      assert.deepEqual(moved.metadata.uid, configMap.metadata.uid);
      assert.deepEqual(moved.data, configMap.data);
    } finally {
      await store.close();
    }
  });
});
