/**
 * Quantiles of a server histogram over a phase, from two scrapes of its `/metrics`: the count per
 * bucket gained between them, summed over the series a label filter keeps. The answer is the
 * upper bound of the bucket that holds the quantile (so "≤ 25 ms", at the buckets' resolution).
 */
import type { Client } from "./client.js";

/** Cumulative counts by bucket upper bound (seconds; Infinity for +Inf). */
export type Buckets = ReadonlyMap<number, number>;

/** Scrapes the server's /metrics through an admin client. */
export async function scrapeMetrics(client: Client): Promise<string> {
  const reply = await client.request("GET", "/metrics", undefined, true);
  if (reply.status !== 200) throw new Error(`/metrics: HTTP ${reply.status}`);
  return String(reply.body ?? "");
}

/** The buckets of histogram `name`, summed over the series whose label text passes `keep`. */
export function histogramBuckets(text: string, name: string, keep: (labels: string) => boolean): Buckets {
  const buckets = new Map<number, number>();
  const prefix = `${name}_bucket{`;
  for (const line of text.split("\n")) {
    if (!line.startsWith(prefix)) continue;
    const labels = line.slice(prefix.length, line.indexOf("}"));
    if (!keep(labels)) continue;
    const bound = /le="([^"]+)"/.exec(labels)?.[1];
    if (bound === undefined) continue;
    const upper = bound === "+Inf" ? Number.POSITIVE_INFINITY : Number(bound);
    buckets.set(upper, (buckets.get(upper) ?? 0) + Number(line.slice(line.lastIndexOf(" ") + 1)));
  }
  return buckets;
}

/** Observations gained between the scrapes and the bucket bound (ms) holding quantile `q` of them; undefined without observations. */
export function phaseQuantileMs(before: Buckets, after: Buckets, q: number): { readonly count: number; readonly atMostMs: number | undefined } {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const gained = bounds.map((bound) => (after.get(bound) ?? 0) - (before.get(bound) ?? 0));
  const count = gained[gained.length - 1] ?? 0;
  if (count === 0) return { count, atMostMs: undefined };
  const index = gained.findIndex((cumulative) => cumulative >= q * count);
  const bound = bounds[index] ?? Number.POSITIVE_INFINITY;
  return { count, atMostMs: bound * 1000 };
}
