import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../../api/profile.js";
import { startKmsPlugin } from "../../testing/kms-plugin.js";
import { KeyLayout } from "../key-layout.js";
import { MemoryStorage } from "../memory/memory-storage.js";
import { EncryptingStorage, EncryptionConfigError, loadEncryptionConfig, rewriteAll, type EncryptionConfig } from "./index.js";

const dir = mkdtempSync(join(tmpdir(), "orch-encryption-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const opened: EncryptionConfig[] = [];
after(() => {
  for (const config of opened) config.close();
});

/** Keys in kube's layout: core secrets and configmaps, apps deployments and replicasets, an RBAC kind. */
const LAYOUT = new KeyLayout([
  { group: "", plural: "secrets" },
  { group: "", plural: "configmaps" },
  { group: "", plural: "services" },
  { group: "", plural: "endpoints" },
  { group: "apps", plural: "deployments" },
  { group: "apps", plural: "replicasets" },
  { group: "rbac.authorization.orch.io", plural: "roles" },
]);

const KEY_A = randomBytes(32).toString("base64");
const KEY_B = randomBytes(32).toString("base64");
const SECRET = JSON.stringify({ kind: "Secret", metadata: { name: "s" }, data: { password: "aHVudGVyMg==" } });

function provider(type: string, keys: readonly [string, string][]): string {
  return `      - ${type}:\n          keys:\n${keys.map(([name, secret]) => `            - name: ${name}\n              secret: ${secret}\n`).join("")}`;
}

/** Writes an EncryptionConfiguration for `resources` with the given provider YAML blocks and loads it. */
function config(providers: readonly string[], options: { resources?: string; kmsStatusTtlMs?: number; profile?: typeof ORCH_PROFILE } = {}): EncryptionConfig {
  const path = join(dir, `config-${files++}.yaml`);
  const group = options.profile === KUBERNETES_PROFILE ? "k8s.io" : "orch.io";
  writeFileSync(
    path,
    `apiVersion: apiserver.config.${group}/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [${options.resources ?? "secrets"}]\n    providers:\n${providers.join("")}`,
  );
  const loaded = loadEncryptionConfig(path, options.profile ?? ORCH_PROFILE, { kmsStatusTtlMs: options.kmsStatusTtlMs, layout: LAYOUT });
  opened.push(loaded);
  return loaded;
}

const IDENTITY = "      - identity: {}\n";

async function rawValue(inner: MemoryStorage, key: string): Promise<string> {
  return (await inner.get(key)).value;
}

describe("EncryptingStorage", () => {
  for (const [type, keyBytes] of [
    ["aescbc", 32],
    ["aescbc", 16],
    ["aesgcm", 32],
    ["aesgcm", 24],
    ["secretbox", 32],
  ] as const) {
    test(`${type} (${keyBytes}-byte key) stores ciphertext under its prefix and reads the plain text back`, async () => {
      const inner = new MemoryStorage();
      const storage = new EncryptingStorage(inner, config([provider(type, [["k1", randomBytes(keyBytes).toString("base64")]])]));
      await storage.create("/secrets/default/s", SECRET);
      const raw = await rawValue(inner, "/secrets/default/s");
      assert.ok(raw.startsWith(`orch:enc:${type}:v1:k1:`), raw.slice(0, 40));
      assert.ok(!raw.includes("aHVudGVyMg=="), "the secret's data is not in the stored bytes");
      assert.equal((await storage.get("/secrets/default/s")).value, SECRET);
      assert.deepEqual(
        (await storage.list("/secrets/")).items.map((item) => item.value),
        [SECRET],
      );
    });
  }

  test("resources the configuration does not name are stored as plain text", async () => {
    const inner = new MemoryStorage();
    const storage = new EncryptingStorage(inner, config([provider("aesgcm", [["k1", KEY_A]])]));
    await storage.create("/configmaps/default/c", "{}");
    assert.equal(await rawValue(inner, "/configmaps/default/c"), "{}");
  });

  test("resource patterns: resource.group, *.group, *. (core) and *.* match the storage key's group and resource", async () => {
    const cases: [string, string, boolean][] = [
      ["deployments.apps", "/deployments/default/d", true],
      ["deployments.apps", "/replicasets/default/r", false],
      ["*.apps", "/replicasets/default/r", true],
      ["*.", "/configmaps/default/c", true],
      ["*.", "/deployments/default/d", false],
      ["*.*", "/roles/default/r", true],
      ["services", "/services/specs/default/s", true],
      ["services", "/services/endpoints/default/s", false],
      ["crontabs.stable.example.com", "/stable.example.com/crontabs/default/c", true],
      ["*.*", "/ranges/serviceips/10.0.0.1", false],
      ["secrets", "/secrets/default/s", true],
    ];
    for (const [pattern, key, encrypted] of cases) {
      const loaded = config([provider("aesgcm", [["k1", KEY_A]])], { resources: `'${pattern}'` });
      assert.equal(loaded.chainFor(key) !== undefined, encrypted, `${pattern} vs ${key}`);
    }
  });

  test("the kubernetes profile writes k8s:enc: and reads its own group's configuration", async () => {
    const inner = new MemoryStorage();
    const storage = new EncryptingStorage(inner, config([provider("aescbc", [["k1", KEY_A]])], { profile: KUBERNETES_PROFILE }));
    await storage.create("/secrets/default/s", SECRET);
    assert.ok((await rawValue(inner, "/secrets/default/s")).startsWith("k8s:enc:aescbc:v1:k1:"));
  });

  test("aesgcm authenticates the key: a value copied under another key does not decrypt (500-class error, not wrong data)", async () => {
    const inner = new MemoryStorage();
    const storage = new EncryptingStorage(inner, config([provider("aesgcm", [["k1", KEY_A]])]));
    await storage.create("/secrets/default/a", SECRET);
    await inner.create("/secrets/default/b", await rawValue(inner, "/secrets/default/a"));
    await assert.rejects(storage.get("/secrets/default/b"), /failed to decrypt the stored value of \/secrets\/default\/b/);
  });

  test("a value cannot be read without its key: wrong key, missing provider, plain text without identity", async () => {
    const inner = new MemoryStorage();
    const writer = new EncryptingStorage(inner, config([provider("aescbc", [["k1", KEY_A]])]));
    await writer.create("/secrets/default/s", SECRET);
    await inner.create("/secrets/default/plain", SECRET);
    const wrongKey = new EncryptingStorage(inner, config([provider("aescbc", [["k1", KEY_B]])]));
    await assert.rejects(wrongKey.get("/secrets/default/s"), /failed to decrypt/);
    const otherProvider = new EncryptingStorage(inner, config([provider("secretbox", [["k1", KEY_A]]), IDENTITY]));
    await assert.rejects(otherProvider.get("/secrets/default/s"), /no configured provider can read .* \(written by orch:enc:aescbc:v1:k1:\)/);
    await assert.rejects(writer.get("/secrets/default/plain"), /not encrypted and the identity provider is not configured/);
    assert.equal((await otherProvider.get("/secrets/default/plain")).value, SECRET);
  });

  test("an unchanged update writes nothing; a stale one (older key first) is re-encrypted and written", async () => {
    const inner = new MemoryStorage();
    const old = new EncryptingStorage(inner, config([provider("aescbc", [["old", KEY_A]])]));
    const revision = await old.create("/secrets/default/s", SECRET);
    const unchanged = await old.guaranteedUpdate("/secrets/default/s", (current) => current?.value ?? "");
    assert.equal(unchanged.revision, revision);
    assert.equal(inner.currentRevision(), revision);
    // Rotation, step 1: the new key first, the old one still readable.
    const rotated = new EncryptingStorage(
      inner,
      config([
        provider("aescbc", [
          ["new", KEY_B],
          ["old", KEY_A],
        ]),
      ]),
    );
    assert.equal((await rotated.get("/secrets/default/s")).value, SECRET);
    const rewritten = await rotated.guaranteedUpdate("/secrets/default/s", (current) => current?.value ?? "");
    assert.equal(rewritten.revision, revision + 1);
    assert.equal(rewritten.value?.value, SECRET);
    assert.ok((await rawValue(inner, "/secrets/default/s")).startsWith("orch:enc:aescbc:v1:new:"));
    // Step 2: the old key dropped; the value still reads.
    const newOnly = new EncryptingStorage(inner, config([provider("aescbc", [["new", KEY_B]])]));
    assert.equal((await newOnly.get("/secrets/default/s")).value, SECRET);
  });

  test("rewriteAll moves plain and old-key values to the first provider and leaves current ones alone", async () => {
    const inner = new MemoryStorage();
    await inner.create("/secrets/a/plain", SECRET);
    const old = new EncryptingStorage(inner, config([provider("aesgcm", [["old", KEY_A]]), IDENTITY]));
    await old.create("/secrets/b/old", SECRET);
    const current = new EncryptingStorage(inner, config([provider("secretbox", [["now", KEY_B]]), provider("aesgcm", [["old", KEY_A]]), IDENTITY]));
    await current.create("/secrets/c/current", SECRET);
    const report = await rewriteAll(current, ["/secrets/"], 2);
    assert.deepEqual(report, { visited: 3, rewritten: 2 });
    for (const key of ["/secrets/a/plain", "/secrets/b/old", "/secrets/c/current"]) {
      assert.ok((await rawValue(inner, key)).startsWith("orch:enc:secretbox:v1:now:"), key);
    }
    const strict = new EncryptingStorage(inner, config([provider("secretbox", [["now", KEY_B]])]));
    assert.equal((await strict.list("/secrets/")).items.length, 3);
  });

  test("watch events carry the decrypted value and previous value", async () => {
    const inner = new MemoryStorage();
    const storage = new EncryptingStorage(inner, config([provider("aesgcm", [["k1", KEY_A]])]));
    const stop = new AbortController();
    const events = storage.watch("/secrets/", 0, stop.signal)[Symbol.asyncIterator]();
    await storage.create("/secrets/default/s", SECRET);
    await storage.guaranteedUpdate("/secrets/default/s", () => "{}");
    const first = await events.next();
    const second = await events.next();
    stop.abort();
    assert.equal(first.value?.value, SECRET);
    assert.equal(second.value?.value, "{}");
    assert.equal(second.value?.previous, SECRET);
  });
});

describe("loadEncryptionConfig()", () => {
  const cases: [string, string, RegExp][] = [
    [
      "wrong group",
      "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources: []\n",
      /must be apiserver.config.orch.io\/v1 EncryptionConfiguration, not apiserver.config.k8s.io\/v1 EncryptionConfiguration; this server runs --compat orch, which spells apiserver.config.k8s.io as apiserver.config.orch.io: change the apiVersion, or start the server with --compat kubernetes to use a stock Kubernetes file as it is$/,
    ],
    ["no resources", "apiVersion: apiserver.config.orch.io/v1\nkind: EncryptionConfiguration\nresources: []\n", /resources: Required value/],
    [
      "two types in one provider",
      `resources: [secrets]\n    providers:\n      - identity: {}\n        aescbc: {keys: [{name: a, secret: ${KEY_A}}]}\n`,
      /exactly one provider type/,
    ],
    [
      "short AES key",
      `resources: [secrets]\n    providers:\n      - aescbc: {keys: [{name: a, secret: ${randomBytes(10).toString("base64")}}]}\n`,
      /keys\[0\]\.secret: Invalid value: "REDACTED": secret is not of the expected length, got 10, expected one of \[16 24 32\]$/,
    ],
    [
      "short secretbox key",
      `resources: [secrets]\n    providers:\n      - secretbox: {keys: [{name: a, secret: ${randomBytes(16).toString("base64")}}]}\n`,
      /secretbox\.keys\[0\]\.secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of \[32\]$/,
    ],
    [
      "duplicate key names",
      `resources: [secrets]\n    providers:\n      - aesgcm: {keys: [{name: a, secret: ${KEY_A}}, {name: a, secret: ${KEY_B}}]}\n`,
      /keys\[1\]\.name: Duplicate value/,
    ],
    ["kms v1", "resources: [secrets]\n    providers:\n      - kms: {name: p, endpoint: 'unix:///tmp/x.sock'}\n", /kms\.apiVersion: Unsupported value: "v1"/],
    [
      "kms over tcp",
      "resources: [secrets]\n    providers:\n      - kms: {apiVersion: v2, name: p, endpoint: 'tcp://127.0.0.1:1'}\n",
      /kms\.endpoint: Invalid value/,
    ],
    ["unknown provider", "resources: [secrets]\n    providers:\n      - rot13: {}\n", /rot13: Unsupported value/],
    ["bad resource", "resources: ['secrets/x']\n    providers:\n      - identity: {}\n", /resources\[0\]: Invalid value/],
    [
      "capitals",
      "resources: [secrets, Pandas.example.io]\n    providers:\n      - identity: {}\n",
      /^resources\[0\]\.resources\[1\]: Invalid value: "Pandas.example.io": resource name should not contain capital letters$/,
    ],
    [
      "a bare *",
      "resources: ['*']\n    providers:\n      - identity: {}\n",
      /^resources\[0\]\.resources\[0\]: Invalid value: "\*": use '\*\.' to encrypt all the resources from core API group or \*\.\* to encrypt all resources$/,
    ],
    [
      "resource.*",
      "resources: ['secrets.*']\n    providers:\n      - identity: {}\n",
      /^resources\[0\]\.resources\[0\]: Invalid value: "secrets\.\*": encrypting the same resource across groups is not supported$/,
    ],
    [
      "a name beside a wildcard covering it",
      "resources: [secrets, '*.']\n    providers:\n      - identity: {}\n",
      /^resources\[0\]\.resources: Invalid value: \[\]string\{"secrets", "\*\."\}: using overlapping resources such as 'secrets' and '\*\.' in the same resource list is not allowed as they will be masked$/,
    ],
    [
      "a name twice",
      "resources: [deployments.apps, deployments.apps]\n    providers:\n      - identity: {}\n",
      /^resources\[0\]\.resources: Invalid value: \[\]string\{"deployments\.apps", "deployments\.apps"\}: the same resource cannot be specified multiple times$/,
    ],
    [
      "the events group",
      "resources: ['*.events.orch.io']\n    providers:\n      - identity: {}\n",
      /^resources\[0\]\.resources\[0\]: Invalid value: "\*\.events\.orch\.io": '\*\.events\.orch\.io' objects are stored using the 'events' API group in etcd\. Use 'events' instead in the config file$/,
    ],
    [
      "extensions",
      "resources: [ingresses.extensions]\n    providers:\n      - identity: {}\n",
      /^resources\[0\]\.resources\[0\]: Invalid value: "ingresses\.extensions": 'extensions' group has been removed and cannot be used for encryption$/,
    ],
    [
      "an empty list",
      "resources: []\n    providers:\n      - identity: {}\n",
      /^resources\[0\]\.resources: Required value: at least one resources\[0\]\.resources is required$/,
    ],
  ];
  for (const [name, body, message] of cases) {
    test(`refuses ${name}`, () => {
      const path = join(dir, `bad-${files++}.yaml`);
      writeFileSync(
        path,
        body.startsWith("apiVersion") ? body : `apiVersion: apiserver.config.orch.io/v1\nkind: EncryptionConfiguration\nresources:\n  - ${body}`,
      );
      assert.throws(
        () => loadEncryptionConfig(path, ORCH_PROFILE, { layout: LAYOUT }),
        (error: unknown) => error instanceof EncryptionConfigError && message.test(error.message),
      );
    });
  }
});

describe("KMS v2", () => {
  test("envelope-encrypts through a loopback plugin on a unix socket, reuses the data key, and rotates it with the plugin's key id", async () => {
    const plugin = await startKmsPlugin(join(dir, "kms.sock"));
    try {
      const kms = `      - kms:\n          apiVersion: v2\n          name: test-kms\n          endpoint: ${plugin.endpoint}\n          timeout: 2s\n`;
      const inner = new MemoryStorage();
      const storage = new EncryptingStorage(inner, config([kms], { kmsStatusTtlMs: 0 }));
      await storage.create("/secrets/default/a", SECRET);
      await storage.create("/secrets/default/b", SECRET);
      const raw = await rawValue(inner, "/secrets/default/a");
      assert.ok(raw.startsWith("orch:enc:kms:v2:test-kms:"), raw.slice(0, 40));
      assert.ok(!raw.includes("aHVudGVyMg=="));
      assert.equal(plugin.calls.encrypt, 1, "one data key for both writes");
      assert.equal((await storage.get("/secrets/default/a")).value, SECRET);

      plugin.rotate("key-2");
      const rewritten = await rewriteAll(storage, ["/secrets/"]);
      assert.deepEqual(rewritten, { visited: 2, rewritten: 2 });
      assert.equal(plugin.calls.encrypt, 2, "a new data key for the new key id");
      // A fresh server process (empty DEK cache) decrypts through the plugin.
      const fresh = new EncryptingStorage(inner, config([kms]));
      assert.equal((await fresh.get("/secrets/default/b")).value, SECRET);
      assert.ok(plugin.calls.decrypt >= 1);
      assert.equal((await rewriteAll(fresh, ["/secrets/"])).rewritten, 0);

      const health = config([kms]).kmsProviders[0];
      await health?.checkHealth();
      plugin.setHealthy(false);
      await assert.rejects(health?.checkHealth() ?? Promise.resolve(), /unhealthy/);
    } finally {
      await plugin.stop();
    }
  });
});

describe("kubernetes.io's EncryptionConfiguration examples (test/fixtures/real-config)", () => {
  const fixture = (name: string): string => join(import.meta.dirname, "../../../../test/fixtures/real-config", name);

  test("the secretbox-first file loads under --compat kubernetes and writes k8s:enc:secretbox:v1:key1:", async () => {
    const loaded = loadEncryptionConfig(fixture("encryption-secretbox-first.yaml"), KUBERNETES_PROFILE, { layout: LAYOUT });
    opened.push(loaded);
    const inner = new MemoryStorage();
    const storage = new EncryptingStorage(inner, loaded);
    await storage.create("/secrets/default/s", SECRET);
    assert.ok((await rawValue(inner, "/secrets/default/s")).startsWith("k8s:enc:secretbox:v1:key1:"));
    assert.equal((await storage.get("/secrets/default/s")).value, SECRET);
  });

  test("the page's wildcard example is refused as kube refuses it: its '*.apps' key is 28 bytes", () => {
    assert.throws(() => loadEncryptionConfig(fixture("encryption-kubernetes-io.yaml"), KUBERNETES_PROFILE, { layout: LAYOUT }), {
      message:
        'resources[2].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 28, expected one of [16 24 32]',
    });
  });
});
