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
import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  // No keepNames: identifiers are not minified, so names stay as written except where two modules'
  // top-level names collide (esbuild suffixes one: decode2), which only a stack trace shows. keepNames
  // would wrap every named closure in a defineProperty call each time it is made (~0.2–0.4 µs, about
  // 15 per create and 4 per GET on the request path), and nothing reads a constructor's name.
  keepNames: false,
  minifyWhitespace: true,
  metafile: writeMeta,
  logLevel: "warning",
});
// Without keepNames, bundled code that compares a constructor's name (the CEL library's
// `value.constructor?.name === "Duration"`) needs that class to keep its name: fail the build if
// esbuild renamed one to avoid a collision.
const bundled = readFileSync(`${outdir}/main.cjs`, "utf8");
for (const [, name] of bundled.matchAll(/constructor\??\.name===?"(\w+)"/g)) {
  if (!new RegExp(`(?:\\bclass ${name}\\b|\\b${name}=class\\b)`).test(bundled)) {
    throw new Error(`bundle: class ${name}, whose constructor name the code compares, was renamed or is missing`);
  }
}
copyFileSync(`${root}scripts/bundle-loader.mjs`, `${outdir}/load.mjs`);
if (writeMeta) writeFileSync(`${outdir}/meta.json`, JSON.stringify(result.metafile));
