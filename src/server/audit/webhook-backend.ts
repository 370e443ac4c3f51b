import type { WebhookClient } from "../../auth/webhook-client.js";
import type { AuditBackend, AuditEvent } from "./event.js";

export interface WebhookBackendOptions {
  readonly client: WebhookClient;
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
 * The webhook backend in batch mode (`--audit-webhook-config-file`): events are buffered and
 * POSTed as an `EventList` in batches by one sender, so a slow or dead webhook costs requests
 * nothing: the bounded buffer fills and further events are dropped and counted, never waited for.
 */
export function webhookBackend(options: WebhookBackendOptions): AuditBackend {
  const bufferSize = options.bufferSize ?? 10_000;
  const maxBatchSize = options.maxBatchSize ?? 400;
  const maxWaitMs = options.maxWaitMs ?? 30_000;
  const qps = options.throttleQps ?? 10;
  const burst = Math.max(1, options.throttleBurst ?? 15);
  const initialBackoffMs = options.initialBackoffMs ?? 10_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
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
    let delay = initialBackoffMs;
    let failure: unknown;
    for (let attempt = 0; attempt <= RETRIES; attempt++) {
      try {
        const response = await options.client.post({ kind: "EventList", apiVersion: options.apiVersion, metadata: {}, items: batch }, timeoutMs);
        if (response.status >= 200 && response.status < 300) return;
        failure = new Error(`the audit webhook answered ${response.status}`);
      } catch (error) {
        failure = error;
      }
      if (attempt === RETRIES || stopping) break;
      await sleep(delay);
      delay *= 1.5;
    }
    options.onError?.("webhook", failure, batch.length);
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
