/**
 * Child processes and temp dirs of the benchmark, with cleanup that also runs on errors,
 * signals and exit: every child is killed and every temp dir removed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import https from "node:https";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

function killAll(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  children.clear();
}

function removeTempDirs(): void {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

let installed = false;
/** Kills children and removes temp dirs on exit, on SIGINT/SIGTERM and on an uncaught error. */
export function installCleanup(): void {
  if (installed) return;
  installed = true;
  process.on("exit", () => {
    killAll();
    removeTempDirs();
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      process.stderr.write(`bench: ${signal}, cleaning up\n`);
      process.exit(130);
    });
  }
}

export function cleanup(): void {
  killAll();
  removeTempDirs();
}

export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** A port that was free a moment ago (bind 0, read, close). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Tracked {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything the child wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or null on a signal). */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after graceMs. */
  stop(graceMs?: number): Promise<number | null>;
}

/** Spawns a node script as a tracked child. */
export function spawnNode(args: readonly string[], options: { readonly cwd?: string; readonly env?: NodeJS.ProcessEnv } = {}): Tracked {
  const child = spawn(process.execPath, [...args], { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
  if (child.pid === undefined) throw new Error(`could not spawn node ${args.join(" ")}`);
  children.add(child);
  let text = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    if (text.length < 1 << 20) text += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    if (text.length < 1 << 20) text += chunk;
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      children.delete(child);
      resolve(code);
    });
  });
  const pid = child.pid;
  return {
    child,
    pid,
    output: () => text,
    exited,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

export interface ProcessMemory {
  readonly rssMB: number;
  readonly hwmMB: number;
}

/** VmRSS and VmHWM of a live process, in MiB (/proc reports "kB" meaning KiB). */
export function processMemory(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, "m").exec(status);
    if (match === null) throw new Error(`no ${name} in /proc/${pid}/status`);
    return Number(match[1]) / 1024;
  };
  return { rssMB: field("VmRSS"), hwmMB: field("VmHWM") };
}

/**
 * Where a live process's resident memory is (MiB, from /proc/<pid>/smaps): file-backed pages (the
 * node binary's, shared with every node process, and other files'), malloc's main heap (`[heap]`:
 * SQLite's page cache, OpenSSL, node's own allocations), malloc's per-thread arenas (anonymous
 * mappings at 64 MiB-aligned addresses, glibc's arena size: V8's worker threads compile and mark
 * there), and the rest of the anonymous memory (V8's heap, its code, stacks).
 */
export interface MemoryMap {
  readonly rssMB: number;
  readonly nodeBinaryMB: number;
  readonly otherFilesMB: number;
  readonly mallocHeapMB: number;
  readonly threadArenasMB: number;
  readonly otherAnonymousMB: number;
}

const ARENA_ALIGNMENT = 64n << 20n;

export function memoryMap(pid: number): MemoryMap {
  const sums = { rss: 0, nodeBinary: 0, otherFiles: 0, mallocHeap: 0, threadArenas: 0, otherAnonymous: 0 };
  let bucket: keyof typeof sums = "otherAnonymous";
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const mapping = /^([0-9a-f]+)-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping !== null) {
      const [, start = "0", name = ""] = mapping;
      if (name === "[heap]") bucket = "mallocHeap";
      else if (name.startsWith("/")) bucket = name === process.execPath ? "nodeBinary" : "otherFiles";
      else if (name === "" && BigInt(`0x${start}`) % ARENA_ALIGNMENT === 0n) bucket = "threadArenas";
      else bucket = "otherAnonymous";
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss !== null) {
      const kib = Number(rss[1]);
      sums.rss += kib;
      sums[bucket] += kib;
    }
  }
  const mib = (kib: number): number => Math.round((kib / 1024) * 10) / 10;
  return {
    rssMB: mib(sums.rss),
    nodeBinaryMB: mib(sums.nodeBinary),
    otherFilesMB: mib(sums.otherFiles),
    mallocHeapMB: mib(sums.mallocHeap),
    threadArenasMB: mib(sums.threadArenas),
    otherAnonymousMB: mib(sums.otherAnonymous),
  };
}

/** USER_HZ: the unit of utime/stime in /proc/<pid>/stat on Linux. */
const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU seconds a live process has used. */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After "pid (comm) ": state is field 3, utime 14, stime 15 (1-based) → indices 11 and 12 here.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** User + system CPU seconds of each thread of a live process (tid → seconds). */
export function threadCpuSeconds(pid: number): Map<number, number> {
  const threads = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      threads.set(Number(tid), (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return threads;
}

/** The largest CPU share (% of one core) any one thread took between two threadCpuSeconds readings. */
export function busiestThreadPercent(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>, seconds: number): number {
  let busiest = 0;
  for (const [tid, cpu] of after) busiest = Math.max(busiest, cpu - (before.get(tid) ?? 0));
  return (busiest / Math.max(1e-3, seconds)) * 100;
}

/** Resident set size of a live process in MiB, from /proc/<pid>/statm (cheaper than status). */
export function residentMB(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/statm`, "utf8").split(" ");
  return (Number(fields[1]) * PAGE_BYTES) / (1 << 20);
}

const PAGE_BYTES = 4096;

/** Busy CPU seconds of the whole machine so far (all cores; idle and iowait excluded), from /proc/stat. */
export function machineBusyCpuSeconds(): number {
  const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0] ?? "";
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  const total = ticks.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return (total - idle) / CLOCK_TICKS_PER_SECOND;
}

/**
 * CPU the rest of the machine used over `ms` (everything but this process and `pids`), in % of
 * one core: other people's builds and tests on a shared machine distort every figure.
 */
export async function backgroundCpuPercent(ms: number, pids: readonly number[] = []): Promise<number> {
  const pidCpu = (): number => pids.reduce((sum, pid) => sum + processCpuSeconds(pid), 0);
  const machineBefore = machineBusyCpuSeconds();
  const pidsBefore = pidCpu();
  const ownBefore = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const own = process.cpuUsage(ownBefore);
  const ours = (own.user + own.system) / 1e6 + (pidCpu() - pidsBefore);
  const machine = machineBusyCpuSeconds() - machineBefore;
  return Math.max(0, ((machine - ours) / (ms / 1000)) * 100);
}

/** Polls GET https://host:port/readyz every intervalMs until 200; returns when it is. */
export async function waitReady(
  host: string,
  port: number,
  options: { readonly intervalMs: number; readonly timeoutMs: number; readonly exited?: Promise<unknown> },
): Promise<void> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  let exited = false;
  void options.exited?.then(() => (exited = true));
  const deadline = Date.now() + options.timeoutMs;
  try {
    for (;;) {
      if (exited) throw new Error("the server exited before it was ready");
      if (Date.now() > deadline) throw new Error(`the server was not ready within ${options.timeoutMs} ms`);
      const status = await new Promise<number>((resolve) => {
        const request = https.get({ host, port, path: "/readyz", agent, rejectUnauthorized: false, timeout: 2000 }, (response) => {
          response.resume();
          response.once("end", () => resolve(response.statusCode ?? 0));
        });
        request.once("timeout", () => request.destroy());
        request.once("error", () => resolve(0));
      });
      if (status === 200) return;
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
    }
  } finally {
    agent.destroy();
  }
}
