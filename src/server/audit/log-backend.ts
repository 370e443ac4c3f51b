import { AuditStoreError, type AuditBackend, type AuditEvent, type AuditEventEncoder } from "./event.js";
import { encodeEvent, EventJsonEncoder } from "./event-json.js";
import { LEGACY_ENCODER } from "./event-legacy.js";
import { LogLines, LogWriteError, RotatingLogFile, type LogFileOptions } from "./log-file.js";

export { backupName } from "./log-file.js";

/**
 * kube's `--audit-log-mode`: `blocking` (kube's default and ours) never drops an event and writes
 * on the server's own thread; `blocking-strict` also fails a request whose RequestReceived event
 * cannot be written; `batch` buffers events (bounded, overflow dropped and counted) and writes
 * them off the main thread, so the disk never holds a request.
 */
export type AuditLogMode = "blocking" | "blocking-strict" | "batch";

export const AUDIT_LOG_MODES: readonly AuditLogMode[] = ["blocking", "blocking-strict", "batch"];

/** `--audit-log-batch-*` (batch mode only), kube's defaults. */
export interface LogBatchOptions {
  /** Events buffered at most; beyond it new events are dropped (`--audit-log-batch-buffer-size`, 10000). */
  readonly bufferSize?: number;
  /** Events per write at most (`--audit-log-batch-max-size`, 1: one write per event, as kube). */
  readonly maxSize?: number;
  /** How long a write smaller than maxSize waits for more events (`--audit-log-batch-max-wait`, 0: none). */
  readonly maxWaitMs?: number;
  /** Writes per second on average and in a burst (`--audit-log-batch-throttle-qps`/`-burst` with `-throttle-enable`); 0 = unthrottled. */
  readonly throttleQps?: number;
  readonly throttleBurst?: number;
}

export interface LogBackendOptions extends LogFileOptions {
  readonly mode?: AuditLogMode;
  /** `--audit-log-format`: json (default) or kube's one-line legacy text. */
  readonly format?: "json" | "legacy";
  readonly batch?: LogBatchOptions;
  /** Events that could not be written (`plugin` log) or found the batch buffer full (`plugin` buffered). */
  readonly onError?: (error: unknown, dropped: number, plugin?: "log" | "buffered") => void;
}

/** One event's log line without its newline: kube's Event as JSON (the request's encoder when given). */
export function eventLine(event: AuditEvent, encoder?: AuditEventEncoder): string {
  return encoder === undefined ? encodeEvent(event) : encoder.encode(event);
}

/**
 * The log backend (`--audit-log-path`, `--audit-log-format json`): one JSON event per line, the
 * file rotated by size and old backups pruned by count and age. Events are serialized when they
 * are handed over (with the request's encoder); in the blocking modes their UTF-8 bytes go
 * straight into one reused buffer (`LogLines`), so nothing of them stays on the heap. In the blocking modes
 * the lines of one turn of the event loop are written together, synchronously, at the end of the
 * turn (no event is ever dropped; the loop waits on the disk as kube's request goroutines do); in
 * batch mode a bounded buffer feeds one asynchronous writer.
 */
export function logBackend(options: LogBackendOptions): AuditBackend {
  const file = new RotatingLogFile(options);
  const mode = options.mode ?? "blocking";
  const report = (error: unknown, dropped: number, plugin: "log" | "buffered" = "log"): void => options.onError?.(error, dropped, plugin);
  // The legacy text is one encoder for every event; JSON uses the request's (or a new) encoder.
  const legacy = options.format === "legacy" ? LEGACY_ENCODER : undefined;
  return mode === "batch" ? batchLog(file, options.batch ?? {}, report, legacy) : blockingLog(file, mode === "blocking-strict", report, legacy);
}

type Report = (error: unknown, dropped: number, plugin?: "log" | "buffered") => void;

/** Pending events written at once, before the end of the turn: a turn that serves many requests writes in slices. */
const BLOCKING_SLICE = 256;

