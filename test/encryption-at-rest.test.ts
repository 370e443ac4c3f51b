// Encryption at rest end to end (--encryption-provider-config): kubectl writes secrets, the bytes
// in the SQLite file and in etcd are ciphertext, keys rotate by reordering plus kube's rewrite
// (`kubectl get secrets -A -o json | kubectl replace -f -`), and the file reloads without a restart.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { type EtcdCluster, startEtcdCluster } from "../src/storage/etcd/etcd-member.js";
import { EtcdStorage } from "../src/storage/etcd/etcd-storage.js";
import { startKmsPlugin, type KmsPlugin } from "../src/testing/kms-plugin.js";
import { request } from "./helpers/http.js";
import { type Kubectl, kubectlFor, type KubectlResult } from "./helpers/kubectl.js";
import { makeTempDir, removeDir, startTestServer, type TestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

const PASSWORD = "hunter2-do-not-store";
const PASSWORD_BASE64 = Buffer.from(PASSWORD).toString("base64");
const KEY_1 = randomBytes(32).toString("base64");
const KEY_2 = randomBytes(32).toString("base64");

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

function encryptionConfig(secretProviders: string, kmsEndpoint?: string): string {
  const kms =
    kmsEndpoint === undefined
      ? ""
      : `  - resources: [configmaps]\n    providers:\n      - kms:\n          apiVersion: v2\n          name: loopback\n          endpoint: ${kmsEndpoint}\n`;
  return `apiVersion: apiserver.config.orch.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [secrets]\n    providers:\n${secretProviders}${kms}`;
}

const aescbc = (name: string, secret: string): string => `      - aescbc:\n          keys:\n            - name: ${name}\n              secret: ${secret}\n`;
const aesgcm = (name: string, secret: string): string => `      - aesgcm:\n          keys:\n            - name: ${name}\n              secret: ${secret}\n`;

/**
 * The latest stored value of a key, read from the SQLite file (not through the server). The server
 * holds the database with an exclusive lock, so the files (database and WAL) are copied aside first.
 */
function sqliteValue(dataDir: string, key: string): string {
  const copy = makeTempDir("orch-store-copy-");
  for (const name of readdirSync(dataDir).filter((file) => file === "store.db" || file === "store.db-wal")) copyFileSync(join(dataDir, name), join(copy, name));
  const db = new Database(join(copy, "store.db"), { fileMustExist: true });
  try {
    const row = db.prepare("SELECT value FROM kv WHERE key = ? ORDER BY revision DESC LIMIT 1").get(key) as { value: string | null } | undefined;
    return row?.value ?? "";
  } finally {
    db.close();
    removeDir(copy);
  }
}

/** Every byte the store has on disk (database, WAL), as latin1 text to search. */
function storeBytes(dataDir: string): string {
  return readdirSync(dataDir)
    .filter((name) => name.startsWith("store.db"))
    .map((name) => readFileSync(join(dataDir, name)).toString("latin1"))
    .join("");
}

describe("encryption at rest on SQLite, with kubectl", { timeout: 120_000 }, () => {
  let configDir: string;
  let configPath: string;
  let plugin: KmsPlugin;
  let server: TestServer;
  let kubectl: Kubectl;

  before(async () => {
    configDir = makeTempDir("orch-encryption-config-");
    configPath = join(configDir, "encryption.yaml");
    plugin = await startKmsPlugin(join(configDir, "kms.sock"));
    writeFileSync(configPath, encryptionConfig(aescbc("key1", KEY_1), plugin.endpoint));
    server = await startTestServer({
      storageBackend: "sqlite",
      compactionIntervalMs: 0,
      encryptionProviderConfig: configPath,
      encryptionProviderConfigAutomaticReload: true,
    });
    kubectl = kubectlFor(server.server.kubeconfigPath, server.dataDir);
  });

  after(async () => {
    await server?.close();
    await plugin?.stop();
    removeDir(configDir);
  });

  it("stores secrets as aescbc ciphertext and config maps through the KMS v2 plugin; the file holds neither in the clear", async () => {
    ok(await kubectl(["create", "secret", "generic", "db", `--from-literal=password=${PASSWORD}`]));
    ok(await kubectl(["create", "configmap", "settings", `--from-literal=token=${PASSWORD}`]));
    const secret = sqliteValue(server.dataDir, "/secrets/default/db");
    assert.ok(secret.startsWith("orch:enc:aescbc:v1:key1:"), secret.slice(0, 40));
    const configMap = sqliteValue(server.dataDir, "/configmaps/default/settings");
    assert.ok(configMap.startsWith("orch:enc:kms:v2:loopback:"), configMap.slice(0, 40));
    const disk = storeBytes(server.dataDir);
    assert.ok(!disk.includes(PASSWORD_BASE64) && !disk.includes(PASSWORD), "no plain copy of the secret anywhere in the database or its WAL");
    // Other resources stay plain text.
    assert.match(sqliteValue(server.dataDir, "/namespaces/default"), /^\{/);
    // Through the API, the data reads back.
    assert.equal(ok(await kubectl(["get", "secret", "db", "-o", "jsonpath={.data.password}"])), PASSWORD_BASE64);
    assert.equal(ok(await kubectl(["get", "configmap", "settings", "-o", "jsonpath={.data.token}"])), PASSWORD);
    assert.ok(plugin.calls.encrypt >= 1);
  });

  it("serves /livez/kms-providers from the plugin's Status", async () => {
    assert.equal((await request(server.admin, "GET", "/livez/kms-providers")).status, 200);
    plugin.setHealthy(false);
    try {
      assert.equal((await request(server.admin, "GET", "/livez/kms-providers")).status, 500);
    } finally {
      plugin.setHealthy(true);
    }
  });

  it("rotates the key: reload with the new key first, rewrite with kubectl replace, reload without the old key", async () => {
    writeFileSync(configPath, encryptionConfig(aesgcm("key2", KEY_2) + aescbc("key1", KEY_1), plugin.endpoint));
    let probe = 0;
    await waitFor(
      async () => {
        const name = `probe-${probe++}`;
        ok(await kubectl(["create", "secret", "generic", name, "--from-literal=a=b"]));
        return sqliteValue(server.dataDir, `/secrets/default/${name}`).startsWith("orch:enc:aesgcm:v1:key2:");
      },
      { what: "the reloaded configuration to write with key2", timeoutMs: 20_000, intervalMs: 200 },
    );
    // The old secret is still under key1 until rewritten.
    assert.ok(sqliteValue(server.dataDir, "/secrets/default/db").startsWith("orch:enc:aescbc:v1:key1:"));
    const listPath = join(server.dataDir, "secrets.json");
    writeFileSync(listPath, ok(await kubectl(["get", "secrets", "-A", "-o", "json"])));
    ok(await kubectl(["replace", "-f", listPath]));
    assert.ok(sqliteValue(server.dataDir, "/secrets/default/db").startsWith("orch:enc:aesgcm:v1:key2:"));

    // An invalid file is refused and the running configuration kept.
    writeFileSync(configPath, "kind: NotAnEncryptionConfiguration\n");
    writeFileSync(configPath, encryptionConfig(aesgcm("key2", KEY_2), plugin.endpoint));
    await waitFor(async () => (await kubectl(["get", "secret", "db", "-o", "jsonpath={.data.password}"])).stdout === PASSWORD_BASE64, {
      what: "the secret to read with key2 alone",
      timeoutMs: 20_000,
    });
  });
});

describe("encryption at rest on etcd", { timeout: 120_000 }, () => {
  let etcd: EtcdCluster;
  let server: TestServer;
  let raw: EtcdStorage;
  let configDir: string;

  before(async () => {
    etcd = await startEtcdCluster();
    configDir = makeTempDir("orch-encryption-config-");
    const configPath = join(configDir, "encryption.yaml");
    writeFileSync(configPath, encryptionConfig(aesgcm("etcd-key", KEY_1)));
    server = await startTestServer({
      storageBackend: "etcd3",
      etcdServers: etcd.endpoints,
      compactionIntervalMs: 0,
      requestTimeoutMs: 5_000,
      encryptionProviderConfig: configPath,
    });
    raw = await EtcdStorage.open({ endpoints: etcd.endpoints });
  });

  after(async () => {
    await raw?.close();
    await server?.close();
    await etcd?.stop();
    removeDir(configDir);
  });

  it("writes ciphertext to etcd, read directly with an etcd client", async () => {
    const created = await request(server.admin, "POST", "/api/v1/namespaces/default/secrets", {
      body: { apiVersion: "v1", kind: "Secret", metadata: { name: "db" }, data: { password: PASSWORD_BASE64 } },
    });
    assert.equal(created.status, 201, created.body);
    const stored = await raw.get("/registry/secrets/default/db");
    assert.ok(stored.value.startsWith("orch:enc:aesgcm:v1:etcd-key:"), stored.value.slice(0, 40));
    assert.ok(!stored.value.includes(PASSWORD_BASE64));
    const read = await request(server.admin, "GET", "/api/v1/namespaces/default/secrets/db");
    assert.match(read.body, new RegExp(PASSWORD_BASE64));
  });
});
