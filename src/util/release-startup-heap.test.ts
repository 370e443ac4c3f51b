import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";

const MODULE = new URL("./release-startup-heap.js", import.meta.url).href;

/** Runs `code` (an ES module body) in a fresh node process; returns its stdout. */
function runNode(code: string): string {
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8", timeout: 30_000 });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim();
}

describe("releaseStartupHeap()", () => {
  it("collects, and leaves V8's flags as they were: a code cache written after it is accepted by a fresh process", () => {
    const dir = mkdtempSync(join(tmpdir(), "orch-release-heap-"));
    const cache = join(dir, "script.cache");
    const script = `const source = "(function () { return function add(a) { return a + 1; }; })"; const filename = "probe.js";`;
    try {
      const written = runNode(`
        import { writeFileSync } from "node:fs";
        import vm from "node:vm";
        import { releaseStartupHeap } from ${JSON.stringify(MODULE)};
        ${script}
        const compiled = new vm.Script(source, { filename });
        compiled.runInThisContext()()(1);
        releaseStartupHeap(0);
        await new Promise((resolve) => setTimeout(resolve, 200));
        writeFileSync(${JSON.stringify(cache)}, compiled.createCachedData());
        process.stdout.write("written");
        process.exit(0);
      `);
      assert.equal(written, "written");
      const verdict = runNode(`
        import { readFileSync } from "node:fs";
        import vm from "node:vm";
        ${script}
        const compiled = new vm.Script(source, { filename, cachedData: readFileSync(${JSON.stringify(cache)}) });
        process.stdout.write(String(compiled.cachedDataRejected));
      `);
      assert.equal(verdict, "false", "the cache written after the collections is rejected by a fresh start");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
