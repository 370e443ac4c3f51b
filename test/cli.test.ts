// The command line: flags, first start, authentication and authorization, profiles, protocols.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import http2 from "node:http2";
import { Agent, get as httpsGet } from "node:https";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { selfSignedClientCertificate } from "./helpers/certs.js";
import { BIN, runCli, startCli, type CliServer } from "./helpers/cli.js";
import { credentialsFromKubeconfig, json, request, type Credentials } from "./helpers/http.js";
import { makeTempDir, removeDir } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

function assertStatus(body: Record<string, unknown>, code: number, reason: string): void {
  assert.equal(body["kind"], "Status");
  assert.equal(body["apiVersion"], "v1");
  assert.equal(body["status"], "Failure");
  assert.equal(body["reason"], reason);
  assert.equal(body["code"], code);
  assert.equal(typeof body["message"], "string");
}

describe("orch-apiserver flags", () => {
  it("--help exits 0 and lists the flags", async () => {
    const result = await runCli(["--help"]);
    assert.equal(result.code, 0, result.stderr);
    for (const flag of ["--secure-port", "--storage-backend", "--compat", "--etcd-compaction-interval", "--data-dir", "--token-auth-file"]) {
      assert.ok(result.stdout.includes(flag), `--help does not mention ${flag}`);
    }
  });

  it("an unknown flag exits non-zero naming the flag", async () => {
    const result = await runCli(["--no-such-flag=1"]);
    assert.equal(result.code, 2, "usage errors exit 2 (README)");
    assert.match(result.stderr, /unknown flag: --no-such-flag/);
  });

  const invalid: [string, RegExp][] = [
    ["--secure-port=abc", /invalid value "abc" for flag --secure-port/],
    ["--secure-port=70000", /invalid value "70000" for flag --secure-port/],
    ["--storage-backend=nope", /invalid value "nope" for flag --storage-backend: must be sqlite, memory or etcd3/],
    ["--etcd-compaction-interval=5 parsecs", /invalid value "5 parsecs" for flag --etcd-compaction-interval/],
    ["--compat=openshift", /invalid value "openshift" for flag --compat/],
  ];
  for (const [arg, message] of invalid) {
    it(`${arg} exits non-zero with a clear message`, async () => {
      const result = await runCli([arg]);
      assert.equal(result.code, 2, "usage errors exit 2 (README)");
      assert.match(result.stderr, message);
      assert.equal(result.stdout, "", "nothing may be served");
    });
  }

  it("an invalid --audit-policy-file stops the start (exit 1) with kube's finding, naming the field and the file", async () => {
    const dir = await makeTempDir();
    try {
      const policy = join(dir, "policy.yaml");
      const start = (text: string) => {
        writeFileSync(policy, text);
        return runCli([
          "--data-dir",
          dir,
          "--secure-port",
          "0",
          "--compat",
          "kubernetes",
          "--audit-policy-file",
          policy,
          "--audit-log-path",
          join(dir, "audit.log"),
        ]);
      };
      let result = await start("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Everything\n");
      assert.equal(result.code, 1, result.stderr);
      assert.ok(
        result.stderr.includes(
          `rules[0].level: Unsupported value: "Everything": supported values: "Metadata", "None", "Request", "RequestResponse": from file ${policy}`,
        ),
        result.stderr,
      );
      result = await start("apiVersion: audit.k8s.io/v1\nkind: Policy\n");
      assert.equal(result.code, 1, result.stderr);
      assert.ok(result.stderr.includes(`loaded illegal policy with 0 rules: from file ${policy}`), result.stderr);
    } finally {
      await removeDir(dir);
    }
  });

  it("a flag missing its value exits non-zero", async () => {
    const result = await runCli(["--data-dir"]);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /--data-dir/);
  });
});

