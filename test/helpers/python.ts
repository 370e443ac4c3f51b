// Runs a script with the system interpreter and Debian's python3-kubernetes (no user site, no PYTHONPATH from outside).
import { spawn } from "node:child_process";

/** `python3 -c script args…`: its exit code and its standard output and error together, as they came. */
export function runPythonScript(script: string, args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const env = { PATH: "/usr/bin:/bin", HOME: process.env["HOME"] ?? "/tmp", PYTHONNOUSERSITE: "1" };
    const child = spawn("/usr/bin/python3", ["-c", script, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.on("close", (code) => resolve({ code, output }));
  });
}
