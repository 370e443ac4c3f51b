import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";

const ROOT = resolve(import.meta.dirname, "../..");
const CRUISER = join(ROOT, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");

/** Copies src/ and the layer rule to a scratch dir, adds `files`, and runs the check there. */
function cruiseWith(files: Record<string, string>): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), "orch-layers-"));
  try {
    cpSync(join(ROOT, "src"), join(dir, "src"), { recursive: true });
    for (const name of [".dependency-cruiser.cjs", "tsconfig.json", "package.json"]) cpSync(join(ROOT, name), join(dir, name));
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
    const run = spawnSync(process.execPath, [CRUISER, "src", "--config", ".dependency-cruiser.cjs", "--output-type", "err"], { cwd: dir, encoding: "utf8" });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the layer rule (npm run lint:layers)", { concurrency: true }, () => {
  it("fails on upward imports, on the watch cache used outside registry, and on imports around the registry's face", () => {
    const run = cruiseWith({
      "src/storage/upward.ts": 'import { Store } from "../registry/store.js";\nexport const store = Store;\n',
      "src/endpoints/cacher.ts": 'import { Cacher } from "../registry/cacher/cacher.js";\nexport const cacher = Cacher;\n',
      "src/endpoints/around.ts": 'import { Registry } from "../registry/registry.js";\nexport const registry = Registry;\n',
    });
    assert.notEqual(run.status, 0);
    assert.match(run.output, /layer-storage: src\/storage\/upward\.ts → src\/registry\/store\.ts/);
    assert.match(run.output, /cacher-is-internal-to-registry: src\/endpoints\/cacher\.ts → src\/registry\/cacher\/cacher\.ts/);
    assert.match(run.output, /registry-through-its-face: src\/endpoints\/around\.ts → src\/registry\/registry\.ts/);
  });

  it("passes the tree as it is, with an import through the face", () => {
    const run = cruiseWith({ "src/endpoints/through.ts": 'import { Store } from "../registry/index.js";\nexport const store = Store;\n' });
    assert.equal(run.status, 0, run.output);
  });
});
