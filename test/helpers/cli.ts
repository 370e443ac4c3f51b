import { execFile, spawn, type ChildProcess } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { waitFor } from "./wait.js";

/** The repository root (this file is dist/test/helpers/cli.js once compiled). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const BIN = join(REPO_ROOT, "bin", "orch-apiserver.js");

export interface CliResult {
  /** Exit code; -1 when killed by a signal. */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI to completion (for flags that exit at once: --help, errors). */
export function runCli(args: readonly string[], timeoutMs = 15_000): Promise<CliResult> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { timeout: timeoutMs, killSignal: "SIGKILL", cwd: REPO_ROOT }, (error, stdout, stderr) => {
      let code = 0;
      if (error !== null) code = typeof error.code === "number" ? error.code : -1;
      done({ code, stdout, stderr });
    });
  });
}

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** The CLI as a child process. */
export interface CliServer {
  readonly child: ChildProcess;
  /** The URL from the "serving on" line. */
  readonly url: string;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process exits (at once if it already has). */
  exited(): Promise<Exit>;
  /** Sends a signal and waits for the exit, failing after `timeoutMs`. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<Exit>;
}

/**
 * Starts `orch-apiserver <args>` and waits (with a deadline) for its "serving on" line.
 * `nodeArgs` go to node itself, before the script (e.g. diagnostics flags); `bin` is the script
 * (default bin/orch-apiserver.js).
 */
export async function startCli(args: readonly string[], timeoutMs = 20_000, nodeArgs: readonly string[] = [], bin = BIN): Promise<CliServer> {
  const child = spawn(process.execPath, [...nodeArgs, bin, ...args], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  let exit: Exit | undefined;
  const exitPromise = new Promise<Exit>((done) => {
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      done(exit);
    });
  });
  const exited = (): Promise<Exit> => exitPromise;
  const stop = async (signal: NodeJS.Signals = "SIGTERM", stopTimeoutMs = 15_000): Promise<Exit> => {
    if (exit !== undefined) return exit;
    child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`orch-apiserver did not exit within ${stopTimeoutMs} ms of ${signal}; stderr:\n${stderr}`));
      }, stopTimeoutMs);
    });
    try {
      return await Promise.race([exitPromise, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
  let url: string;
  const gaveUp = new AbortController();
  try {
    url = await Promise.race([
      waitFor(() => /orch-apiserver serving on (https:\/\/\S+) .*\n/.exec(stdout)?.[1], {
        timeoutMs,
        signal: gaveUp.signal,
        what: `orch-apiserver ${args.join(" ")} to print "serving on"`,
      }),
      exitPromise.then((early): never => {
        throw new Error(`orch-apiserver exited (${early.code ?? early.signal}) before serving; stderr:\n${stderr}`);
      }),
    ]);
  } catch (error) {
    if (exit === undefined) {
      child.kill("SIGKILL");
      await exitPromise;
    }
    throw error;
  } finally {
    gaveUp.abort();
  }
  return { child, url, stdout: () => stdout, stderr: () => stderr, exited, stop };
}
