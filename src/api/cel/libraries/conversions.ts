/**
 * Standard-library conversions cel-go declares and cel-js does not: `timestamp(timestamp)` and
 * `duration(duration)` (identities), `string(timestamp)` (RFC 3339, fractional seconds only when
 * set) and `int(timestamp)` (Unix seconds). A CRD rule's `date-time` field is a timestamp to the type
 * checker, so `timestamp(self.when)` must check, as it does on kube.
 */
import type { Environment } from "@marcbachmann/cel-js";

const TIMESTAMP = "google.protobuf.Timestamp";
const DURATION = "google.protobuf.Duration";

function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.000Z$/, "Z");
}

/** Registers the conversions on `env`. */
export function registerConversionsLibrary(env: Environment): void {
  env
    .registerFunction(`timestamp(${TIMESTAMP}): ${TIMESTAMP}`, (value: Date) => value)
    .registerFunction(`duration(${DURATION}): ${DURATION}`, (value: unknown) => value)
    .registerFunction(`string(${TIMESTAMP}): string`, rfc3339)
    .registerFunction(`int(${TIMESTAMP}): int`, (value: Date) => BigInt(Math.floor(value.getTime() / 1000)));
}
