import type { AuditLevel, AuditStage } from "./policy.js";

/** kube's `ObjectReference` of an audit event; empty fields are left out. */
export interface AuditObjectRef {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

export interface AuditUser {
  /** Absent only for a request that failed authentication (kube writes `"user":{}`). */
  readonly username?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** The bounded fields of the response's Status kube copies into an event. */
export interface AuditResponseStatus {
  readonly metadata: Record<string, never>;
  readonly status?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly details?: unknown;
  readonly code: number;
}

/**
 * One audit event as kube writes it (`audit.<apiDomain>/v1` `Event`): one per stage of a
 * request the policy records. Events handed to a backend are never changed afterwards, nor is
 * anything they hold (events of one request, and of several, share their user, objectRef,
 * sourceIPs and status objects). The audit filter sets every field, absent ones as undefined
 * (left out of the JSON), in kube's order.
 */
export interface AuditEvent {
  readonly kind: "Event";
  readonly apiVersion: string;
  readonly level: AuditLevel;
  readonly auditID: string;
  readonly stage: AuditStage;
  readonly requestURI: string;
  readonly verb: string;
  readonly user: AuditUser;
  readonly impersonatedUser?: AuditUser;
  readonly sourceIPs?: readonly string[];
  readonly userAgent?: string;
  readonly objectRef?: AuditObjectRef;
  readonly responseStatus?: AuditResponseStatus;
  readonly requestObject?: unknown;
  readonly responseObject?: unknown;
  /** MicroTime: RFC 3339 with microseconds, UTC. */
  readonly requestReceivedTimestamp: string;
  readonly stageTimestamp: string;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** Turns a request's events into kube's log JSON (`EventJsonEncoder`, one per request). */
export interface AuditEventEncoder {
  encode(event: AuditEvent): string;
}

/**
 * Where events go. A batch-mode backend returns at once whatever it does with them (a request
 * never waits on a slow consumer): one that cannot keep up drops events and counts them. The
 * log's blocking modes write synchronously and return nothing; the webhook's blocking modes
 * answer a promise that settles once the events were sent (or given up on), and the request waits
 * for it, as kube's blocking backends hold the request's goroutine. Only a blocking-strict backend
 * fails (`AuditStoreError`, thrown or rejected) and only for a RequestReceived event it could not
 * store: the request then fails. `encoder` is the request's (the audit filter gives one per
 * request): a backend that writes JSON encodes with it, reusing what the request's earlier events
 * already serialized.
 */
export interface AuditBackend {
  readonly name: string;
  processEvents(events: readonly AuditEvent[], encoder?: AuditEventEncoder): undefined | Promise<void>;
  /** Writes or sends what is buffered, then releases files and connections. */
  shutdown(): Promise<void>;
}

/** kube's MicroTime: `2006-01-02T15:04:05.000000Z` (milliseconds padded to microseconds). */
export function microTime(epochMs: number): string {
  // Every event writes two of these: the events of one millisecond share its text, and the date
  // and time to the second is formatted once per second.
  const whole = Math.floor(epochMs);
  if (whole === lastMilli.milli) return lastMilli.text;
  const second = Math.floor(whole / 1000);
  if (second !== lastSecond.second) lastSecond = { second, prefix: new Date(second * 1000).toISOString().slice(0, 20) };
  const millis = whole - second * 1000;
  lastMilli = { milli: whole, text: `${lastSecond.prefix}${millis < 10 ? "00" : millis < 100 ? "0" : ""}${millis}000Z` };
  return lastMilli.text;
}

/** The last second formatted: `2006-01-02T15:04:05.`. */
let lastSecond = { second: Number.NaN, prefix: "" };
/** The last millisecond formatted. */
let lastMilli = { milli: Number.NaN, text: "" };

/** A blocking-strict backend could not store a RequestReceived event: the request must fail (kube: 500). */
export class AuditStoreError extends Error {}

/** Several backends as one (log and webhook both configured). */
export function unionBackend(backends: readonly AuditBackend[]): AuditBackend {
  if (backends.length === 1 && backends[0] !== undefined) return backends[0];
  return {
    name: "union",
    processEvents(events, encoder) {
      // Every backend gets the events even when one fails (blocking-strict); the first failure is passed on.
      return settleAll(backends.map((backend) => () => backend.processEvents(events, encoder)));
    },
    async shutdown() {
      await Promise.all(backends.map((backend) => backend.shutdown()));
    },
  };
}

/**
 * Runs each call (a backend's `processEvents`) and combines their outcomes: undefined when every
 * one returned at once; otherwise a promise settled once all have. Either way the first failure —
 * thrown or rejected, in call order — is passed on, after every call was made.
 */
export function settleAll(calls: readonly (() => undefined | Promise<void>)[]): undefined | Promise<void> {
  let failure: { readonly error: unknown } | undefined;
  let pending: Promise<void>[] | undefined;
  for (const call of calls) {
    try {
      const result = call();
      if (result !== undefined) (pending ??= []).push(result);
    } catch (error) {
      failure ??= { error };
    }
  }
  if (pending === undefined) {
    if (failure !== undefined) throw failure.error;
    return undefined;
  }
  const thrown = failure;
  return Promise.allSettled(pending).then((outcomes) => {
    if (thrown !== undefined) throw thrown.error;
    for (const outcome of outcomes) if (outcome.status === "rejected") throw outcome.reason;
  });
}
