/**
 * Large lists: a concurrent loader, timed lists (whole and paged, consistent and rv=0), and the
 * server's RSS growth while several whole lists are served at once.
 */
import { writeFileSync } from "node:fs";
import type { Client } from "./client.js";
import { configMapBody } from "./objects.js";
import { processCpuNanos } from "./paired.js";
import { processMemory, residentMB } from "./processes.js";
import { median, round } from "./stats.js";
import { monotonicMs } from "./watch-types.js";

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

export const itemName = (index: number): string => `item-${String(index).padStart(6, "0")}`;

export interface LoadResult {
  readonly created: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly concurrency: number;
}

/** Creates ConfigMaps itemName(from) .. itemName(to - 1) at concurrency c (409 counts as done). */
export async function loadConfigMaps(client: Client, namespace: string, from: number, to: number, concurrency: number, bodyBytes: number): Promise<LoadResult> {
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  let next = from;
  const started = monotonicMs();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < to) {
        const name = itemName(next++);
        let reply = await client.request("POST", path, configMapBody(namespace, name, bodyBytes));
        for (let attempt = 0; reply.status !== 201 && reply.status !== 409 && attempt < 3; attempt++) {
          await sleep(50);
          reply = await client.request("POST", path, configMapBody(namespace, name, bodyBytes));
        }
        if (reply.status !== 201 && reply.status !== 409) throw new Error(`create ${name}: HTTP ${reply.status}`);
      }
    }),
  );
  const seconds = (monotonicMs() - started) / 1000;
  return { created: to - from, seconds: round(seconds), perSecond: round((to - from) / seconds), concurrency };
}

export type ListVariant = "consistent" | "rv0";

export interface ListRun {
  readonly ms: number;
  readonly bytes: number;
  readonly items: number;
  readonly pages: number;
}

const ITEM = Buffer.from('"kind":"ConfigMap",');
const ITEMS = Buffer.from('"items":[');

function countItems(body: Buffer): number {
  let count = 0;
  for (let at = body.indexOf(ITEM); at >= 0; at = body.indexOf(ITEM, at + ITEM.length)) count++;
  return count;
}

/** The list's metadata.continue (metadata comes before items in the body). */
function continueOf(body: Buffer): string | undefined {
  const at = body.indexOf(ITEMS);
  if (at < 0) throw new Error(`not a list: ${body.subarray(0, 200).toString()}`);
  const head = JSON.parse(`${body.subarray(0, at).toString()}"items":[]}`) as { metadata?: { continue?: string } };
  const token = head.metadata?.continue;
  return token === undefined || token === "" ? undefined : token;
}

/** One list, followed through its continue tokens when `limit` > 0; timed from the first request to the last byte. */
export async function timedList(client: Client, collection: string, variant: ListVariant, limit: number): Promise<ListRun> {
  const bodies: Buffer[] = [];
  const base = new URLSearchParams();
  if (variant === "rv0") base.set("resourceVersion", "0");
  if (limit > 0) base.set("limit", String(limit));
  const started = monotonicMs();
  let token: string | undefined;
  do {
    const query = new URLSearchParams(base);
    if (token !== undefined) {
      // A continue carries its own version: kube refuses resourceVersion (other than "0") with it.
      query.set("continue", token);
    }
    const text = query.toString();
    const reply = await client.request("GET", text === "" ? collection : `${collection}?${text}`, undefined, true);
    if (reply.status !== 200) throw new Error(`list ${collection}?${text}: HTTP ${reply.status} ${String(reply.body ?? "").slice(0, 300)}`);
    const body = reply.body ?? Buffer.alloc(0);
    bodies.push(body);
    token = limit > 0 ? continueOf(body) : undefined;
  } while (token !== undefined);
  const ms = monotonicMs() - started;
  return {
    ms,
    bytes: bodies.reduce((sum, body) => sum + body.length, 0),
    items: bodies.reduce((sum, body) => sum + countItems(body), 0),
    pages: bodies.length,
  };
}

