// The one-file bundle the launcher prefers (scripts/bundle.mjs, issue #21: start-up): it serves,
// from V8's code cache too, and the packages of rare features stay out of it (required from
// node_modules at first use).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { get } from "node:https";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { REPO_ROOT, startCli } from "./helpers/cli.js";
import { makeTempDir, removeDir } from "./helpers/server.js";

interface Metafile {
  readonly outputs: Record<
    string,
    { readonly entryPoint?: string; readonly inputs: Record<string, unknown>; readonly imports: readonly { readonly path: string; readonly kind: string }[] }
  >;
}

/** The outputs start-up evaluates: the entry file and what it imports statically, transitively. */
function loadedAtStart(meta: Metafile): string[] {
  const entry = Object.keys(meta.outputs).find((path) => meta.outputs[path]?.entryPoint !== undefined);
  assert.ok(entry !== undefined, "the metafile names an entry output");
  const seen = new Set<string>();
  const visit = (path: string): void => {
    if (seen.has(path) || meta.outputs[path] === undefined) return;
    seen.add(path);
    for (const imported of meta.outputs[path]?.imports ?? []) if (imported.kind === "import-statement") visit(imported.path);
  };
  visit(entry);
  return [...seen];
}

describe("the start-up bundle", () => {
  // Inside the repository, so the bundle's require() finds node_modules as the real one does.
  const outdir = join(REPO_ROOT, "dist", `bundle-test-${process.pid}`);
  let dataDir = "";

  before(() => {
    const built = spawnSync(process.execPath, [join(REPO_ROOT, "scripts", "bundle.mjs"), outdir, "--meta"], { encoding: "utf8", timeout: 120_000 });
    assert.equal(built.status, 0, built.stderr);
    writeFileSync(
      join(outdir, "launch.mjs"),
      'import { main } from "./load.mjs";\nmain(process.argv.slice(2)).then((code) => process.exit(code), (error) => { console.error(error); process.exit(1); });\n',
    );
    dataDir = makeTempDir();
  });

  after(() => {
    removeDir(outdir);
    removeDir(dataDir);
  });

  it("keeps undici, yaml, tweetnacl, jose and the x509 library out of what start-up evaluates", () => {
    const meta = JSON.parse(readFileSync(join(outdir, "meta.json"), "utf8")) as Metafile;
    const atStart = loadedAtStart(meta);
    const inputs = atStart.flatMap((output) => Object.keys(meta.outputs[output]?.inputs ?? {}));
    // The server's own code is there (the check would pass vacuously on an empty list otherwise).
    assert.ok(
      inputs.some((input) => input.endsWith("dist/src/cli/compose.js")),
      "compose.js is in the start-up bundle",
    );
    for (const rare of [
      "node_modules/undici/",
      "node_modules/yaml/",
      "node_modules/tweetnacl/",
      "node_modules/jose/",
      "node_modules/@peculiar/x509/",
      "node_modules/@grpc/",
      "node_modules/protobufjs/",
    ]) {
      assert.deepEqual(
        inputs.filter((input) => input.includes(rare)),
        [],
        `${rare} is evaluated at start-up`,
      );
    }
  });

  /** Starts the bundled CLI on the data dir, checks /readyz answers 200, stops it with SIGTERM. */
  async function serveOnce(): Promise<void> {
    const server = await startCli(["--data-dir", dataDir, "--secure-port", "0"], 60_000, [], join(outdir, "launch.mjs"));
    try {
      const ca = readFileSync(join(dataDir, "pki", "ca.crt"), "utf8");
      // The CLI prints "serving on" once it is ready.
      const status = await new Promise<number>((resolve, reject) => {
        get(`${server.url}/readyz`, { ca }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        }).once("error", reject);
      });
      assert.equal(status, 200);
    } finally {
      const exit = await server.stop();
      assert.equal(exit.code, 0, server.stderr());
    }
  }

  it("starts a server that answers /readyz, writes V8's code cache at exit, and starts again from the cache", async () => {
    const cache = join(outdir, "main.cjs.cache");
    assert.equal(existsSync(cache), false, "a fresh bundle has no code cache");
    await serveOnce();
    assert.ok(statSync(cache).size > 0, "the first run wrote the code cache");
    const written = statSync(cache);
    await serveOnce();
    // The loader rewrites the cache only when V8 rejected it: a flag the server changes at run time
    // (heap-tuning.ts) must be back as it was when the cache is written, or every start rejects it.
    const after = statSync(cache);
    assert.deepEqual([after.ino, after.mtimeMs], [written.ino, written.mtimeMs], "the second run started from the cache (not rewritten)");
  });
});
