import { randomUUID } from "node:crypto";
import type { AuditRecorder, Filter } from "../../request/context.js";

class Recorder implements AuditRecorder {
  private entries: Record<string, string> | undefined;
  constructor(readonly id: string) {}
  annotate(key: string, value: string): void {
    this.entries ??= {};
    if (!(key in this.entries)) this.entries[key] = value;
  }
  annotations(): Readonly<Record<string, string>> | undefined {
    return this.entries;
  }
}

/**
 * Gives every request its audit record and answers its id in the `Audit-ID` header, on every
 * response (401s and 500s included, so it sits outside the error funnel). A client's own
 * `Audit-ID` request header is kept, as kube does, so a proxy can correlate its logs.
 */
export function auditIdFilter(): Filter {
  return (next) => async (context) => {
    const given = context.request.headers["audit-id"];
    const recorder = new Recorder(given !== undefined && given !== "" ? given : randomUUID());
    context.audit = recorder;
    const response = await next(context);
    return { ...response, headers: { ...response.headers, "audit-id": recorder.id } };
  };
}
