import type { WebhookClient } from "../../auth/webhook-client.js";
import { AuditStoreError, type AuditBackend, type AuditEvent } from "./event.js";

/** kube's `--audit-webhook-mode`. */
export type AuditWebhookMode = "batch" | "blocking" | "blocking-strict";

export const AUDIT_WEBHOOK_MODES: readonly AuditWebhookMode[] = ["batch", "blocking", "blocking-strict"];

export interface WebhookBackendOptions {
  readonly client: WebhookClient;
  /** `batch` (default): buffered, never waited for; `blocking`: each call's events sent at once and waited for; `blocking-strict`: also fails a RequestReceived event not delivered. */
  readonly mode?: AuditWebhookMode;
  /** `audit.<apiDomain>/v1`: the EventList's apiVersion. */
  readonly apiVersion: string;
  /** Events held while batches are sent; beyond it new events are dropped (`--audit-webhook-batch-buffer-size`, 10000). */
  readonly bufferSize?: number;
  /** Events per batch at most (`--audit-webhook-batch-max-size`, 400). */
  readonly maxBatchSize?: number;
  /** A batch smaller than the maximum goes out after this long (`--audit-webhook-batch-max-wait`, 30 s). */
  readonly maxWaitMs?: number;
  /** Batches per second on average and in a burst (`--audit-webhook-batch-throttle-qps` 10, `-burst` 15); qps 0 = unthrottled. */
  readonly throttleQps?: number;
  readonly throttleBurst?: number;
  /** First retry delay of a failed batch, growing 1.5× for each of 4 retries (`--audit-webhook-initial-backoff`, 10 s). */
  readonly initialBackoffMs?: number;
  /** Per call (default 30 s). */
  readonly timeoutMs?: number;
  /** How long `shutdown` waits for the buffered events to be sent (default 5 s). */
  readonly shutdownGraceMs?: number;
  /** Events dropped (buffer full: plugin `buffered`) or not delivered after the retries (plugin `webhook`). */
  readonly onError?: (plugin: "buffered" | "webhook", error: unknown, count: number) => void;
}

const RETRIES = 4;

/**
 * The webhook backend (`--audit-webhook-config-file`). In batch mode events are buffered and
 * POSTed as an `EventList` in batches by one sender, so a slow or dead webhook costs requests
 * nothing: the bounded buffer fills and further events are dropped and counted, never waited for.
 * In the blocking modes (`blockingWebhook`) each call's events are POSTed at once and the request waits.
 */
export function webhookBackend(options: WebhookBackendOptions): AuditBackend {
  if (options.mode === "blocking" || options.mode === "blocking-strict") return blockingWebhook(options, options.mode === "blocking-strict");
  const bufferSize = options.bufferSize ?? 10_000;
  const maxBatchSize = options.maxBatchSize ?? 400;
  const maxWaitMs = options.maxWaitMs ?? 30_000;
  const qps = options.throttleQps ?? 10;
  const burst = Math.max(1, options.throttleBurst ?? 15);
  const shutdownGraceMs = options.shutdownGraceMs ?? 5_000;
  const buffer: AuditEvent[] = [];
  let tokens = burst;
  let refilledAt = performance.now();
  let wake: (() => void) | undefined;
  let stopping = false;
  /** The sender waits with an empty buffer: the first event must wake it to start the batch timer. */
  let waitingForFirst = true;

  const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

  function signal(): void {
    const resume = wake;
    wake = undefined;
    resume?.();
  }

  async function throttle(): Promise<void> {
    if (qps <= 0) return;
    for (;;) {
      const now = performance.now();
      tokens = Math.min(burst, tokens + ((now - refilledAt) / 1000) * qps);
      refilledAt = now;
      if (tokens >= 1) {
        tokens -= 1;
        return;
      }
      await sleep(((1 - tokens) / qps) * 1000);
    }
  }

  async function send(batch: AuditEvent[]): Promise<void> {
    const failure = await post(options, batch, () => stopping);
    if (failure !== undefined) options.onError?.("webhook", failure.error, batch.length);
  }

  /** Waits until a full batch is buffered, the oldest event has waited `maxWaitMs`, or the backend stops. */
  async function nextBatch(): Promise<AuditEvent[]> {
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    while (buffer.length < maxBatchSize && !stopping && !timedOut) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (buffer.length > 0 && timer === undefined) {
          timer = setTimeout(() => {
            timedOut = true;
            signal();
          }, maxWaitMs);
          timer.unref();
        }
      });
    }
    if (timer !== undefined) clearTimeout(timer);
    waitingForFirst = false;
    return buffer.splice(0, maxBatchSize);
  }

  const sender = (async () => {
    for (;;) {
      waitingForFirst = buffer.length === 0;
      const batch = await nextBatch();
      if (batch.length === 0) {
        if (stopping) return;
        continue;
      }
      await throttle();
      await send(batch);
    }
  })();

  return {
    name: "webhook",
    processEvents(events) {
      const room = bufferSize - buffer.length;
      const accepted = events.length <= room ? events : events.slice(0, Math.max(0, room));
      buffer.push(...accepted);
      if (accepted.length < events.length) options.onError?.("buffered", new Error("audit buffer queue blocked"), events.length - accepted.length);
      if (buffer.length >= maxBatchSize || (waitingForFirst && buffer.length > 0)) {
        waitingForFirst = false;
        signal();
      }
      return undefined;
    },
    async shutdown() {
      stopping = true;
      signal();
      // What is buffered is sent, but a webhook that does not answer cannot hold the server's stop.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([sender, new Promise<void>((resolve) => (timer = setTimeout(resolve, shutdownGraceMs)))]);
      clearTimeout(timer);
    },
  };
}

