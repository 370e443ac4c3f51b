// Disk full (issue #20): the data dir on a small tmpfs (this suite mounts one; it runs as root).
// Writes that do not fit fail with a 500 InternalError Status, as kube answers when etcd's disk is
// full; reads keep working; once space returns, writes work again and the store is sound.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { startCli, type CliServer } from "./helpers/cli.js";
import { configMap, connectHttp2, credentialsFromKubeconfig, type Http2Client } from "./helpers/http.js";
import { checkStoreIntegrity } from "./helpers/store-integrity.js";

const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";

function mount(dir: string, size: string, remount = false): void {
  execFileSync("mount", remount ? ["-o", `remount,size=${size}`, dir] : ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir]);
}

describe("a full disk under the data dir", () => {
  const dir = mkdtempSync(join(tmpdir(), "orch-disk-full-"));
  let cli: CliServer | undefined;
  let mounted = false;
  after(async () => {
    await cli?.stop("SIGKILL");
    if (mounted) execFileSync("umount", [dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("fails writes with a 500 Status, keeps reads, and writes again once space returns, with nothing corrupt", async () => {
    mount(dir, "6m");
    mounted = true;
    cli = await startCli(["--data-dir", dir, "--secure-port", "0"], 60_000);
    const client: Http2Client = await connectHttp2(credentialsFromKubeconfig(readFileSync(join(dir, "admin.kubeconfig"), "utf8")));
    const big = "f".repeat(256 * 1024);
    const stored: string[] = [];
    let failure: { status: number; body: string } | undefined;
    for (let index = 0; index < 100 && failure === undefined; index++) {
      const answer = await client.request("POST", CONFIGMAPS, { body: configMap(`fill-${index}`, { big }) });
      if (answer.status === 201) stored.push(`fill-${index}`);
      else failure = answer;
    }
    assert.ok(failure !== undefined, "the disk filled up");
    assert.ok(stored.length > 0, "some writes fit first");
    assert.equal(failure.status, 500, failure.body);
    const status = JSON.parse(failure.body) as Record<string, unknown>;
    assert.equal(status["kind"], "Status");
    assert.equal(status["reason"], "InternalError");
    assert.match(String(status["message"]), /disk is full|no space/i);

    // Reads keep working: a get, a list, a small write that fails the same way and changes nothing.
    const read = await client.request("GET", `${CONFIGMAPS}/${stored[0]}`);
    assert.equal(read.status, 200, read.body);
    const listed = await client.request("GET", CONFIGMAPS);
    assert.equal(listed.status, 200, listed.body);
    const names = (JSON.parse(listed.body) as { items: { metadata: { name: string } }[] }).items.map((item) => item.metadata.name);
    for (const name of stored) assert.ok(names.includes(name), `${name} is still listed`);
    assert.ok(!names.includes(`fill-${stored.length}`), "the failed create left nothing");

    // Space returns: writes work again, and the store is sound after a stop.
    mount(dir, "64m", true);
    const after = await client.request("POST", CONFIGMAPS, { body: configMap("after-space", { big }) });
    assert.equal(after.status, 201, after.body);
    const reread = await client.request("GET", `${CONFIGMAPS}/after-space`);
    assert.equal(reread.status, 200, reread.body);
    await client.close();
    assert.equal((await cli.stop("SIGTERM")).code, 0);
    const integrity = checkStoreIntegrity(join(dir, "store.db"));
    assert.deepEqual(integrity.problems, []);
    cli = await startCli(["--data-dir", dir, "--secure-port", "0"], 60_000);
    const again = await connectHttp2(credentialsFromKubeconfig(readFileSync(join(dir, "admin.kubeconfig"), "utf8")));
    for (const name of [...stored, "after-space"]) assert.equal((await again.request("GET", `${CONFIGMAPS}/${name}`)).status, 200, name);
    await again.close();
  });
});
