import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";

/** The pinned client the suite runs against; other versions are not what we claim to support. */
export const KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.30";

export interface KubectlResult {
  /** Exit code; -1 when killed by a signal (e.g. the timeout). */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Throws a clear error when the pinned kubectl is not installed. */
export function requireKubectl(): void {
  if (!existsSync(KUBECTL)) throw new Error(`pinned kubectl not found at ${KUBECTL}: these tests need kubectl v1.30 from the Google Cloud SDK`);
}

export type Kubectl = ((args: readonly string[], options?: { readonly timeoutMs?: number }) => Promise<KubectlResult>) & {
  /** Starts a long-running kubectl (e.g. `get -w`); stop it with `stop()`. */
  spawn(args: readonly string[]): KubectlProcess;
  readonly kubeconfigPath: string;
};

export interface KubectlProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Kills the process (SIGTERM, then SIGKILL after 5 s) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * A kubectl bound to one kubeconfig, with its discovery/HTTP cache in `cacheDir` so runs never
 * share (possibly stale) discovery with other servers on the same port.
 */
export function kubectlFor(kubeconfigPath: string, cacheDir: string, binary: string = KUBECTL): Kubectl {
  if (binary === KUBECTL) requireKubectl();
  else if (!existsSync(binary)) throw new Error(`kubectl not found at ${binary}`);
  mkdirSync(cacheDir, { recursive: true });
  const baseArgs = ["--kubeconfig", kubeconfigPath, "--cache-dir", join(cacheDir, "kube-cache")];
  const env = { ...process.env, KUBECONFIG: kubeconfigPath, HOME: cacheDir };
  const run = (args: readonly string[], options: { readonly timeoutMs?: number } = {}): Promise<KubectlResult> =>
    new Promise((resolve) => {
      execFile(
        binary,
        [...baseArgs, ...args],
        { timeout: options.timeoutMs ?? 30_000, killSignal: "SIGKILL", env, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => {
          let code = 0;
          if (error !== null) code = typeof error.code === "number" ? error.code : -1;
          resolve({ code, stdout, stderr });
        },
      );
    });
  const spawnKubectl = (args: readonly string[]): KubectlProcess => {
    const child = spawn(binary, [...baseArgs, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once("exit", () => resolve());
    });
    return {
      child,
      stdout: () => stdout,
      stderr: () => stderr,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill("SIGTERM");
          const force = setTimeout(() => child.kill("SIGKILL"), 5_000);
          await exited;
          clearTimeout(force);
        }
      },
    };
  };
  return Object.assign(run, { spawn: spawnKubectl, kubeconfigPath });
}

/** Parses kubectl's column output (header + rows), splitting by the header's column offsets. */
export function parseTable(text: string): Record<string, string>[] {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const header = lines[0];
  if (header === undefined) return [];
  const columns: { name: string; start: number }[] = [];
  for (const match of header.matchAll(/\S+/g)) columns.push({ name: match[0], start: match.index ?? 0 });
  return lines.slice(1).map((line) => {
    const row: Record<string, string> = {};
    columns.forEach((column, index) => {
      const end = columns[index + 1]?.start ?? line.length;
      row[column.name] = line.slice(column.start, index + 1 < columns.length ? end : undefined).trim();
    });
    return row;
  });
}