describe("a server started by the CLI", () => {
  const root = makeTempDir("orch-cli-");
  // A data dir that does not exist yet: the first start creates it.
  const dataDir = join(root, "data");
  const tokenFile = join(root, "tokens.csv");
  let cli: CliServer | undefined;
  let url = "";
  let ca = "";
  let admin: Credentials;

  before(async () => {
    writeFileSync(tokenFile, ['master-token,alice,uid-alice,"system:masters,devs"', "plain-token,bob,uid-bob,devs", ""].join("\n"));
    cli = await startCli(["--data-dir", dataDir, "--secure-port", "0", "--token-auth-file", tokenFile, "--storage-backend", "memory"]);
    url = cli.url;
    admin = credentialsFromKubeconfig(readFileSync(join(dataDir, "admin.kubeconfig"), "utf8"));
    ca = admin.ca;
  });

  after(async () => {
    await cli?.stop("SIGKILL");
    removeDir(root);
  });

  it("first start generates the admin kubeconfig and the PKI in the data dir", async () => {
    for (const file of ["admin.kubeconfig", "pki/ca.crt", "pki/ca.key", "pki/serving.crt", "pki/serving.key", "pki/admin.crt", "pki/admin.key"]) {
      assert.ok(existsSync(join(dataDir, file)), `${file} missing`);
    }
    assert.equal(admin.url, url);
    assert.equal(ca, readFileSync(join(dataDir, "pki", "ca.crt"), "utf8"));
    // The hint follows the "serving on" line, possibly in a later chunk of the pipe.
    await waitFor(() => /admin kubeconfig: \S*admin\.kubeconfig/.test(cli?.stdout() ?? ""), { what: `the kubeconfig hint on stdout (got: ${cli?.stdout()})` });
  });

  it("/readyz answers 200 ok without credentials", async () => {
    const result = await request({ url, ca }, "GET", "/readyz", { headers: { accept: "*/*" } });
    assert.equal(result.status, 200);
    assert.equal(result.body, "ok");
  });

  it("the admin client certificate from the kubeconfig can list configmaps", async () => {
    const result = await request(admin, "GET", "/api/v1/namespaces/default/configmaps");
    assert.equal(result.status, 200, result.body);
    assert.equal(json(result)["kind"], "ConfigMapList");
  });

  it("an invalid bearer token gets 401 with a Status body", async () => {
    const result = await request({ url, ca, token: "not-a-token" }, "GET", "/api/v1/namespaces/default/configmaps");
    assert.equal(result.status, 401);
    assertStatus(json(result), 401, "Unauthorized");
  });

  it("a client certificate not signed by the cluster CA gets 401", async () => {
    const rogue = await selfSignedClientCertificate("intruder", ["system:masters"]);
    const result = await request({ url, ca, ...rogue }, "GET", "/api/v1/namespaces/default/configmaps");
    assert.equal(result.status, 401);
    assertStatus(json(result), 401, "Unauthorized");
  });

  it("a token user in system:masters can list configmaps", async () => {
    const result = await request({ url, ca, token: "master-token" }, "GET", "/api/v1/namespaces/default/configmaps");
    assert.equal(result.status, 200, result.body);
  });

  it("a token user not in system:masters is forbidden", async () => {
    const result = await request({ url, ca, token: "plain-token" }, "GET", "/api/v1/namespaces/default/configmaps");
    assert.equal(result.status, 403);
    const body = json(result);
    assertStatus(body, 403, "Forbidden");
    assert.match(String(body["message"]), /User "bob" cannot list resource "configmaps"/);
  });

  it("anonymous requests may read /version but not resources", async () => {
    const version = await request({ url, ca }, "GET", "/version");
    assert.equal(version.status, 200);
    assert.equal(json(version)["major"], "1");
    const denied = await request({ url, ca }, "GET", "/api/v1/namespaces");
    assert.equal(denied.status, 403);
    assertStatus(json(denied), 403, "Forbidden");
  });

  it("negotiates HTTP/2 over ALPN", async () => {
    const session = http2.connect(url, { ca: admin.ca, cert: admin.cert, key: admin.key });
    try {
      await new Promise<void>((resolve, reject) => {
        session.once("connect", () => resolve());
        session.once("error", reject);
      });
      assert.equal(session.alpnProtocol, "h2");
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const stream = session.request({ ":path": "/api/v1/namespaces", accept: "application/json" });
        let status = 0;
        let body = "";
        stream.setEncoding("utf8");
        stream.on("response", (headers) => (status = Number(headers[":status"])));
        stream.on("data", (chunk: string) => (body += chunk));
        stream.on("end", () => resolve({ status, body }));
        stream.on("error", reject);
        stream.end();
      });
      assert.equal(status, 200, body);
      assert.equal((JSON.parse(body) as { kind: string }).kind, "NamespaceList");
    } finally {
      session.close();
    }
  });

  it("also serves HTTP/1.1", async () => {
    const result = await request(admin, "GET", "/api/v1/namespaces");
    assert.equal(result.httpVersion, "1.1");
    assert.equal(result.status, 200);
    assert.equal(json(result)["kind"], "NamespaceList");
  });

  it("exits 0 on SIGTERM", async () => {
    assert.deepEqual(await cli?.stop("SIGTERM"), { code: 0, signal: null });
  });
});

