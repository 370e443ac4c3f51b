/** The orch-apiserver CLI as a child process, and its admin credentials. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import type { Credentials } from "./client.js";
import { asRecord } from "./objects.js";
import { freePort, spawnNode, waitReady, type Tracked } from "./processes.js";

/** The repository root (bench/lib/server.ts compiles to dist/bench/lib/server.js). */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const CLI = join(REPO_ROOT, "bin", "orch-apiserver.js");

export interface ServerChild extends Tracked {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** From spawn() to the first /readyz 200. */
  readonly readyMs: number;
  /** What the CLI itself printed ("ready in N ms"), if it printed it. */
  reportedReadyMs(): number | undefined;
}

export interface ServerOptions {
  readonly dataDir: string;
  /** Flags for node itself, e.g. --cpu-prof. */
  readonly nodeArgs?: readonly string[];
  readonly extraArgs?: readonly string[];
  readonly pollIntervalMs?: number;
  /** Working directory of the child (heap snapshots land there); default the repository root. */
  readonly cwd?: string;
  /** How long to wait for the first /readyz 200 (default 30 s; a large store on a busy machine needs more). */
  readonly readyTimeoutMs?: number;
}

export async function startServerChild(options: ServerOptions): Promise<ServerChild> {
  const port = await freePort();
  const host = "127.0.0.1";
  const args = [
    ...(options.nodeArgs ?? []),
    CLI,
    "--data-dir",
    options.dataDir,
    "--secure-port",
    String(port),
    "--storage-backend",
    "sqlite",
    ...(options.extraArgs ?? []),
  ];
  const started = performance.now();
  const tracked = spawnNode(args, { cwd: options.cwd ?? REPO_ROOT });
  try {
    await waitReady(host, port, { intervalMs: options.pollIntervalMs ?? 5, timeoutMs: options.readyTimeoutMs ?? 30_000, exited: tracked.exited });
  } catch (error) {
    await tracked.stop(1000);
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n--- server output ---\n${tracked.output()}`);
  }
  const readyMs = performance.now() - started;
  return {
    ...tracked,
    host,
    port,
    dataDir: options.dataDir,
    readyMs,
    reportedReadyMs() {
      const match = /\(ready in (\d+) ms/.exec(tracked.output());
      return match === null ? undefined : Number(match[1]);
    },
  };
}

/** The admin client certificate, key and CA from `<dataDir>/admin.kubeconfig`. */
export function adminCredentials(dataDir: string): Credentials {
  const config = asRecord(parse(readFileSync(join(dataDir, "admin.kubeconfig"), "utf8")) as unknown);
  const first = (list: unknown, field: string): Record<string, unknown> => {
    const entry = Array.isArray(list) ? asRecord(list[0] as unknown) : undefined;
    const inner = asRecord(entry?.[field]);
    if (inner === undefined) throw new Error(`admin.kubeconfig: no ${field} entry`);
    return inner;
  };
  const decode = (record: Record<string, unknown>, field: string): string => {
    const value = record[field];
    if (typeof value !== "string") throw new Error(`admin.kubeconfig: no ${field}`);
    return Buffer.from(value, "base64").toString("utf8");
  };
  const cluster = first(config?.["clusters"], "cluster");
  const user = first(config?.["users"], "user");
  return { ca: decode(cluster, "certificate-authority-data"), cert: decode(user, "client-certificate-data"), key: decode(user, "client-key-data") };
}
