/**
 * One watcher process of the fan-out benchmark (a child of the bench, forked with an IPC channel
 * and structured-clone serialization): opens its share of the watches, stamps every event with
 * its arrival time (CLOCK_MONOTONIC, per read: the same clock as the writer in the bench process,
 * since both run on this machine), and on request matches the events against the writer's
 * acknowledgement times. A process of its own, so the watchers do not share an event loop, a heap
 * or a garbage collector with the writer. Events are not JSON-parsed: the resourceVersion is found
 * with Buffer.indexOf, so one process can take a few hundred thousand events a second.
 */
import { once } from "node:events";
import http2 from "node:http2";
import https from "node:https";
import { monotonicMs, WATCH_TASK_ENV, type FromWatchWorker, type ToWatchWorker, type WatchCollected, type WatchWorkerTask } from "./watch-types.js";

const send = process.send?.bind(process);
if (send === undefined) throw new Error("watch-worker must run as a forked child process (IPC channel)");
// In the environment rather than argv: the task holds the client key, which `ps` would show.
const taskArgument = process.env[WATCH_TASK_ENV];
if (taskArgument === undefined) throw new Error(`watch-worker: the task (JSON) is in $${WATCH_TASK_ENV}`);
const task = JSON.parse(taskArgument) as WatchWorkerTask;
const post = (message: FromWatchWorker): void => void send(message);
// The bench going away (crash, ^C) ends its watchers too.
process.on("disconnect", () => process.exit(0));

const RESOURCE_VERSION = Buffer.from('"resourceVersion":"');
const ERROR_TYPE = Buffer.from('{"type":"ERROR"');
const NEWLINE = 10;
const QUOTE = 34;

class Watch {
  received = 0;
  tail: Buffer | undefined;
  ended = false;
  close: () => void = () => {};
}

const watches: Watch[] = [];
let closing = false;
let closedByServer = 0;
let firstServerClose: string | undefined;
let errorEvents = 0;
let bytes = 0;
let chunks = 0;
/** (resourceVersion, arrival ms) pairs since the last collect. */
let records = new Float64Array(1 << 16);
let recordCount = 0;

function record(revision: number, arrival: number): void {
  if (recordCount * 2 + 2 > records.length) {
    const grown = new Float64Array(records.length * 2);
    grown.set(records);
    records = grown;
  }
  records[recordCount * 2] = revision;
  records[recordCount * 2 + 1] = arrival;
  recordCount++;
}

function onData(watch: Watch, chunk: Buffer): void {
  const arrival = monotonicMs();
  bytes += chunk.length;
  chunks++;
  const buffer = watch.tail === undefined ? chunk : Buffer.concat([watch.tail, chunk]);
  let start = 0;
  let found = -1;
  let exhausted = false;
  for (;;) {
    const end = buffer.indexOf(NEWLINE, start);
    if (end < 0) break;
    if (!exhausted && found < start) {
      found = buffer.indexOf(RESOURCE_VERSION, start);
      exhausted = found < 0;
    }
    if (found >= start && found < end) {
      let revision = 0;
      for (let index = found + RESOURCE_VERSION.length; index < end; index++) {
        const byte = buffer[index] ?? QUOTE;
        if (byte === QUOTE) break;
        revision = revision * 10 + (byte - 48);
      }
      record(revision, arrival);
      watch.received++;
    } else if (buffer.indexOf(ERROR_TYPE, start) === start) {
      errorEvents++;
    }
    start = end + 1;
  }
  // A partial line waits for the next read (copied: the chunk is not kept alive).
  watch.tail = start < buffer.length ? Buffer.from(buffer.subarray(start)) : undefined;
}

function ended(watch: Watch, why: string): void {
  if (watch.ended) return;
  watch.ended = true;
  if (closing) return;
  closedByServer++;
  firstServerClose ??= why;
}

const tls = task.target.credentials === undefined ? { rejectUnauthorized: false } : { ...task.target.credentials, rejectUnauthorized: true };
const headers = { accept: "application/json", "user-agent": "orch-bench-watch/0.1" };

/** A watch on its own TLS connection: no agent, so no keep-alive and no socket sharing. */
function openH1(): Promise<Watch> {
  return new Promise<Watch>((resolve, reject) => {
    const watch = new Watch();
    let answered = false;
    const request = https.request(
      { host: task.target.host, port: task.target.port, method: "GET", path: task.path, agent: false, headers, ...tls },
      (response) => {
        answered = true;
        if (response.statusCode !== 200) {
          response.resume();
          request.destroy();
          reject(new Error(`watch answered HTTP ${response.statusCode ?? "?"}`));
          return;
        }
        response.socket.setNoDelay(true);
        response.on("data", (chunk: Buffer) => onData(watch, chunk));
        response.once("end", () => ended(watch, "the server ended the response"));
        response.once("close", () => ended(watch, "the connection closed"));
        resolve(watch);
      },
    );
    watch.close = () => request.destroy();
    request.once("error", (error) => {
      if (answered) ended(watch, error.message);
      else reject(error);
    });
    request.end();
  });
}

