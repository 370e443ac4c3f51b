/**
 * Probes of a running server over HTTPS, shared by the proto and etcd suites: GET throughput at
 * c=64 over keep-alive, timed LISTs, and watch delay with N watchers (own TLS connection each)
 * while a writer creates ConfigMaps at a fixed rate.
 */
import type { ClientRequest } from "node:http";
import https from "node:https";
import { h2Client, type Target } from "./client.js";
import { processCpuSeconds } from "./processes.js";
import { median, round, summarise, type LatencySummary } from "./stats.js";

/** A response representation: its name in reports and its Accept header. */
export interface Format {
  readonly name: string;
  readonly accept: string;
}

const JSON_TYPE = "application/json";

export interface RawClient {
  get(path: string, accept: string): Promise<{ status: number; bytes: number; body: Buffer }>;
  close(): void;
}

export function rawClient(target: Target, sockets: number): RawClient {
  const agent = new https.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
  const credentials = target.credentials;
  return {
    get(path, accept) {
      return new Promise((resolve, reject) => {
        const request = https.request(
          {
            host: target.host,
            port: target.port,
            path,
            agent,
            headers: { accept, "user-agent": "orch-bench/0.1" },
            ca: credentials?.ca,
            cert: credentials?.cert,
            key: credentials?.key,
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on("data", (chunk: Buffer) => chunks.push(chunk));
            response.once("end", () => {
              const body = Buffer.concat(chunks);
              resolve({ status: response.statusCode ?? 0, bytes: body.length, body });
            });
            response.once("error", reject);
          },
        );
        request.once("error", reject);
        request.end();
      });
    },
    close: () => agent.destroy(),
  };
}

export interface GetResult {
  readonly format: string;
  readonly perSecond: number;
  readonly serverCpuMicrosPerRequest: number;
  readonly bytes: number;
}

export async function measureGets(
  client: RawClient,
  pid: number,
  format: Format,
  timing: { readonly warmupMs: number; readonly phaseMs: number; readonly namespace: string },
): Promise<GetResult> {
  const { warmupMs, phaseMs, namespace } = timing;
  const paths = Array.from({ length: 100 }, (_, index) => `/api/v1/namespaces/${namespace}/configmaps/item-${String(index).padStart(6, "0")}`);
  let count = 0;
  let bytes = 0;
  let measuring = false;
  let stop = false;
  const workers = Array.from({ length: 64 }, async (_, worker) => {
    let index = worker;
    while (!stop) {
      const reply = await client.get(paths[index++ % paths.length] ?? "", format.accept);
      if (reply.status !== 200) throw new Error(`GET: HTTP ${reply.status}`);
      if (measuring) {
        count++;
        bytes = reply.bytes;
      }
    }
  });
  await new Promise((resolve) => setTimeout(resolve, warmupMs));
  const cpuBefore = processCpuSeconds(pid);
  const started = performance.now();
  measuring = true;
  await new Promise((resolve) => setTimeout(resolve, phaseMs));
  measuring = false;
  const seconds = (performance.now() - started) / 1000;
  const cpu = processCpuSeconds(pid) - cpuBefore;
  stop = true;
  await Promise.all(workers);
  return { format: format.name, perSecond: round(count / seconds), serverCpuMicrosPerRequest: round((cpu * 1e6) / count), bytes };
}

export interface ListResult {
  readonly format: string;
  readonly medianMs: number;
  readonly serverCpuMsPerList: number;
  readonly bytes: number;
}

/** `query` picks the semantics: `resourceVersion=0` (any cached state) or empty (a consistent read). */
export async function measureList(
  client: RawClient,
  pid: number,
  format: Format,
  options: { readonly rounds: number; readonly namespace: string; readonly query: string },
): Promise<ListResult> {
  const { rounds, namespace, query } = options;
  const path = `/api/v1/namespaces/${namespace}/configmaps${query === "" ? "" : `?${query}`}`;
  const times: number[] = [];
  let bytes = 0;
  await client.get(path, format.accept);
  const cpuBefore = processCpuSeconds(pid);
  for (let index = 0; index < rounds; index++) {
    const started = performance.now();
    const reply = await client.get(path, format.accept);
    times.push(performance.now() - started);
    if (reply.status !== 200) throw new Error(`LIST: HTTP ${reply.status}`);
    bytes = reply.bytes;
  }
  const cpu = processCpuSeconds(pid) - cpuBefore;
  return { format: format.name, medianMs: round(median(times)), serverCpuMsPerList: round((cpu * 1000) / rounds), bytes };
}