export interface ListTiming {
  readonly variant: ListVariant;
  readonly paged: boolean;
  readonly protocol: string;
  readonly runsMs: readonly number[];
  readonly medianMs: number;
  /** The server's CPU (all its threads, schedstat) per list, when its pid was given: far less sensitive to a shared machine than the wall time. */
  readonly serverCpuMs?: number;
  readonly items: number;
  readonly pages: number;
  readonly bodyMiB: number;
}

export async function timeLists(
  client: Client,
  protocol: string,
  collection: string,
  variant: ListVariant,
  limit: number,
  runs: number,
  warmups: number,
  expectedItems: number,
  serverPid?: number,
): Promise<ListTiming> {
  for (let index = 0; index < warmups; index++) await timedList(client, collection, variant, limit);
  const results: ListRun[] = [];
  const cpuMs: number[] = [];
  for (let index = 0; index < runs; index++) {
    const before = serverPid === undefined ? 0 : processCpuNanos(serverPid);
    const run = await timedList(client, collection, variant, limit);
    if (serverPid !== undefined) cpuMs.push((processCpuNanos(serverPid) - before) / 1e6);
    if (run.items !== expectedItems)
      throw new Error(`${variant} list of ${collection} (limit ${limit}) returned ${run.items} items, expected ${expectedItems}`);
    results.push(run);
  }
  const last = results[results.length - 1];
  return {
    variant,
    paged: limit > 0,
    protocol,
    runsMs: results.map((run) => round(run.ms)),
    medianMs: round(median(results.map((run) => run.ms))),
    ...(cpuMs.length === 0 ? {} : { serverCpuMs: round(median(cpuMs)) }),
    items: last?.items ?? 0,
    pages: last?.pages ?? 0,
    bodyMiB: round((last?.bytes ?? 0) / (1 << 20)),
  };
}

export interface RssGrowthRound {
  readonly baselineMB: number;
  /** Highest 10 ms sample of VmRSS during the lists. */
  readonly sampledPeakMB: number;
  /** VmHWM after resetting it just before the lists (exact peak), when /proc/<pid>/clear_refs is writable. */
  readonly hwmPeakMB?: number;
  readonly growthMB: number;
  readonly samples: number;
  /** Wall time of the concurrent lists. */
  readonly listsMs: number;
  readonly afterMB: number;
}

/** Resets VmHWM of a process to its current RSS (Linux ≥ 4.0, needs write access to clear_refs). */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/**
 * `concurrent` whole lists at once; the server's RSS sampled every `intervalMs`. Baseline: the
 * median of the samples over 300 ms right before; growth: peak − baseline.
 */
export async function rssGrowthRound(pid: number, client: Client, path: string, concurrent: number, intervalMs: number): Promise<RssGrowthRound> {
  const before: number[] = [];
  for (let index = 0; index < Math.ceil(300 / intervalMs); index++) {
    before.push(residentMB(pid));
    await sleep(intervalMs);
  }
  const baselineMB = median(before);
  const hwmReset = resetPeak(pid);
  let peak = residentMB(pid);
  let samples = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, residentMB(pid));
    samples++;
  }, intervalMs);
  const started = monotonicMs();
  try {
    await Promise.all(
      Array.from({ length: concurrent }, async () => {
        const reply = await client.request("GET", path);
        if (reply.status !== 200) throw new Error(`list ${path}: HTTP ${reply.status}`);
      }),
    );
    const listsMs = monotonicMs() - started;
    await sleep(100);
    clearInterval(timer);
    peak = Math.max(peak, residentMB(pid));
    const hwm = hwmReset ? processMemory(pid).hwmMB : undefined;
    const top = Math.max(peak, hwm ?? 0);
    return {
      baselineMB: round(baselineMB),
      sampledPeakMB: round(peak),
      ...(hwm === undefined ? {} : { hwmPeakMB: round(hwm) }),
      growthMB: round(top - baselineMB),
      samples,
      listsMs: round(listsMs),
      afterMB: round(residentMB(pid)),
    };
  } finally {
    clearInterval(timer);
  }
}
