/**
 * Server processes for a paired run: started together (same flags but each variant's own), each
 * with its own data dir, stopped and removed together.
 */
import { join } from "node:path";
import type { BurstClient } from "./burst.js";
import type { Target } from "./client.js";
import { mergePaired, type PairedResult, type PairedVariant } from "./paired.js";
import { makeTempDir, removeTempDir } from "./processes.js";
import { adminCredentials, startServerChild, type ServerChild } from "./server.js";

export interface ServerSpec {
  readonly name: string;
  /** The variant's flags (the data dir, port and store are the same for all). */
  readonly extraArgs: readonly string[];
}

export interface PairedServer {
  readonly name: string;
  readonly server: ServerChild;
  /** The admin client certificate's target. */
  readonly target: Target;
}

export interface PairedServers {
  readonly servers: readonly PairedServer[];
  stop(): Promise<void>;
}

/**
 * `rotate`: the variants are started in an order turned by that many places (variant `rotate` first),
 * and answered in the given order all the same, so generations of servers (`pairedGenerations`)
 * do not always start the same variant first.
 */
export async function startPairedServers(prefix: string, specs: readonly ServerSpec[], rotate = 0): Promise<PairedServers> {
  const root = makeTempDir(prefix);
  const order = specs.map((_, index) => (index + rotate) % specs.length);
  const launched = order.map((index) =>
    startServerChild({ dataDir: join(root, `server-${index}`), extraArgs: specs[index]?.extraArgs ?? [], readyTimeoutMs: 120_000 }),
  );
  const byIndex = specs.map((_, index) => launched[order.indexOf(index)] as Promise<ServerChild>);
  const started = await Promise.allSettled(byIndex);
  const children = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const stop = async (): Promise<void> => {
    await Promise.all(children.map((child) => child.stop()));
    removeTempDir(root);
  };
  const failed = started.find((result) => result.status === "rejected");
  if (failed !== undefined) {
    await stop();
    throw failed.reason;
  }
  const servers = children.map((server, index) => ({
    name: specs[index]?.name ?? `variant ${index}`,
    server,
    target: { host: server.host, port: server.port, credentials: adminCredentials(server.dataDir) },
  }));
  return { servers, stop };
}

/** The paired run's variants: each started server with the burst client that loads it (same order). */
export function serverVariants(started: PairedServers, clients: readonly BurstClient[]): PairedVariant[] {
  return started.servers.map((entry, index) => ({
    name: entry.name,
    pid: entry.server.pid,
    burst: (ops: number) => (clients[index] as BurstClient).burst(ops),
  }));
}

/** Closes the burst clients, then stops and removes the servers (errors ignored: used in `finally`). */
export async function closeServers(started: PairedServers, clients: readonly BurstClient[]): Promise<void> {
  for (const client of clients) client.close();
  await started.stop().catch(() => {});
}

/**
 * A paired run in `generations` parts, each with fresh server processes (started in a turned
 * order) and `rounds / generations` rounds, pooled (`mergePaired`): two identical server processes
 * differ by a few percent for as long as they live, a difference one set of processes puts into
 * every round alike.
 */
export async function pairedGenerations(
  prefix: string,
  specs: readonly ServerSpec[],
  generations: number,
  run: (started: PairedServers, generation: number) => Promise<PairedResult>,
): Promise<PairedResult> {
  const results: PairedResult[] = [];
  for (let generation = 0; generation < generations; generation++) {
    const started = await startPairedServers(prefix, specs, generation);
    try {
      results.push(await run(started, generation));
    } finally {
      await started.stop().catch(() => {});
    }
  }
  return mergePaired(results);
}
