import { ORCH_PROFILE } from "../src/api/profile.js";
// Backup: `orch-apiserver snapshot save` copies the SQLite store online (through GET /snapshot,
// while clients keep writing) and offline; `snapshot restore` installs it in a new data dir, and a
// server there serves exactly the objects the original served at the snapshot's revision.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runCommand } from "../src/cli/commands.js";
import { EXTENSION_AUTHENTICATION_CONFIGMAP } from "../src/cli/compose.js";
import { startServer, type RunningServer } from "../src/cli/start.js";
import { SqliteStorage } from "../src/storage/sqlite/sqlite-storage.js";
import { configMap, type Credentials, json, request } from "./helpers/http.js";
import { makeTempDir, removeDir, startTestServer, type TestServer } from "./helpers/server.js";

const BIN = join(import.meta.dirname, "..", "..", "bin", "orch-apiserver.js");

/** The command in this process (fast); `spawned` runs the installed binary instead. */
async function cli(args: readonly string[], spawned = false): Promise<{ code: number; stdout: string; stderr: string }> {
  if (!spawned) {
    let stdout = "";
    let stderr = "";
    const code = await runCommand(args, { out: (text) => void (stdout += text), err: (text) => void (stderr += text) });
    return { code: code ?? -1, stdout, stderr };
  }
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr });
    });
  });
}

interface Listed {
  readonly items: readonly { readonly metadata: { readonly namespace?: string; readonly name: string; readonly resourceVersion: string } }[];
}

/** `namespace/name@resourceVersion` of every object of a collection, optionally at an exact revision. */
async function inventory(credentials: Credentials, path: string, revision?: number): Promise<string[]> {
  const query = revision === undefined ? "" : `?resourceVersion=${revision}&resourceVersionMatch=Exact`;
  const result = await request(credentials, "GET", `${path}${query}`);
  assert.equal(result.status, 200, result.body);
  // The root-CA config maps and extension-apiserver-authentication are the publisher's: a restored
  // data dir has a new CA, which it publishes (kube rewrites both at start when they differ).
  return (json(result) as unknown as Listed).items
    .filter((item) => item.metadata.name !== ORCH_PROFILE.rootCAConfigMap && item.metadata.name !== EXTENSION_AUTHENTICATION_CONFIGMAP)
    .map((item) => `${item.metadata.namespace ?? ""}/${item.metadata.name}@${item.metadata.resourceVersion}`)
    .sort();
}

const COLLECTIONS = [
  "/api/v1/configmaps",
  "/api/v1/secrets",
  "/api/v1/namespaces",
  "/apis/rbac.authorization.orch.io/v1/clusterroles",
  "/api/v1/serviceaccounts",
];

describe("snapshot save and restore", { timeout: 120_000 }, () => {
  let source: TestServer;
  let work: string;
  let restored: RunningServer | undefined;

  before(async () => {
    source = await startTestServer({ storageBackend: "sqlite", compactionIntervalMs: 0 });
    work = makeTempDir("orch-snapshot-");
  });

  after(async () => {
    await restored?.stop();
    await source?.close();
    removeDir(work);
  });

  it("saves online during writes, restores into a new data dir, and the restored server serves every object at the snapshot's revision", async () => {
    for (let index = 0; index < 40; index++) {
      const created = await request(source.admin, "POST", "/api/v1/namespaces/default/configmaps", {
        body: configMap(`before-${index}`, { index: String(index) }),
      });
      assert.equal(created.status, 201, created.body);
    }
    const secret = await request(source.admin, "POST", "/api/v1/namespaces/default/secrets", {
      body: { apiVersion: "v1", kind: "Secret", metadata: { name: "db" }, stringData: { password: "p" } },
    });
    assert.equal(secret.status, 201, secret.body);
    const acknowledged = await inventory(source.admin, "/api/v1/configmaps");

    // Writers keep going while the snapshot is taken.
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        const result = await request(source.admin, "POST", "/api/v1/namespaces/default/configmaps", { body: configMap(`during-${written}`) });
        assert.equal(result.status, 201, result.body);
        written++;
      }
    })();
    const snapshot = join(work, "store.snapshot");
    const saved = await cli(["snapshot", "save", snapshot, "--data-dir", source.dataDir], true);
    writing = false;
    await writer;
    assert.equal(saved.code, 0, saved.stderr);
    assert.match(saved.stdout, /snapshot saved to .*: revision \d+, \d+ keys \(online\)/);
    const { revision } = SqliteStorage.inspect(snapshot);

    const again = await cli(["snapshot", "save", snapshot, "--data-dir", source.dataDir]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists; snapshot save does not overwrite/);

    const target = join(work, "restored");
    const restore = await cli(["snapshot", "restore", snapshot, "--data-dir", target]);
    assert.equal(restore.code, 0, restore.stderr);
    const twice = await cli(["snapshot", "restore", snapshot, "--data-dir", target]);
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /store\.db exists/);

    restored = await startServer({ dataDir: target, securePort: 0, storageBackend: "sqlite", compactionIntervalMs: 0 });
    const restoredCredentials: Credentials = { url: restored.url, ca: restored.caCertificate, cert: restored.adminCertificate, key: restored.adminKey };
    const served = await inventory(restoredCredentials, "/api/v1/configmaps");
    for (const entry of acknowledged) assert.ok(served.includes(entry), `${entry} acknowledged before the snapshot is restored`);
    for (const collection of COLLECTIONS) {
      assert.deepEqual(
        await inventory(restoredCredentials, collection),
        await inventory(source.admin, collection, revision),
        `${collection} at revision ${revision}`,
      );
    }
    const password = await request(restoredCredentials, "GET", "/api/v1/namespaces/default/secrets/db");
    assert.equal((json(password).data as Record<string, string>).password, Buffer.from("p").toString("base64"));
    // The restored server takes writes after the snapshot's revision.
    const next = await request(restoredCredentials, "POST", "/api/v1/namespaces/default/configmaps", { body: configMap("after-restore") });
    assert.equal(next.status, 201, next.body);
    assert.ok(Number((json(next).metadata as { resourceVersion: string }).resourceVersion) > revision);

    // Offline: with the server stopped, the file is copied directly.
    await restored.stop();
    restored = undefined;
    const offline = await cli(["snapshot", "save", join(work, "offline.snapshot"), "--data-dir", target]);
    assert.equal(offline.code, 0, offline.stderr);
    assert.match(offline.stdout, /\(offline\)/);
  });

  it("refuses a file that is not a store, and GET /snapshot without cluster-admin rights", async () => {
    const bogus = join(work, "bogus.snapshot");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(bogus, "not a database");
    const result = await cli(["snapshot", "restore", bogus, "--data-dir", join(work, "never")]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /Error: /);
    const anonymous = await request({ url: source.admin.url, ca: source.admin.ca }, "GET", "/snapshot");
    assert.equal(anonymous.status, 403);
  });
});
