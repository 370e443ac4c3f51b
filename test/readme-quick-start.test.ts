// README.md's "Quick start" block, run as written with the newest installed kubectl: the CLI
// started as `npm start` starts it (only the data dir and port differ, so parallel runs never
// share them), then every `kubectl` line of the block, verbatim, through a shell whose `kubectl`
// is the newest release, from a directory where `.orch/admin.kubeconfig` is the server's.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { REPO_ROOT, startCli, type CliServer } from "./helpers/cli.js";
import { credentialsFromKubeconfig, request } from "./helpers/http.js";
import { resolveKubectl } from "./helpers/kubectl.js";
import { makeTempDir, removeDir } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

interface ShellResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The lines of the first ```sh block after the "## Quick start" heading. */
function quickStartLines(readme: string): string[] {
  const section = readme.split(/^## /m).find((part) => part.startsWith("Quick start"));
  assert.ok(section !== undefined, 'README.md has no "## Quick start" section');
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block !== undefined, "the Quick start section has no ```sh block");
  return block.split("\n").filter((line) => line.trim() !== "");
}

const README = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
const KUBECTL = resolveKubectl("newest");

describe(`README quick start with kubectl ${KUBECTL.version}`, () => {
  const lines = quickStartLines(README);
  const commands = lines.filter((line) => /^kubectl\s/.test(line));
  const root = makeTempDir("orch-readme-");
  let cli: CliServer | undefined;

  function shell(command: string): Promise<ShellResult> {
    const env = { ...process.env, PATH: `${join(root, "bin")}:${process.env["PATH"] ?? ""}`, HOME: root };
    return new Promise((done) => {
      execFile("bash", ["-c", command], { cwd: root, env, timeout: 20_000, killSignal: "SIGKILL" }, (error, stdout, stderr) => {
        done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr });
      });
    });
  }

  async function configMapStatus(): Promise<number> {
    const admin = credentialsFromKubeconfig(readFileSync(join(root, ".orch", "admin.kubeconfig"), "utf8"));
    return (await request(admin, "GET", "/api/v1/namespaces/default/configmaps/demo")).status;
  }

  before(async () => {
    mkdirSync(join(root, "bin"));
    symlinkSync(KUBECTL.path, join(root, "bin", "kubectl"));
    cli = await startCli(["--data-dir", join(root, ".orch"), "--secure-port", "0"]);
  });
  after(async () => {
    await cli?.stop();
    removeDir(root);
  });

  it("the block starts the server with npm start, and the start prints the kubeconfig path", async () => {
    assert.match(lines[0] ?? "", /\bnpm start\b/);
    // Printed just after the "serving on" line startCli waits for.
    await waitFor(() => /admin\.kubeconfig/.test(cli?.stdout() ?? ""), { timeoutMs: 5_000, what: "the kubeconfig path on stdout" });
  });

  it("runs the get, create, get -o yaml and delete the block lists, in its order", async () => {
    assert.deepEqual(
      commands.map((command) => /^kubectl --kubeconfig \.orch\/admin\.kubeconfig (\S+)/.exec(command)?.[1]),
      ["get", "create", "get", "delete"],
      `the commands this test checks the effects of: ${commands.join(" | ")}`,
    );
    for (const command of commands) {
      const result = await shell(command);
      assert.equal(result.code, 0, `${command} exited ${result.code}: ${result.stderr}`);
      if (/ get namespaces$/.test(command)) assert.match(result.stdout, /^default\s+Active\s/m, command);
      if (/ create configmap demo /.test(command)) {
        assert.match(result.stdout, /configmap\/demo created/);
        assert.equal(await configMapStatus(), 200, "the config map is stored");
      }
      if (/ get configmap demo -o yaml$/.test(command)) {
        const object = parse(result.stdout) as { kind?: string; data?: unknown; metadata?: { uid?: string } };
        assert.equal(object.kind, "ConfigMap");
        assert.deepEqual(object.data, { a: "b" });
        assert.ok((object.metadata?.uid ?? "") !== "", "server-set metadata");
      }
      if (/ delete configmap demo$/.test(command)) {
        assert.match(result.stdout, /configmap "demo" deleted/);
        assert.equal(await configMapStatus(), 404, "the config map is gone");
      }
    }
  });
});
