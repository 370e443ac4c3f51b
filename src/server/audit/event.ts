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
  readonly username: string;
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
 * request the policy records. Events handed to a backend are never changed afterwards.
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

/**
 * Where events go. `processEvents` must return at once whatever the backend does with them (a
 * request never waits on audit); a backend that cannot keep up drops events and counts them.
 */
export interface AuditBackend {
  readonly name: string;
  processEvents(events: readonly AuditEvent[]): void;
  /** Writes or sends what is buffered, then releases files and connections. */
  shutdown(): Promise<void>;
}

/** kube's MicroTime: `2006-01-02T15:04:05.000000Z` (milliseconds padded to microseconds). */
export function microTime(epochMs: number): string {
  // Both timestamps of an event, and the events of requests in the same millisecond, share one string.
  if (epochMs === lastMicroTime.epochMs) return lastMicroTime.text;
  const iso = new Date(epochMs).toISOString();
  const text = `${iso.slice(0, 23)}000Z`;
  lastMicroTime = { epochMs, text };
  return text;
}

let lastMicroTime = { epochMs: Number.NaN, text: "" };

/** Several backends as one (log and webhook both configured). */
export function unionBackend(backends: readonly AuditBackend[]): AuditBackend {
  if (backends.length === 1 && backends[0] !== undefined) return backends[0];
  return {
    name: "union",
    processEvents(events) {
      for (const backend of backends) backend.processEvents(events);
    },
    async shutdown() {
      await Promise.all(backends.map((backend) => backend.shutdown()));
    },
  };
}