/** Sleeps `ms`; ends early (false) once `stopped` says so, checked every 100 ms. */
async function pause(ms: number, stopped: () => boolean): Promise<void> {
  const until = performance.now() + ms;
  while (!stopped()) {
    const left = until - performance.now();
    if (left <= 0) return;
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, 100)));
  }
}

/**
 * POSTs one EventList, retried 4 times after a failure, the wait growing 1.5× from the initial
 * backoff (kube's webhook backoff); no more retries once `stopped`. Answers the last failure, if
 * every attempt failed.
 */
async function post(options: WebhookBackendOptions, events: readonly AuditEvent[], stopped: () => boolean): Promise<{ readonly error: unknown } | undefined> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  let delay = options.initialBackoffMs ?? 10_000;
  let failure: unknown;
  for (let attempt = 0; attempt <= RETRIES; attempt++) {
    try {
      const response = await options.client.post({ kind: "EventList", apiVersion: options.apiVersion, metadata: {}, items: events }, timeoutMs);
      if (response.status >= 200 && response.status < 300) return undefined;
      failure = new Error(`the audit webhook answered ${response.status}`);
    } catch (error) {
      failure = error;
    }
    if (attempt === RETRIES || stopped()) break;
    await pause(delay, stopped);
    delay *= 1.5;
  }
  return { error: failure };
}

/**
 * kube's blocking webhook modes: each call's events go out at once as one EventList (no buffer,
 * no throttle) and the call's promise settles when the webhook has them — or, after the retries,
 * when they are given up on (counted under plugin `webhook`). The request waits on it: its
 * RequestReceived event before the handler runs, its ResponseComplete before the answer is sent.
 * `strict` (blocking-strict) rejects with AuditStoreError when a RequestReceived event was not
 * delivered, and the request fails; later stages' failures are only counted, as in kube.
 */
function blockingWebhook(options: WebhookBackendOptions, strict: boolean): AuditBackend {
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  return {
    name: "webhook",
    processEvents(events) {
      if (events.length === 0) return undefined;
      const delivery = post(options, events, () => stopping).then((failure) => {
        if (failure === undefined) return;
        options.onError?.("webhook", failure.error, events.length);
        if (strict && events.some((event) => event.stage === "RequestReceived")) {
          throw new AuditStoreError("the audit webhook did not take the RequestReceived event", { cause: failure.error });
        }
      });
      const tracked = delivery.catch(() => {});
      inFlight.add(tracked);
      void tracked.then(() => inFlight.delete(tracked));
      return delivery;
    },
    async shutdown() {
      stopping = true;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(inFlight), new Promise<void>((resolve) => (timer = setTimeout(resolve, options.shutdownGraceMs ?? 5_000)))]);
      clearTimeout(timer);
    },
  };
}