export interface WatchResult {
  readonly format: string;
  readonly watchers: number;
  readonly writesPerSecond: number;
  readonly events: number;
  readonly expected: number;
  /** Creates the server refused (an overloaded server answers 504); their events are not expected. */
  readonly failedWrites: number;
  /** Event arrival − the write being sent. */
  readonly delayMs: LatencySummary;
  readonly serverCpuPercent: number;
}

/**
 * `watchers` watches (own TLS connection each) while a writer creates `rate` ConfigMaps/s whose
 * data carries a marker `seq-<n>-end`; each watcher finds markers in what arrives (the same ASCII
 * in JSON and protobuf), so no decoding skews the two formats.
 */
export async function measureWatch(
  target: Target,
  pid: number,
  format: Format,
  load: { readonly watchers: number; readonly rate: number; readonly seconds: number; readonly runId: string; readonly namespace: string },
): Promise<WatchResult> {
  const { watchers, rate, seconds, runId, namespace } = load;
  const list = await rawClient(target, 1).get(`/api/v1/namespaces/${namespace}/configmaps?limit=1`, JSON_TYPE);
  const rv = /"resourceVersion":"(\d+)"/.exec(list.body.toString())?.[1] ?? "0";
  const sent = new Map<number, number>();
  const delays: number[] = [];
  let events = 0;
  const credentials = target.credentials;
  const requests: ClientRequest[] = [];
  const marker = new RegExp(`${runId}-(\\d+)-end`, "g");
  await Promise.all(
    Array.from(
      { length: watchers },
      () =>
        new Promise<void>((resolve, reject) => {
          const request = https.request(
            {
              host: target.host,
              port: target.port,
              path: `/api/v1/namespaces/${namespace}/configmaps?watch=1&resourceVersion=${rv}`,
              agent: false,
              headers: { accept: format.accept },
              ca: credentials?.ca,
              cert: credentials?.cert,
              key: credentials?.key,
            },
            (response) => {
              let tail = "";
              response.on("data", (chunk: Buffer) => {
                const now = performance.now();
                const text = tail + chunk.toString("latin1");
                let last = 0;
                for (const match of text.matchAll(marker)) {
                  const at = sent.get(Number(match[1]));
                  events++;
                  if (at !== undefined) delays.push(now - at);
                  last = (match.index ?? 0) + match[0].length;
                }
                tail = text.slice(Math.max(last, text.length - 64));
              });
              response.on("error", () => undefined);
              resolve();
            },
          );
          request.on("error", (error) => (error.message.includes("socket hang up") || error.message.includes("aborted") ? undefined : reject(error)));
          request.end();
          requests.push(request);
        }),
    ),
  );
  const writer = await h2Client(target);
  const cpuBefore = processCpuSeconds(pid);
  const started = performance.now();
  const total = Math.round(rate * seconds);
  const writes: Promise<void>[] = [];
  let failedWrites = 0;
  for (let index = 0; index < total; index++) {
    const due = started + (index * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const body = JSON.stringify({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `${runId}-${index}`, namespace },
      data: { marker: `${runId}-${index}-end` },
    });
    sent.set(index, performance.now());
    writes.push(
      writer.request("POST", `/api/v1/namespaces/${namespace}/configmaps`, body).then((reply) => {
        if (reply.status !== 201) failedWrites++;
      }),
    );
  }
  await Promise.all(writes);
  const elapsed = (performance.now() - started) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const cpu = processCpuSeconds(pid) - cpuBefore;
  for (const request of requests) request.destroy();
  writer.close();
  return {
    format: format.name,
    watchers,
    writesPerSecond: round(total / elapsed),
    events,
    expected: (total - failedWrites) * watchers,
    failedWrites,
    delayMs: summarise(Float64Array.from(delays)),
    serverCpuPercent: round((cpu / (elapsed + 1)) * 100),
  };
}
