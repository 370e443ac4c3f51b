import { GO_C_ESCAPES } from "../../util/go-escapes.js";
import type { AuditEvent, AuditEventEncoder } from "./event.js";

/** Characters Go's `%q` writes escaped: controls, DEL, the quote, the backslash, lone surrogates. */
const NEEDS_GO_ESCAPE = new RegExp(
  `[${String.fromCharCode(0)}-${String.fromCharCode(0x1f)}${String.fromCharCode(0x7f)}"\\\\${String.fromCharCode(0xd800)}-${String.fromCharCode(0xdfff)}]`,
);

/**
 * A string as Go's `%q` (strconv.Quote) writes it: `"` and `\` escaped, the C escapes for their
 * controls, other ASCII controls and DEL as `\x..`, printable text as is; a lone surrogate (which
 * Go would hold as invalid UTF-8) becomes U+FFFD.
 */
export function goQuote(value: string): string {
  if (!NEEDS_GO_ESCAPE.test(value)) return `"${value}"`;
  let quoted = '"';
  for (let index = 0; index < value.length; index++) {
    const char = value[index] as string;
    const code = value.charCodeAt(index);
    const named = GO_C_ESCAPES[char];
    if (named !== undefined) quoted += named;
    else if (code < 0x20 || code === 0x7f) quoted += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < value.length && /[\udc00-\udfff]/.test(value[index + 1] as string)) {
      quoted += char + (value[index + 1] as string);
      index++;
    } else if (code >= 0xd800 && code <= 0xdfff) quoted += "\ufffd";
    else quoted += char;
  }
  return `${quoted}"`;
}

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
