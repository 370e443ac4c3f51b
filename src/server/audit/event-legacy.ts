import { goQuote } from "../../util/go-escapes.js";
import type { AuditEvent, AuditEventEncoder } from "./event.js";

/** A MicroTime (`2006-01-02T15:04:05.000000Z`) as Go's RFC3339Nano writes it: the fraction's trailing zeros dropped, with its dot when none is left. */
export function rfc3339Nano(microTime: string): string {
  return microTime.replace(/\.(\d*?)0*Z$/, (_match, digits: string) => (digits === "" ? "Z" : `.${digits}Z`));
}

/** kube's list of names in the legacy line: each quoted, joined by commas (the whole then quoted again). */
function quotedList(values: readonly string[]): string {
  return values.map(goQuote).join(",");
}

/**
 * kube's legacy audit line (`--audit-log-format legacy`): the received time, then `AUDIT:` and
 * the event's id, stage, first source IP, verb, user and groups, impersonated user and groups,
 * user agent, namespace, URI and response code, each `%q`-quoted, with kube's placeholders
 * (`<none>`, `<self>`, `<lookup>`, `<unknown>`, `<deferred>`) for what is absent.
 */
export function legacyLine(event: AuditEvent): string {
  const username = event.user.username ?? "";
  const groups = username !== "" && event.user.groups !== undefined && event.user.groups.length > 0 ? quotedList(event.user.groups) : "<none>";
  const impersonated = event.impersonatedUser;
  const as = impersonated === undefined ? "<self>" : (impersonated.username ?? "");
  const asGroups = impersonated?.groups === undefined ? "<lookup>" : quotedList(impersonated.groups);
  const namespace = event.objectRef?.namespace === undefined || event.objectRef.namespace === "" ? "<none>" : event.objectRef.namespace;
  const response = event.responseStatus === undefined ? "<deferred>" : String(event.responseStatus.code);
  const ip = event.sourceIPs?.[0] ?? "<unknown>";
  return (
    `${rfc3339Nano(event.requestReceivedTimestamp)} AUDIT: id=${goQuote(event.auditID)} stage=${goQuote(event.stage)} ip=${goQuote(ip)} ` +
    `method=${goQuote(event.verb)} user=${goQuote(username === "" ? "<none>" : username)} groups=${goQuote(groups)} as=${goQuote(as)} ` +
    `asgroups=${goQuote(asGroups)} user-agent=${goQuote(event.userAgent ?? "")} namespace=${goQuote(namespace)} uri=${goQuote(event.requestURI)} ` +
    `response="${response}"`
  );
}

/** The legacy format as an encoder for the log backend. */
export const LEGACY_ENCODER: AuditEventEncoder = { encode: legacyLine };
