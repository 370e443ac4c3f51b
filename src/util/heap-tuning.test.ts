import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { tuneHeap } from "./heap-tuning.js";

const MODULE = fileURLToPath(new URL("./heap-tuning.js", import.meta.url));

/**
 * A probe of V8's pretenuring in script text: one literal site (`make<name>`) whose objects are all
 * kept alive through many young collections (V8's feedback then says "pretenure"), then ten fresh
 * objects from that site checked for being in the young generation.
 */
function probeSource(name: string): string {
  return `
    const keep${name} = [];
    function make${name}(i) { return { a: i, b: i + 1 }; }
    function train${name}() { for (let i = 0; i < 5e5; i++) keep${name}.push(make${name}(i)); }
    function probe${name}() {
      for (let round = 0; round < 6; round++) train${name}();
      let old = 0;
      for (let j = 0; j < 10; j++) if (!%InYoungGeneration(make${name}(j))) old++;
      keep${name}.length = 0;
      return old === 0 ? "young" : old === 10 ? "old" : \`\${old} of 10 old\`;
    }`;
}

/** Runs `steps` (module code; `tuneHeap` and the probe A are in scope) in a fresh node with V8's natives syntax; its output. */
function run(steps: string): string {
  const script = `const { tuneHeap } = await import(${JSON.stringify(MODULE)});\n${probeSource("A")}\n${steps}`;
  const child = spawnSync(process.execPath, ["--allow-natives-syntax", "--input-type=module", "-e", script], {
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  assert.equal(child.status, 0, child.stderr);
  return child.stdout.trim();
}

describe("tuneHeap()", () => {
  it("leaves a pretenuring flag the process was started with as it is", () => {
    assert.equal(tuneHeap(["--allocation-site-pretenuring"], ""), false);
    assert.equal(tuneHeap([], "--max-old-space-size=100 --no-allocation_site_pretenuring"), false);
  });

  it("keeps request-like literals in the young generation where V8 would pretenure them", () => {
    // The control shows the probe sees pretenuring on this V8; tuned, the site's objects stay young.
    assert.equal(run("console.log(probeA());"), "old");
    assert.equal(run('console.log(tuneHeap([], ""), probeA());'), "true young");
  });

  it("sets the flag back before exit listeners registered earlier run, so a code cache written at exit is accepted by the next start", () => {
    const dir = mkdtempSync(join(tmpdir(), "heap-tuning-"));
    try {
      const cache = join(dir, "cache");
      // As the bundle's loader: the script compiled and its cache writer registered before main runs.
      const write = (change: string): void => {
        run(`const vm = await import("node:vm"); const fs = await import("node:fs");
          const script = new vm.Script("1 + 1");
          process.once("exit", () => fs.writeFileSync(${JSON.stringify(cache)}, script.createCachedData()));
          ${change}`);
      };
      const rejected = (): string =>
        run(`const vm = await import("node:vm"); const fs = await import("node:fs");
          console.log(new vm.Script("1 + 1", { cachedData: fs.readFileSync(${JSON.stringify(cache)}) }).cachedDataRejected);`);
      write('(await import("node:v8")).setFlagsFromString("--no-allocation-site-pretenuring");');
      assert.equal(rejected(), "true", "a flag left changed at exit makes the cache unusable (the control)");
      write('tuneHeap([], "");');
      assert.equal(rejected(), "false");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
