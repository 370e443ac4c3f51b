// A data dir belongs to one server at a time and to one --compat profile.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
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
    const started = Date.now();
    const second = await runCli(["--data-dir", dataDir, "--secure-port", "0"]);
    assert.equal(second.code, 1, second.stderr);
    assert.equal(second.stderr, `Error: data dir ${dataDir} in use by pid ${first.child.pid}\n`);
    assert.ok(Date.now() - started < 4000, "the second server gave up at once");
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
});
