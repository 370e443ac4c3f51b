import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { KUBERNETES_PROFILE } from "../api/profile.js";
import { FlagError, parseArgs } from "./flags.js";

function config(argv: string[]) {
  const parsed = parseArgs(argv);
  assert.equal(parsed.kind, "config");
  return parsed.kind === "config" ? parsed.config : undefined;
}

describe("parseArgs()", () => {
  it("uses kube-apiserver's defaults", () => {
    const parsed = config([]);
    assert.equal(parsed?.securePort, 6443);
    assert.equal(parsed?.bindAddress, "127.0.0.1");
    assert.equal(parsed?.dataDir, ".orch");
    assert.equal(parsed?.storageBackend, "sqlite");
    assert.equal(parsed?.compactionIntervalMs, 300_000);
  });

  it("reads --flag=value, --flag value and -v forms", () => {
    const parsed = config([
      "--secure-port=0",
      "--data-dir",
      "/tmp/x",
      "--storage-backend=memory",
      "--compat",
      "kubernetes",
      "-v=4",
      "--etcd-compaction-interval=500ms",
    ]);
    assert.equal(parsed?.securePort, 0);
    assert.equal(parsed?.dataDir, "/tmp/x");
    assert.equal(parsed?.storageBackend, "memory");
    assert.equal(parsed?.profile, KUBERNETES_PROFILE);
    assert.equal(parsed?.verbosity, 4);
    assert.equal(parsed?.compactionIntervalMs, 500);
    assert.equal(config(["--v", "2"])?.verbosity, 2);
  });

  it("returns help text listing every flag", () => {
    const parsed = parseArgs(["--help"]);
    assert.equal(parsed.kind, "help");
    if (parsed.kind === "help")
      for (const flag of [
        "--secure-port",
        "--bind-address",
        "--data-dir",
        "--tls-cert-file",
        "--tls-private-key-file",
        "--client-ca-file",
        "--token-auth-file",
        "--storage-backend",
        "--compat",
        "--v",
      ])
        assert.ok(parsed.text.includes(flag), flag);
  });

  const bad: ReadonlyArray<readonly [string[], RegExp]> = [
    [["--nope"], /unknown flag: --nope/],
    [["--secure-port=abc"], /--secure-port/],
    [["--secure-port=70000"], /--secure-port/],
    [["--storage-backend=etcd9"], /--storage-backend/],
    [["--compat=k8s"], /--compat/],
    [["--etcd-compaction-interval=5"], /--etcd-compaction-interval/],
    [["-v=x"], /-v/],
    [["--data-dir"], /needs an argument/],
    [["--tls-cert-file=/a"], /together/],
    [["positional"], /unexpected argument/],
  ];
  for (const [argv, message] of bad) {
    it(`rejects ${argv.join(" ")}`, () =>
      assert.throws(
        () => parseArgs(argv),
        (error: unknown) => error instanceof FlagError && message.test(error.message),
      ));
  }
});

describe("parseArgs() etcd flags", () => {
  it("reads kube's etcd flags with kube's defaults", () => {
    const defaults = config([]);
    assert.equal(defaults?.etcdPrefix, "/registry");
    assert.deepEqual(defaults?.etcdServers, []);
    assert.equal(defaults?.etcdReadycheckTimeoutMs, 2_000);
    assert.equal(defaults?.etcdCountMetricPollPeriodMs, 60_000);
    assert.equal(defaults?.requestTimeoutMs, 60_000);
    const parsed = config([
      "--storage-backend=etcd3",
      "--etcd-servers=https://127.0.0.1:2379,https://127.0.0.1:22379",
      "--etcd-servers",
      "https://127.0.0.1:32379",
      "--etcd-cafile=/pki/ca.crt",
      "--etcd-certfile=/pki/client.crt",
      "--etcd-keyfile=/pki/client.key",
      "--etcd-prefix=/custom/",
      "--etcd-count-metric-poll-period=30s",
      "--etcd-readycheck-timeout=1s",
      "--request-timeout=10s",
    ]);
    assert.equal(parsed?.storageBackend, "etcd3");
    assert.deepEqual(parsed?.etcdServers, ["https://127.0.0.1:2379", "https://127.0.0.1:22379", "https://127.0.0.1:32379"]);
    assert.equal(parsed?.etcdCaFile, "/pki/ca.crt");
    assert.equal(parsed?.etcdCertFile, "/pki/client.crt");
    assert.equal(parsed?.etcdKeyFile, "/pki/client.key");
    assert.equal(parsed?.etcdPrefix, "/custom");
    assert.equal(parsed?.etcdCountMetricPollPeriodMs, 30_000);
    assert.equal(parsed?.etcdReadycheckTimeoutMs, 1_000);
    assert.equal(parsed?.requestTimeoutMs, 10_000);
  });

  for (const [argv, message] of [
    [["--storage-backend=etcd3"], /--etcd-servers must be specified/],
    [["--storage-backend=etcd"], /must be sqlite, memory or etcd3/],
    [["--etcd-servers=127.0.0.1:2379"], /--etcd-servers: must be an http/],
    [["--etcd-certfile=/a"], /--etcd-certfile and --etcd-keyfile/],
    [["--etcd-prefix=registry"], /--etcd-prefix: must start with/],
  ] as const) {
    it(`rejects ${argv.join(" ")}`, () =>
      assert.throws(
        () => parseArgs(argv),
        (error: unknown) => error instanceof FlagError && message.test(error.message),
      ));
  }
});

describe("parseArgs() TLS and encryption flags", () => {
  it("reads --tls-min-version, --tls-cipher-suites, repeated --tls-sni-cert-key and the encryption config", () => {
    const parsed = config([
      "--tls-min-version=VersionTLS13",
      "--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
      "--tls-sni-cert-key=a.pem,a-key.pem",
      "--tls-sni-cert-key=b.pem,b-key.pem:*.example.test,Example.test",
      "--encryption-provider-config=enc.yaml",
      "--encryption-provider-config-automatic-reload",
    ]);
    assert.equal(parsed?.tlsMinVersion, "VersionTLS13");
    assert.deepEqual(parsed?.tlsCipherSuites, ["TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"]);
    assert.deepEqual(parsed?.tlsSniCertKeys, [
      { certFile: "a.pem", keyFile: "a-key.pem", names: [] },
      { certFile: "b.pem", keyFile: "b-key.pem", names: ["*.example.test", "example.test"] },
    ]);
    assert.equal(parsed?.encryptionProviderConfig, "enc.yaml");
    assert.equal(parsed?.encryptionProviderConfigAutomaticReload, true);
    assert.equal(config([])?.tlsMinVersion, "VersionTLS12");
  });

  for (const [argv, message] of [
    [["--tls-min-version=1.2"], /--tls-min-version: unknown tls version/],
    [["--tls-cipher-suites=AES128-SHA"], /--tls-cipher-suites: unknown cipher suite "AES128-SHA"/],
    [["--tls-sni-cert-key=only-a-cert.pem"], /expected certfile,keyfile/],
    [["--encryption-provider-config-automatic-reload"], /needs --encryption-provider-config/],
  ] as const) {
    it(`rejects ${argv.join(" ")}`, () =>
      assert.throws(
        () => parseArgs(argv),
        (error: unknown) => error instanceof FlagError && message.test(error.message),
      ));
  }
});