function blockingLog(file: RotatingLogFile, strict: boolean, report: Report, fixed: AuditEventEncoder | undefined): AuditBackend {
  const pending = new LogLines();
  let scheduled: NodeJS.Immediate | undefined;

  /** Writes what is pending; false when the write failed (the failure is reported). */
  function flush(): boolean {
    scheduled = undefined;
    if (pending.count === 0) return true;
    try {
      file.writeSync(pending);
      return true;
    } catch (error) {
      report(error, pending.count - (error instanceof LogWriteError ? error.written : 0));
      return false;
    } finally {
      pending.clear();
    }
  }

  return {
    name: "log",
    processEvents(events, given) {
      const encoder = fixed ?? given;
      let encoded = true;
      for (const event of events) {
        try {
          // The filter's encoder writes the line's bytes straight into the buffer; another encoder's text is copied in.
          if (encoder === undefined) new EventJsonEncoder().encodeInto(event, pending);
          else if (encoder instanceof EventJsonEncoder) encoder.encodeInto(event, pending);
          else pending.add(encoder.encode(event));
        } catch (error) {
          // An event that cannot be serialized is reported and left out; the request goes on (kube logs it).
          report(error, 1);
          encoded = false;
        }
      }
      if (strict && events.some((event) => event.stage === "RequestReceived")) {
        // kube's blocking-strict: the request goes on only once its RequestReceived event is stored.
        if (scheduled !== undefined) clearImmediate(scheduled);
        if (!flush() || !encoded) throw new AuditStoreError("failed to store audit event");
        return undefined;
      }
      if (pending.count >= BLOCKING_SLICE) {
        if (scheduled !== undefined) clearImmediate(scheduled);
        flush();
        return undefined;
      }
      scheduled ??= setImmediate(flush);
      return undefined;
    },
    async shutdown() {
      if (scheduled !== undefined) clearImmediate(scheduled);
      flush();
      file.close();
      await file.settled();
    },
  };
}

function batchLog(file: RotatingLogFile, batch: LogBatchOptions, report: Report, fixed: AuditEventEncoder | undefined): AuditBackend {
  const bufferSize = Math.max(1, batch.bufferSize ?? 10_000);
  const maxSize = Math.max(1, batch.maxSize ?? 1);
  const maxWaitMs = Math.max(0, batch.maxWaitMs ?? 0);
  const qps = batch.throttleQps ?? 0;
  const burst = Math.max(1, batch.throttleBurst ?? 1);
  const buffer: string[] = [];
  let writer: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let tokens = burst;
  let refilledAt = performance.now();
  let stopping = false;

  /** Time (ms) until the throttle allows the next write; 0 takes a token now. */
  function throttleDelay(): number {
    if (qps <= 0) return 0;
    const now = performance.now();
    tokens = Math.min(burst, tokens + ((now - refilledAt) / 1000) * qps);
    refilledAt = now;
    if (tokens >= 1) {
      tokens -= 1;
      return 0;
    }
    return ((1 - tokens) / qps) * 1000;
  }

  /** One writer at a time: writes batches of up to maxSize until the buffer is empty. */
  // The one writer's bytes, reused from batch to batch.
  const lines = new LogLines();
  async function drain(): Promise<void> {
    while (buffer.length > 0) {
      const delay = stopping ? 0 : throttleDelay();
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      for (const line of buffer.splice(0, maxSize)) lines.add(line);
      try {
        await file.write(lines);
      } catch (error) {
        report(error, lines.count - (error instanceof LogWriteError ? error.written : 0));
      } finally {
        lines.clear();
      }
    }
  }

  /** A start is scheduled: on the next turn, or when the max-wait timer fires. */
  let waiting = false;

  function start(): void {
    waiting = false;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (writer !== undefined) return;
    writer = drain().finally(() => {
      writer = undefined;
      // Events that arrived while the last write was finishing.
      if (buffer.length > 0) schedule();
    });
  }

  function schedule(): void {
    if (writer !== undefined) return;
    // A batch short of maxSize waits up to maxWaitMs for more events; otherwise it goes on the next turn.
    const now = buffer.length >= maxSize || maxWaitMs === 0 || stopping;
    if (waiting && (timer === undefined || !now)) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    waiting = true;
    if (now) setImmediate(start);
    else timer = setTimeout(start, maxWaitMs);
  }

  return {
    name: "log",
    processEvents(events, given) {
      const encoder = fixed ?? given;
      const room = bufferSize - buffer.length;
      for (let index = 0; index < events.length && index < room; index++) buffer.push(eventLine(events[index] as AuditEvent, encoder));
      if (events.length > room) report(new Error("audit buffer queue blocked"), events.length - Math.max(0, room), "buffered");
      schedule();
      return undefined;
    },
    async shutdown() {
      stopping = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      while (writer !== undefined || buffer.length > 0) {
        start();
        await writer;
      }
      file.close();
      await file.settled();
    },
  };
}
