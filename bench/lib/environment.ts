/** The machine and checkout a result was measured on. */
import { execFileSync } from "node:child_process";
import os from "node:os";
import { round } from "./stats.js";

export function machineEnvironment(repoRoot: string): Record<string, string | number> {
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["describe", "--always", "--dirty"], { cwd: repoRoot, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    // not a git checkout
  }
  const cpus = os.cpus();
  return {
    node: process.version,
    cpu: cpus[0]?.model ?? "unknown",
    cores: cpus.length,
    memoryGiB: round(os.totalmem() / 2 ** 30),
    kernel: `${os.type()} ${os.release()}`,
    commit,
  };
}