const sessions: http2.ClientHttp2Session[] = [];

async function h2Session(): Promise<http2.ClientHttp2Session> {
  const session = http2.connect(`https://${task.target.host}:${task.target.port}`, {
    ...tls,
    // client-go's windows: 4 MiB per stream, 1 GiB per connection.
    settings: { initialWindowSize: 4 << 20, enablePush: false },
    peerMaxConcurrentStreams: 1000,
  });
  session.on("error", () => {});
  await once(session, "connect");
  session.setLocalWindowSize(1 << 30);
  return session;
}

function openH2(session: http2.ClientHttp2Session): Promise<Watch> {
  return new Promise<Watch>((resolve, reject) => {
    const watch = new Watch();
    let answered = false;
    const stream = session.request({ ":method": "GET", ":path": task.path, ...headers }, { endStream: true });
    stream.once("response", (responseHeaders) => {
      answered = true;
      const status = Number(responseHeaders[":status"] ?? 0);
      if (status !== 200) {
        stream.close();
        reject(new Error(`watch answered HTTP ${status}`));
        return;
      }
      resolve(watch);
    });
    stream.on("data", (chunk: Buffer) => onData(watch, chunk));
    stream.once("end", () => ended(watch, "the server ended the stream"));
    stream.once("close", () => ended(watch, `the stream closed (code ${stream.rstCode ?? "?"})`));
    stream.once("error", (error) => {
      if (answered) ended(watch, error.message);
      else reject(error);
    });
    watch.close = () => stream.close();
  });
}

async function openAll(): Promise<void> {
  const started = monotonicMs();
  if (task.protocol === "h2") for (let index = 0; index < Math.min(task.sessions, task.watchers); index++) sessions.push(await h2Session());
  let next = 0;
  let failed = 0;
  let firstError: string | undefined;
  await Promise.all(
    Array.from({ length: Math.min(task.openConcurrency, task.watchers) }, async () => {
      while (next < task.watchers) {
        const index = next++;
        try {
          const session = sessions[index % Math.max(1, sessions.length)];
          watches.push(await (task.protocol === "h1" || session === undefined ? openH1() : openH2(session)));
        } catch (error) {
          failed++;
          firstError ??= error instanceof Error ? error.message : String(error);
        }
      }
    }),
  );
  post({ type: "opened", opened: watches.length, failed, ...(firstError === undefined ? {} : { firstError }), openMs: monotonicMs() - started });
}

function drain(expected: number, stallMs: number, timeoutMs: number): void {
  const started = monotonicMs();
  let lastTotal = -1;
  let lastProgress = started;
  const check = (): void => {
    let total = 0;
    let minReceived = Number.POSITIVE_INFINITY;
    let complete = true;
    for (const watch of watches) {
      total += watch.received;
      minReceived = Math.min(minReceived, watch.received);
      if (!watch.ended && watch.received < expected) complete = false;
    }
    const now = monotonicMs();
    if (total !== lastTotal) {
      lastTotal = total;
      lastProgress = now;
    }
    if (complete || now - lastProgress > stallMs || now - started > timeoutMs) {
      post({ type: "drained", complete, minReceived: Number.isFinite(minReceived) ? minReceived : 0, waitedMs: now - started });
      return;
    }
    setTimeout(check, 20);
  };
  check();
}

function collect(fromRevision: number, acks: Float64Array, issued: Float64Array): void {
  const delays = new Float64Array(recordCount);
  const fromIssue = new Float64Array(recordCount);
  let matched = 0;
  let unmatched = 0;
  for (let index = 0; index < recordCount; index++) {
    const slot = (records[index * 2] ?? 0) - fromRevision;
    const ack = slot >= 0 && slot < acks.length ? (acks[slot] ?? Number.NaN) : Number.NaN;
    if (Number.isNaN(ack)) {
      unmatched++;
      continue;
    }
    const arrival = records[index * 2 + 1] ?? 0;
    fromIssue[matched] = arrival - (issued[slot] ?? Number.NaN);
    delays[matched++] = arrival - ack;
  }
  recordCount = 0;
  const collected: WatchCollected = {
    delaysMs: delays.slice(0, matched),
    fromIssueMs: fromIssue.slice(0, matched),
    matched,
    unmatched,
    closedByServer,
    errorEvents,
    ...(firstServerClose === undefined ? {} : { firstServerClose }),
    bytes,
    chunks,
  };
  bytes = 0;
  chunks = 0;
  post({ type: "collected", collected });
}

function closeAll(): void {
  closing = true;
  for (const watch of watches) watch.close();
  for (const session of sessions) session.destroy();
  post({ type: "closed" });
}

process.on("message", (message: ToWatchWorker) => {
  if (message.type === "drain") drain(message.expectedPerWatcher, message.stallMs, message.timeoutMs);
  else if (message.type === "collect") collect(message.fromRevision, message.acks, message.issued);
  else closeAll();
});

openAll().catch((error: unknown) => {
  post({ type: "failed", message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
});
