// kube's `--audit-log-format legacy` and `--audit-log-compress` end to end: a server started from
// the flags, requests by kubectl 1.27 and 1.33, the log read back as kube's one-line text, and a
// rotated file gzipped.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { parseArgs } from "../src/cli/flags.js";
import { startServer } from "../src/index.js";
import { connectHttp2, credentialsFromKubeconfig } from "./helpers/http.js";
import { kubectlFor, ok } from "./helpers/kubectl.js";
import { makeTempDir, removeDir } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

const POLICY =
  "apiVersion: audit.orch.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n  - level: Metadata\n    resources: [{group: '', resources: [configmaps]}]\n  - level: None\n";

function configOf(flags: readonly string[]) {
  const parsed = parseArgs(flags);
  assert.equal(parsed.kind, "config");
  if (parsed.kind !== "config") throw new Error("no config");
  return parsed.config;
}

/**
 * A server started from the audit flags given (after the policy and the log path, both in a temp
 * dir) for the enclosing describe: the dir, the log's path and the admin kubeconfig.
 */
function useAuditServer(prefix: string, policy: string, flags: readonly string[]): { dir: string; auditLog: string; kubeconfig: () => string } {
  const dir = makeTempDir(prefix);
  const auditLog = join(dir, "audit.log");
  let stop: (() => Promise<void>) | undefined;
  let kubeconfig = "";
  before(async () => {
    writeFileSync(join(dir, "policy.yaml"), policy);
    const config = configOf([`--audit-policy-file=${join(dir, "policy.yaml")}`, `--audit-log-path=${auditLog}`, ...flags]);
    const server = await startServer({ ...config, storageBackend: "memory", dataDir: join(dir, "data"), securePort: 0 });
    stop = () => server.stop();
    kubeconfig = server.kubeconfigPath;
  });
  after(async () => {
    await stop?.();
    removeDir(dir);
  });
  return { dir, auditLog, kubeconfig: () => kubeconfig };
}

describe("--audit-log-format legacy and --audit-log-compress from the command line", () => {
  const { dir, auditLog, kubeconfig } = useAuditServer("orch-audit-formats-", POLICY, [
    "--audit-log-format=legacy",
    "--audit-log-compress",
    "--audit-log-maxsize=1",
    "--audit-log-version=audit.orch.io/v1",
  ]);

  for (const version of ["1.27", "1.33"] as const) {
    it(`kubectl ${version}'s requests are logged as kube's legacy lines`, async () => {
      const kubectl = kubectlFor(kubeconfig(), join(dir, `kubectl-${version}`), version);
      const name = `legacy-${version.replace(".", "")}`;
      ok(await kubectl(["create", "configmap", name, "--from-literal=a=b"]));
      ok(await kubectl(["get", "configmap", name]));
      const lines = await waitFor(
        () => {
          const found = existsSync(auditLog)
            ? readFileSync(auditLog, "utf8")
                .split("\n")
                .filter((line) => line.includes(`/configmaps/${name}`) || line.includes(`configmaps?fieldManager=kubectl-create`))
            : [];
          return found.length >= 2 ? found : undefined;
        },
        { timeoutMs: 10_000, what: "legacy audit lines of the kubectl requests" },
      );
      const get = lines.find((line) => line.includes(`uri="/api/v1/namespaces/default/configmaps/${name}"`)) ?? "";
      assert.match(
        get,
        new RegExp(
          `^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z AUDIT: id="[0-9a-f-]{36}" stage="ResponseComplete" ip="127\\.0\\.0\\.1" method="get" user="[^"]+" groups="(\\\\"[^"\\\\]+\\\\",?)+" as="<self>" asgroups="<lookup>" user-agent="kubectl[^/"]*/v${version.replace(".", "\\.")}\\.\\d+ [^"]*" namespace="default" uri="/api/v1/namespaces/default/configmaps/${name}" response="200"$`,
        ),
      );
      assert.ok(!lines.some((line) => line.startsWith("{")), "no JSON lines in the legacy format");
    });
  }

  it("a rotated file is gzipped beside the current one, holding whole legacy lines", async () => {
    const kubectl = kubectlFor(kubeconfig(), join(dir, "kubectl-rotate"), "1.33");
    // About 1 MiB of lines: enough GETs of a configmap to pass --audit-log-maxsize=1.
    ok(await kubectl(["create", "configmap", "rotate", "--from-literal=a=b"]));
    const uri = "/api/v1/namespaces/default/configmaps/rotate";
    const client = await connectHttp2(credentialsFromKubeconfig(readFileSync(kubeconfig(), "utf8")));
    try {
      // Until the first rotation: a backup (compressed or still being compressed) beside audit.log.
      for (let batch = 0; batch < 100 && !readdirSync(dir).some((file) => file.startsWith("audit-")); batch++) {
        const replies = await Promise.all(Array.from({ length: 200 }, () => client.request("GET", uri)));
        for (const reply of replies) assert.equal(reply.status, 200);
      }
    } finally {
      await client.close();
    }
    await waitFor(() => readdirSync(dir).some((file) => file.endsWith(".log.gz")) || undefined, { timeoutMs: 10_000, what: "the rotated file compressed" });
    const compressed = readdirSync(dir).filter((file) => /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log\.gz$/.test(file));
    assert.equal(compressed.length >= 1, true, readdirSync(dir).join(" "));
    const text = gunzipSync(readFileSync(join(dir, compressed[0] as string))).toString("utf8");
    const lines = text.trimEnd().split("\n");
    assert.ok(lines.length > 1000, String(lines.length));
    for (const line of lines) assert.match(line, / AUDIT: id="[0-9a-f-]{36}" stage="ResponseComplete" /);
    assert.ok(!readdirSync(dir).some((file) => /^audit-.*\.log$/.test(file)), "no uncompressed backup left");
  });
});

describe("--audit-log-truncate-enabled from the command line", () => {
  const { dir, auditLog, kubeconfig } = useAuditServer(
    "orch-audit-truncate-",
    "apiVersion: audit.orch.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n  - level: RequestResponse\n    resources: [{group: '', resources: [configmaps]}]\n  - level: None\n",
    ["--audit-log-truncate-enabled", "--audit-log-truncate-max-event-size=4096"],
  );

  it("a large configmap's create is logged without its bodies, annotated truncated; a small one whole", async () => {
    const kubectl = kubectlFor(kubeconfig(), join(dir, "kubectl"), "1.33");
    ok(await kubectl(["create", "configmap", "large", `--from-literal=a=${"x".repeat(8000)}`]));
    ok(await kubectl(["create", "configmap", "small", "--from-literal=a=b"]));
    const events = await waitFor(
      () => {
        const found = existsSync(auditLog)
          ? readFileSync(auditLog, "utf8")
              .trimEnd()
              .split("\n")
              .map((line) => JSON.parse(line) as Record<string, unknown>)
              .filter((event) => event["verb"] === "create")
          : [];
        return found.length >= 2 ? found : undefined;
      },
      { timeoutMs: 10_000, what: "the creates' audit events" },
    );
    const named = (name: string) => events.find((event) => (event["objectRef"] as Record<string, string>)["name"] === name) ?? {};
    const large = named("large");
    assert.equal(large["requestObject"], undefined);
    assert.equal(large["responseObject"], undefined);
    assert.equal((large["annotations"] as Record<string, string>)["audit.orch.io/truncated"], "true");
    const small = named("small");
    assert.deepEqual((small["requestObject"] as Record<string, unknown>)["data"], { a: "b" });
    assert.equal((small["annotations"] as Record<string, string>)["audit.orch.io/truncated"], undefined);
  });
});
