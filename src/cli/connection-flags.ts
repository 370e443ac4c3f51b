import type { ConnectionLimits } from "../server/http-server.js";
import { FlagError, parseDurationFlag, type FlagSpec, type MutableConfig } from "./flag-spec.js";

function setLimits(config: MutableConfig, change: Partial<ConnectionLimits>): void {
  config.connectionLimits = { ...config.connectionLimits, ...change };
}

/** Bounds on what slow or idle clients may hold of the listener (see `ConnectionLimits`). */
export const CONNECTION_FLAGS: readonly FlagSpec[] = [
  {
    name: "max-connections",
    help: "Open client connections at most; connections beyond it are closed as they arrive. 0: no cap but the process's file limit.",
    defaultText: "0",
    apply: (config, value) => {
      if (!/^\d+$/.test(value)) throw new FlagError(`invalid value "${value}" for flag --max-connections: must be a non-negative integer`);
      setLimits(config, { maxConnections: Number(value) });
    },
  },
  {
    name: "read-header-timeout",
    help: "How long an HTTP/1.1 client may take to send a request's headers (slowloris); the connection is closed after it.",
    defaultText: "32s",
    apply: (config, value) => setLimits(config, { headerTimeoutMs: positive(parseDurationFlag(value, "read-header-timeout"), value, "read-header-timeout") }),
  },
  {
    name: "request-body-timeout",
    help: "How long a client may take to send a request's body, from the request's start; then 408 and the stream is closed.",
    defaultText: "1m",
    apply: (config, value) => setLimits(config, { bodyTimeoutMs: positive(parseDurationFlag(value, "request-body-timeout"), value, "request-body-timeout") }),
  },
  {
    name: "tls-handshake-timeout",
    help: "How long a client may take to finish the TLS handshake; the connection is closed after it.",
    defaultText: "10s",
    apply: (config, value) =>
      setLimits(config, { handshakeTimeoutMs: positive(parseDurationFlag(value, "tls-handshake-timeout"), value, "tls-handshake-timeout") }),
  },
];

function positive(milliseconds: number, value: string, flag: string): number {
  if (milliseconds <= 0) throw new FlagError(`invalid value "${value}" for flag --${flag}: must be positive`);
  return milliseconds;
}
