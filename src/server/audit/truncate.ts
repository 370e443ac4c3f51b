import { settleAll, type AuditBackend, type AuditEvent } from "./event.js";
import { encodeEvent } from "./event-json.js";

export interface TruncateOptions {
  /** Largest event in bytes of JSON (`--audit-*-truncate-max-event-size`, kube's 102400). */
  readonly maxEventBytes: number;
  /** Largest batch handed on in bytes (`--audit-*-truncate-max-batch-size`, kube's 10485760). */
  readonly maxBatchBytes: number;
  /** `audit.<domain>/truncated`, set to "true" on an event whose bodies were dropped. */
  readonly annotationKey: string;
  /** An event still too large without its bodies: dropped and reported. */
  readonly onDropped?: (error: Error) => void;
}

/**
 * kube's truncating backend (`--audit-log-truncate-enabled`, `--audit-webhook-truncate-enabled`)
 * in front of another: an event whose JSON exceeds the maximum loses its request and response
 * objects and gains the `<audit group>/truncated: "true"` annotation; one still too large is
 * dropped and reported. The events of a call go on in batches of at most the batch maximum.
 */
export function truncatingBackend(delegate: AuditBackend, options: TruncateOptions): AuditBackend {
  const sizeOf = (event: AuditEvent): number => Buffer.byteLength(encodeEvent(event));
  return {
    name: delegate.name,
    processEvents(events, encoder) {
      const batches: AuditEvent[][] = [];
      let batch: AuditEvent[] = [];
      let batchBytes = 0;
      for (const given of events) {
        let event = given;
        let size = sizeOf(event);
        if (size > options.maxEventBytes) {
          event = {
            ...event,
            requestObject: undefined,
            responseObject: undefined,
            annotations: { ...event.annotations, [options.annotationKey]: "true" },
          };
          size = sizeOf(event);
          if (size > options.maxEventBytes) {
            options.onDropped?.(new Error(`event is too large even after truncating: ${size} bytes, the limit is ${options.maxEventBytes}`));
            continue;
          }
        }
        if (batch.length > 0 && batchBytes + size > options.maxBatchBytes) {
          batches.push(batch);
          batch = [];
          batchBytes = 0;
        }
        batch.push(event);
        batchBytes += size;
      }
      if (batch.length > 0) batches.push(batch);
      return settleAll(batches.map((each) => () => delegate.processEvents(each, encoder)));
    },
    shutdown: () => delegate.shutdown(),
  };
}
