// Bundles the compiled CLI (dist/src, from tsc) into one CommonJS file, dist/bundle/main.cjs, with
// esbuild, for start-up speed (issue #21): node 20 resolves, loads and links each ES module on its
// own, and the CLI's ~470 modules plus ~250 CommonJS files of its packages cost ~400 ms of CPU
// before the first line runs; one file costs a fraction, and load.mjs (scripts/bundle-loader.mjs)
// runs it with V8's code cache. tsc stays the only compiler (type checks, tests); esbuild joins.
// Packages of rare features stay in node_modules, required at first use: undici (webhooks),
// jose (tokens), @peculiar/x509 (certificate generation), yaml, tweetnacl, and gRPC, protobufjs,
// the tracing SDK (createRequire at run time). better-sqlite3 stays external (a native addon).
// bin/orch-apiserver.js runs the bundle when it is at least as new as dist/src/cli/main.js.
// Usage: node scripts/bundle.mjs [OUTDIR [--meta]] (default dist/bundle; --meta writes esbuild's
// metafile as OUTDIR/meta.json: which inputs went into the bundle, for test/bundle.test.ts).
import { copyFileSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("../", import.meta.url));
const outdir = resolve(process.argv[2] ?? `${root}dist/bundle`);
const writeMeta = process.argv.includes("--meta");
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: [`${root}dist/src/cli/main.js`],
  outfile: `${outdir}/main.cjs`,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  // import() becomes require() (every package kept external has a CommonJS build), so the file
  // runs in a vm.Script without a dynamic-import loader.
  supported: { "dynamic-import": false },
  external: ["better-sqlite3", "undici", "jose", "@peculiar/x509", "yaml", "tweetnacl"],
  // createRequire(import.meta.url) in src (lazily required packages) resolves from the bundle.
  define: { "import.meta.url": "__bundleUrl" },
  banner: { js: 'const __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  // Class and function names stay as written (errors and logs print them).
  keepNames: true,
  minifyWhitespace: true,
  metafile: writeMeta,
  logLevel: "warning",
});
copyFileSync(`${root}scripts/bundle-loader.mjs`, `${outdir}/load.mjs`);
if (writeMeta) writeFileSync(`${outdir}/meta.json`, JSON.stringify(result.metafile));