describe("--compat kubernetes", () => {
  const dataDir = makeTempDir("orch-compat-");
  let cli: CliServer | undefined;

  before(async () => {
    cli = await startCli(["--data-dir", dataDir, "--secure-port", "0", "--compat", "kubernetes", "--storage-backend", "memory"]);
  });

  after(async () => {
    await cli?.stop("SIGKILL");
    removeDir(dataDir);
  });

  it("creates kube-system, kube-public and kube-node-lease", async () => {
    assert.match(cli?.stdout() ?? "", /compat kubernetes/);
    const admin = credentialsFromKubeconfig(readFileSync(join(dataDir, "admin.kubeconfig"), "utf8"));
    const result = await request(admin, "GET", "/api/v1/namespaces");
    assert.equal(result.status, 200, result.body);
    const names = (json(result)["items"] as { metadata: { name: string } }[]).map((item) => item.metadata.name).sort();
    assert.deepEqual(names, ["default", "kube-node-lease", "kube-public", "kube-system"]);
  });
});

describe("readiness of a starting CLI", () => {
  it("the first /readyz 200 comes after the admin kubeconfig of this listener is written, and a SIGTERM then stops it with 0", async () => {
    const dataDir = makeTempDir();
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
      });
    });
    const server = spawn(process.execPath, [BIN, "--data-dir", dataDir, "--secure-port", String(port)], { stdio: "ignore" });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      server.once("exit", (code, signal) => resolve({ code, signal })),
    );
    try {
      const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
      const readyz = (): Promise<number> =>
        new Promise((resolve) => {
          httpsGet({ host: "127.0.0.1", port, path: "/readyz", agent }, (response) => {
            response.resume();
            response.once("end", () => resolve(response.statusCode ?? 0));
          }).once("error", () => resolve(0));
        });
      await waitFor(async () => (await readyz()) === 200, { what: "the first /readyz 200", timeoutMs: 60_000, intervalMs: 5 });
      // Read at once: the file must be there when readiness is first reported.
      const kubeconfig = readFileSync(join(dataDir, "admin.kubeconfig"), "utf8");
      assert.match(kubeconfig, new RegExp(`server: "https://127\\.0\\.0\\.1:${port}"\\n`));
      agent.destroy();
      // Ready, while the controllers may still be having their first sync: SIGTERM still stops it gracefully.
      server.kill("SIGTERM");
      assert.deepEqual(await exited, { code: 0, signal: null });
    } finally {
      if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
      await exited;
      removeDir(dataDir);
    }
  });
});
