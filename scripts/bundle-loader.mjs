// Copied by scripts/bundle.mjs beside the bundle as load.mjs. Runs main.cjs (one CommonJS file,
// the whole CLI) through vm.Script with V8's code cache (main.cjs.cache): with the cache V8 skips
// parsing the 1.6 MB file and compiling the functions start-up runs (node 20 has no module compile
// cache of its own). The cache is written at exit when it was missing or rejected (another node
// or V8 flags), atomically (a temporary file renamed), and never when the directory is read-only.
// scripts/bundle.mjs deletes the directory on every build, so a cache never outlives its bundle.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";

const path = fileURLToPath(new URL("./main.cjs", import.meta.url));
const cachePath = `${path}.cache`;

function readCache() {
  try {
    return readFileSync(cachePath);
  } catch {
    return undefined;
  }
}

const cachedData = readCache();
const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${readFileSync(path, "utf8")}\n})`, {
  filename: path,
  cachedData,
});
if (cachedData === undefined || script.cachedDataRejected === true) {
  process.once("exit", () => {
    try {
      const temporary = `${cachePath}.${process.pid}`;
      writeFileSync(temporary, script.createCachedData());
      renameSync(temporary, cachePath);
    } catch {
      // A read-only install runs without the cache.
    }
  });
}
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(path), module, path, dirname(path));

/** The CLI's entry point (src/cli/main.ts). */
export const main = module.exports.main;
