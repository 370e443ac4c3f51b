// Moving data between backends: `orch-apiserver migrate` copies a SQLite data dir's store into an
// empty etcd (and back); a server started on the copy serves the same objects with the same uids,
// creationTimestamps and managedFields (resourceVersions are the new store's revisions).
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runCommand } from "../src/cli/commands.js";
import { startServer, type RunningServer } from "../src/cli/start.js";
import { type EtcdCluster, startEtcdCluster } from "../src/storage/etcd/etcd-member.js";
import { SqliteStorage } from "../src/storage/sqlite/sqlite-storage.js";
import { type Credentials, json, request } from "./helpers/http.js";
import { makeTempDir, removeDir } from "./helpers/server.js";

async function cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runCommand(args, { out: (text) => void (stdout += text), err: (text) => void (stderr += text) });
  return { code: code ?? -1, stdout, stderr };
}

function credentials(server: RunningServer): Credentials {
  return { url: server.url, ca: server.caCertificate, cert: server.adminCertificate, key: server.adminKey };
}

const MANAGER = "migrate-test";

/** The objects written before the migration, by API path (created with fieldManager=migrate-test). */
const OBJECTS: readonly { readonly collection: string; readonly body: Record<string, unknown> }[] = [
  { collection: "/api/v1/namespaces", body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "moving", labels: { team: "a" } } } },
  {
    collection: "/api/v1/namespaces/moving/configmaps",
    body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", labels: { app: "web" } }, data: { mode: "fast", "a.txt": "x" } },
  },
  {
    collection: "/api/v1/namespaces/moving/secrets",
    body: { apiVersion: "v1", kind: "Secret", metadata: { name: "db" }, type: "Opaque", data: { password: "aHVudGVyMg==" } },
  },
  {
    collection: "/apis/rbac.authorization.orch.io/v1/namespaces/moving/roles",
    body: {
      apiVersion: "rbac.authorization.orch.io/v1",
      kind: "Role",
      metadata: { name: "reader" },
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }],
    },
  },
  {
    collection: "/api/v1/namespaces/moving/services",
    body: { apiVersion: "v1", kind: "Service", metadata: { name: "web" }, spec: { selector: { app: "web" }, ports: [{ port: 80 }] } },
  },
];

interface Kept {
  readonly uid: unknown;
  readonly creationTimestamp: unknown;
  /** This test's own managedFields entries (controllers may add theirs after a restart). */
  readonly managedFields: unknown;
  readonly content: unknown;
}

/** What must survive a migration, per object path. */
async function inventory(admin: Credentials): Promise<Map<string, Kept>> {
  const out = new Map<string, Kept>();
  for (const { collection, body } of OBJECTS) {
    const name = (body["metadata"] as { name: string }).name;
    const path = `${collection}/${name}`;
    const read = await request(admin, "GET", path);
    assert.equal(read.status, 200, `${path}: ${read.body}`);
    const object = json(read) as { metadata: Record<string, unknown> } & Record<string, unknown>;
    const managed = (object.metadata["managedFields"] as { manager: string }[] | undefined) ?? [];
    out.set(path, {
      uid: object.metadata["uid"],
      creationTimestamp: object.metadata["creationTimestamp"],
      managedFields: managed.filter((entry) => entry.manager === MANAGER),
      content: object["data"] ?? object["rules"] ?? (object["spec"] as Record<string, unknown> | undefined)?.["clusterIP"] ?? object.metadata["labels"],
    });
  }
  return out;
}

describe("orch-apiserver migrate: SQLite → etcd → SQLite", { timeout: 180_000 }, () => {
  let etcd: EtcdCluster;
  const dirs: string[] = [];
  const dir = (): string => {
    const made = makeTempDir("orch-migrate-");
    dirs.push(made);
    return made;
  };

  before(async () => {
    etcd = await startEtcdCluster();
  });

  after(async () => {
    await etcd?.stop();
    for (const made of dirs) removeDir(made);
  });

  it("copies every key with uids, creationTimestamps and managedFields, and a server on the copy serves the same objects", async () => {
    // 1. Fill a SQLite data dir through the API.
    const sqliteDir = dir();
    const original = await startServer({ storageBackend: "sqlite", dataDir: sqliteDir, securePort: 0, compactionIntervalMs: 0 });
    let before: Map<string, Kept>;
    try {
      for (const { collection, body } of OBJECTS) {
        const created = await request(credentials(original), "POST", `${collection}?fieldManager=${MANAGER}`, { body });
        assert.equal(created.status, 201, created.body);
      }
      before = await inventory(credentials(original));
    } finally {
      await original.stop();
    }
    const sourceKeys = SqliteStorage.inspect(join(sqliteDir, "store.db")).keys;

    // 2. SQLite → etcd, then a server on etcd.
    const toEtcd = await cli(["migrate", "--from", `sqlite:${sqliteDir}`, "--to", "etcd3", "--etcd-servers", etcd.endpoints.join(",")]);
    assert.equal(toEtcd.code, 0, toEtcd.stderr);
    assert.match(toEtcd.stdout, new RegExp(`^migrate: ${sourceKeys} keys copied from sqlite:`));
    // A second run refuses: the target is not empty.
    const again = await cli(["migrate", "--from", `sqlite:${sqliteDir}`, "--to", "etcd3", "--etcd-servers", etcd.endpoints.join(",")]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /not empty/);

    const onEtcd = await startServer({ storageBackend: "etcd3", etcdServers: etcd.endpoints, dataDir: dir(), securePort: 0, compactionIntervalMs: 0 });
    let afterEtcd: Map<string, Kept>;
    try {
      afterEtcd = await inventory(credentials(onEtcd));
    } finally {
      await onEtcd.stop();
    }
    assert.deepEqual(afterEtcd, before);

    // 3. etcd → a new SQLite data dir, then a server on it.
    const backDir = dir();
    const toSqlite = await cli(["migrate", "--from", "etcd3", "--to", `sqlite:${backDir}`, "--etcd-servers", etcd.endpoints.join(",")]);
    assert.equal(toSqlite.code, 0, toSqlite.stderr);
    assert.match(toSqlite.stdout, /^migrate: \d+ keys copied from etcd3 /);
    const back = await startServer({ storageBackend: "sqlite", dataDir: backDir, securePort: 0, compactionIntervalMs: 0 });
    try {
      assert.deepEqual(await inventory(credentials(back)), before);
    } finally {
      await back.stop();
    }
  });

  it("refuses to copy between two stores of one kind, or without a source", async () => {
    const same = await cli(["migrate", "--from", "etcd3", "--to", "etcd3"]);
    assert.equal(same.code, 2);
    assert.match(same.stderr, /must differ/);
    const missing = await cli(["migrate", "--from", `sqlite:${dir()}`, "--to", "etcd3", "--etcd-servers", etcd.endpoints.join(",")]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /has no store\.db/);
  });
});
