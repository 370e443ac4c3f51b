// Runs every compiled test file with Node's test runner (Node 20 takes no globs).
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

function find(dir, out) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) find(path, out);
    else if (name.endsWith(".test.js")) out.push(path);
  }
  return out;
}

const filter = process.argv[2];
// A compiled test whose source is gone (renamed or deleted since the last build) is stale: skip it.
const hasSource = (file) => existsSync(file.replace(/^dist\//, "").replace(/\.js$/, ".ts"));
const files = [...find("dist/src", []), ...find("dist/test", [])].filter((file) => hasSource(file) && (filter === undefined || file.includes(filter))).sort();
const result = spawnSync(process.execPath, ["--test", "--test-concurrency=2", "--test-timeout=180000", ...files], { stdio: "inherit" });
process.exit(result.status ?? 1);
