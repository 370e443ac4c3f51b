// Bundles the compiled CLI (dist/src, from tsc) into dist/bundle/ with esbuild, for start-up speed
// (issue #21): node 20 resolves, loads and links each ES module on its own, and the CLI's ~470
// modules plus ~250 CommonJS files of its packages cost ~400 ms of CPU before the first line runs;
// one file costs a fraction. tsc stays the only compiler (type checks, tests); esbuild only joins.
// Packages loaded at first use (gRPC, protobufjs, the tracing SDK: createRequire at run time) and
// dynamic import()s stay out of the entry file (separate chunks or node_modules), so they stay lazy.
// better-sqlite3 stays external: it loads a native addon by path.
// bin/orch-apiserver.js runs the bundle when it is at least as new as dist/src/cli/main.js.
// Usage: node scripts/bundle.mjs [OUTDIR [--meta]] (default dist/bundle; --meta writes esbuild's
// metafile as OUTDIR/meta.json: which inputs went into which output, for test/bundle.test.ts).
import { rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("../", import.meta.url));
const outdir = resolve(process.argv[2] ?? `${root}dist/bundle`);
const writeMeta = process.argv.includes("--meta");
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: [`${root}dist/src/cli/main.js`],
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["better-sqlite3"],
  // Bundled CommonJS packages call require() for node's own modules.
  banner: { js: 'import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);' },
  // Class and function names stay as written (errors and logs print them).
  keepNames: true,
  minifyWhitespace: true,
  metafile: writeMeta,
  logLevel: "warning",
});
if (writeMeta) writeFileSync(`${outdir}/meta.json`, JSON.stringify(result.metafile));
