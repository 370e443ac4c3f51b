import assert from "node:assert/strict";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ORCH_PROFILE } from "../../src/api/profile.js";

/** One pinned kubectl release installed beside gcloud (`kubectl.1.27` … `kubectl.1.33`). */
export interface KubectlVersion {
  /** `major.minor`, e.g. `1.30`. */
  readonly version: string;
  readonly minor: number;
  readonly path: string;
}

/** The oldest and newest kubectl the suite supports; install-test-deps.sh checks the same range. */
export const OLDEST_SUPPORTED_MINOR = 27;
export const NEWEST_SUPPORTED_MINOR = 33;

/**
 * The Google Cloud SDK's bin directory, where the pinned kubectl releases live: the directory of
 * the real `gcloud` on PATH, or the SDK's usual place when gcloud is not on PATH.
 */
export function kubectlDirectory(): string {
  for (const directory of (process.env["PATH"] ?? "").split(":")) {
    if (directory === "") continue;
    const candidate = join(directory, "gcloud");
    if (existsSync(candidate)) return dirname(realpathSync(candidate));
  }
  return "/usr/lib/google-cloud-sdk/bin";
}

let discovered: readonly KubectlVersion[] | undefined;

/** Every `kubectl.1.N` in {@link kubectlDirectory}, oldest first. Cached for the process. */
export function kubectlVersions(): readonly KubectlVersion[] {
  if (discovered !== undefined) return discovered;
  const directory = kubectlDirectory();
  const found: KubectlVersion[] = [];
  for (const name of existsSync(directory) ? readdirSync(directory) : []) {
    const match = /^kubectl\.1\.(\d+)$/.exec(name);
    if (match?.[1] === undefined) continue;
    const minor = Number(match[1]);
    found.push({ version: `1.${minor}`, minor, path: join(directory, name) });
  }
  found.sort((a, b) => a.minor - b.minor);
  discovered = found;
  return found;
}

/**
 * `oldest`, `newest`, `default` or a `1.N` version. `default` is `$ORCH_TEST_KUBECTL` when set,
 * else the release whose API the server serves (the profile's gitVersion, v1.30).
 */
export type KubectlVersionName = "oldest" | "newest" | "default" | `1.${number}`;

/** Resolves a named version to an installed kubectl; throws naming what is missing. */
export function resolveKubectl(name: KubectlVersionName = "default"): KubectlVersion {
  const versions = kubectlVersions();
  const wanted = name === "default" ? defaultVersion() : name;
  const chosen =
    wanted === "oldest" ? versions[0] : wanted === "newest" ? versions[versions.length - 1] : versions.find((release) => release.version === wanted);
  if (chosen === undefined) {
    const have = versions.map((release) => release.version).join(", ") || "none";
    throw new Error(
      `kubectl ${wanted} not found in ${kubectlDirectory()} (installed: ${have}); the integration tests need kubectl.1.${OLDEST_SUPPORTED_MINOR} … kubectl.1.${NEWEST_SUPPORTED_MINOR} from the Google Cloud SDK (scripts/install-test-deps.sh checks them)`,
    );
  }
  return chosen;
}

/** The named versions resolved, each release once (oldest and newest are one when only one is installed). */
export function resolveKubectls(names: readonly KubectlVersionName[]): KubectlVersion[] {
  const releases = new Map<string, KubectlVersion>();
  for (const name of names) {
    const release = resolveKubectl(name);
    releases.set(release.version, release);
  }
  return [...releases.values()];
}

function defaultVersion(): KubectlVersionName {
  const override = process.env["ORCH_TEST_KUBECTL"];
  if (override !== undefined && override !== "") {
    if (isVersionName(override)) return override;
    throw new Error(`ORCH_TEST_KUBECTL=${override}: expected oldest, newest or 1.N`);
  }
  const served = /^v1\.(\d+)\./.exec(ORCH_PROFILE.gitVersion)?.[1];
  if (served === undefined) throw new Error(`cannot read a minor version from gitVersion ${ORCH_PROFILE.gitVersion}`);
  return `1.${Number(served)}`;
}

function isVersionName(value: string): value is KubectlVersionName {
  return value === "oldest" || value === "newest" || value === "default" || /^1\.\d+$/.test(value);
}

export interface KubectlResult {
  /** Exit code; -1 when killed by a signal (e.g. the timeout). */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export type Kubectl = ((args: readonly string[], options?: { readonly timeoutMs?: number }) => Promise<KubectlResult>) & {
  /** Starts a long-running kubectl (e.g. `get -w`); stop it with `stop()`. */
  spawn(args: readonly string[]): KubectlProcess;
  readonly kubeconfigPath: string;
  /** The release this function runs. */
  readonly version: KubectlVersion;
};

export interface KubectlProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Kills the process (SIGTERM, then SIGKILL after 5 s) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * A kubectl of release `version` bound to one kubeconfig, with its discovery/HTTP cache in
 * `cacheDir` (per release) so runs never share (possibly stale) discovery with other servers on
 * the same port or with other releases.
 */
export function kubectlFor(kubeconfigPath: string, cacheDir: string, version: KubectlVersionName | KubectlVersion = "default"): Kubectl {
  const release = typeof version === "string" ? resolveKubectl(version) : version;
  const executable = release.path;
  mkdirSync(cacheDir, { recursive: true });
  const baseArgs = ["--kubeconfig", kubeconfigPath, "--cache-dir", join(cacheDir, `kube-cache-${release.version}`)];
  const env = { ...process.env, KUBECONFIG: kubeconfigPath, HOME: cacheDir };
  const run = (args: readonly string[], options: { readonly timeoutMs?: number } = {}): Promise<KubectlResult> =>
    new Promise((resolve) => {
      execFile(
        executable,
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
    const child = spawn(executable, [...baseArgs, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
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
  return Object.assign(run, { spawn: spawnKubectl, kubeconfigPath, version: release });
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

/** The oldest and newest kubectl against one test server, and a writer of scratch files (manifests) in its data dir that answers their path. */
export function kubectlPairFor(kubeconfigPath: string, dataDir: string): { oldest: Kubectl; newest: Kubectl; scratch: (name: string, text: string) => string } {
  return {
    oldest: kubectlFor(kubeconfigPath, dataDir, "oldest"),
    newest: kubectlFor(kubeconfigPath, dataDir, "newest"),
    scratch: (name, text) => {
      const path = join(dataDir, name);
      writeFileSync(path, text);
      return path;
    },
  };
}

/** A kubectl run that must succeed: its standard output (the failure shows stderr and stdout). */
export function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `${result.stderr}\n${result.stdout}`);
  return result.stdout;
}

/** A kubectl run that must fail, its standard error holding every `expected` text. */
export function refused(result: KubectlResult, ...expected: string[]): void {
  assert.notEqual(result.code, 0, result.stdout);
  for (const text of expected) assert.ok(result.stderr.includes(text), `${text}\n---\n${result.stderr}`);
}
