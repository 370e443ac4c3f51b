import { randomUUID } from "node:crypto";
import { addResponseHeader, type AnnotationLevel, type AuditRecorder, type Filter } from "../../request/context.js";

/** Levels from the lowest; an annotation marked with a level is kept for events at it or above. */
const LEVELS = ["None", "Metadata", "Request", "RequestResponse"];

class Recorder implements AuditRecorder {
  private entries: Record<string, string> | undefined;
  /** `entries` was handed out (to an audit event, which must never change): the next annotation copies it first. */
  private shared = false;
  /** Keys that need a level above Metadata, and that level's rank. */
  private ranks: Map<string, number> | undefined;
  constructor(readonly id: string) {}
  annotate(key: string, value: string, level?: AnnotationLevel): void {
    if (this.entries !== undefined && key in this.entries) return;
    if (this.entries === undefined) this.entries = {};
    else if (this.shared) this.entries = { ...this.entries };
    this.shared = false;
    this.entries[key] = value;
    if (level !== undefined) (this.ranks ??= new Map()).set(key, LEVELS.indexOf(level));
  }
  /** Answers a snapshot: later annotations never change an object already answered. */
  annotations(level?: string): Readonly<Record<string, string>> | undefined {
    const ranks = this.ranks;
    if (level === undefined || ranks === undefined || this.entries === undefined) {
      this.shared = this.entries !== undefined;
      return this.entries;
    }
    const rank = LEVELS.indexOf(level);
    const kept: Record<string, string> = {};
    for (const [key, value] of Object.entries(this.entries)) if ((ranks.get(key) ?? 0) <= rank) kept[key] = value;
    return kept;
  }
}

/**
 * Gives every request its audit record and answers its id in the `Audit-ID` header, on every
 * response (401s and 500s included, so it sits outside the error funnel). A client's own
 * `Audit-ID` request header is kept, as kube does, so a proxy can correlate its logs. The header
 * goes into the request's `responseHeaders`, which the listener writes with the answer: this
 * filter neither waits for the answer nor copies it.
 */
export function auditIdFilter(): Filter {
  return (next) => (context) => {
    const given = context.request.headers["audit-id"];
    const recorder = new Recorder(given !== undefined && given !== "" ? given : randomUUID());
    context.audit = recorder;
    addResponseHeader(context, "audit-id", recorder.id);
    return next(context);
  };
}
