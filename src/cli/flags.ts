import { KUBERNETES_PROFILE, ORCH_PROFILE, profileByName } from "../api/profile.js";
import { parseDuration } from "../util/duration.js";
import type { Config, StorageBackend } from "./config.js";

interface FlagSpec {
  readonly name: string;
  readonly alias?: string;
  readonly help: string;
  readonly defaultText: string;
  readonly boolean?: boolean;
  readonly apply: (config: MutableConfig, value: string) => void;
}

type MutableConfig = { -readonly [K in keyof Config]: Config[K] };

export class FlagError extends Error {
  override readonly name = "FlagError";
}

function parsePort(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new FlagError(`invalid value "${value}" for flag --${flag}: must be a port number 0-65535`);
  return Number(value);
}

function parseDurationFlag(value: string, flag: string): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms < 0) throw new FlagError(`invalid value "${value}" for flag --${flag}: must be a duration such as 500ms, 3s or 5m`);
  return ms;
}

function parseCount(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new FlagError(`invalid value "${value}" for flag --${flag}: must be a positive integer`);
  return Number(value);
}

function parseBool(value: string, flag: string): boolean {
  if (value === "true" || value === "1") return true;
  if (value === "false" || value === "0") return false;
  throw new FlagError(`invalid value "${value}" for flag --${flag}: must be true or false`);
}

const FLAGS: readonly FlagSpec[] = [
  { name: "secure-port", help: "The port on which to serve HTTPS.", defaultText: "6443", apply: (config, value) => void (config.securePort = parsePort(value, "secure-port")) },
  { name: "bind-address", help: "The IP address on which to listen.", defaultText: "127.0.0.1", apply: (config, value) => void (config.bindAddress = value) },
  { name: "data-dir", help: "Directory for the store, generated certificates and the admin kubeconfig.", defaultText: ".orch", apply: (config, value) => void (config.dataDir = value) },
  { name: "tls-cert-file", help: "Serving certificate (PEM). Generated into the data dir when unset.", defaultText: "", apply: (config, value) => void (config.tlsCertFile = value) },
  { name: "tls-private-key-file", help: "Serving private key (PEM).", defaultText: "", apply: (config, value) => void (config.tlsPrivateKeyFile = value) },
  { name: "client-ca-file", help: "CA bundle that client certificates are verified against. Default: the generated CA.", defaultText: "", apply: (config, value) => void (config.clientCaFile = value) },
  { name: "token-auth-file", help: "Static bearer tokens, CSV: token,user,uid,\"group1,group2\".", defaultText: "", apply: (config, value) => void (config.tokenAuthFile = value) },
  {
    name: "storage-backend",
    help: "Storage backend: sqlite (durable, in the data dir) or memory.",
    defaultText: "sqlite",
    apply: (config, value) => {
      if (value !== "sqlite" && value !== "memory") throw new FlagError(`invalid value "${value}" for flag --storage-backend: must be sqlite or memory`);
      config.storageBackend = value satisfies StorageBackend;
    },
  },
  {
    name: "compat",
    help: `Product-name profile: ${ORCH_PROFILE.name} (${ORCH_PROFILE.apiDomain} names) or ${KUBERNETES_PROFILE.name} (${KUBERNETES_PROFILE.apiDomain} names, for stock clients).`,
    defaultText: "orch",
    apply: (config, value) => {
      const profile = profileByName(value);
      if (profile === undefined) throw new FlagError(`invalid value "${value}" for flag --compat: must be ${ORCH_PROFILE.name} or ${KUBERNETES_PROFILE.name}`);
      config.profile = profile;
    },
  },
  {
    name: "v",
    alias: "v",
    help: "Log verbosity: 0 errors and start-up, 1+ requests, 4+ debug.",
    defaultText: "0",
    apply: (config, value) => {
      if (!/^\d+$/.test(value)) throw new FlagError(`invalid value "${value}" for flag -v: must be a non-negative integer`);
      config.verbosity = Number(value);
    },
  },
  { name: "etcd-compaction-interval", help: "How often history older than one interval is compacted; 0 disables.", defaultText: "5m", apply: (config, value) => void (config.compactionIntervalMs = parseDurationFlag(value, "etcd-compaction-interval")) },
  { name: "shutdown-delay-duration", help: "How long /readyz reports failure before the server stops listening on SIGTERM.", defaultText: "0s", apply: (config, value) => void (config.shutdownDelayMs = parseDurationFlag(value, "shutdown-delay-duration")) },
  { name: "shutdown-grace-period", help: "How long in-flight requests may take to finish on stop.", defaultText: "30s", apply: (config, value) => void (config.shutdownGraceMs = parseDurationFlag(value, "shutdown-grace-period")) },
  { name: "watch-cache", help: "Serve lists and watches from the in-memory watch cache.", defaultText: "true", boolean: true, apply: (config, value) => void (config.watchCache = parseBool(value, "watch-cache")) },
  { name: "default-watch-cache-size", help: "Events kept per resource for resuming watches (also bounded to 5 minutes).", defaultText: "20000", apply: (config, value) => void (config.watchCacheSize = parseCount(value, "default-watch-cache-size")) },
  { name: "min-request-timeout", help: "Seconds a watch without timeoutSeconds lasts at least (at most twice this).", defaultText: "1800", apply: (config, value) => void (config.minRequestTimeoutSeconds = parseCount(value, "min-request-timeout")) },
  { name: "anonymous-auth", help: "Serve requests without credentials as system:anonymous.", defaultText: "true", boolean: true, apply: (config, value) => void (config.anonymousAuth = parseBool(value, "anonymous-auth")) },
];

export function defaultConfig(): Config {
  return {
    securePort: 6443,
    bindAddress: "127.0.0.1",
    dataDir: ".orch",
    storageBackend: "sqlite",
    profile: ORCH_PROFILE,
    verbosity: 0,
    compactionIntervalMs: 5 * 60_000,
    shutdownDelayMs: 0,
    shutdownGraceMs: 30_000,
    anonymousAuth: true,
    watchCache: true,
    watchCacheSize: 20_000,
    minRequestTimeoutSeconds: 1800,
  };
}

export type ParsedArgs = { readonly kind: "help"; readonly text: string } | { readonly kind: "config"; readonly config: Config };

/** Parses `--flag=value`, `--flag value`, `-v=2`, `-v 2`; unknown flags and bad values throw FlagError. */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const config: MutableConfig = { ...defaultConfig() };
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? "";
    if (arg === "--help" || arg === "-h") return { kind: "help", text: helpText() };
    const match = /^--?([a-z0-9-]+)(?:=(.*))?$/s.exec(arg);
    if (match === null) throw new FlagError(`unexpected argument "${arg}"; flags start with --`);
    const name = match[1] ?? "";
    const spec = FLAGS.find((flag) => flag.name === name || flag.alias === name);
    if (spec === undefined || (arg.startsWith("-") && !arg.startsWith("--") && spec.alias !== name)) throw new FlagError(`unknown flag: ${arg.split("=")[0]}`);
    let value = match[2];
    if (value === undefined) {
      if (spec.boolean === true) value = "true";
      else {
        value = argv[index + 1];
        index++;
        if (value === undefined) throw new FlagError(`flag needs an argument: --${spec.name}`);
      }
    }
    spec.apply(config, value);
  }
  if ((config.tlsCertFile === undefined) !== (config.tlsPrivateKeyFile === undefined)) {
    throw new FlagError("--tls-cert-file and --tls-private-key-file must be given together");
  }
  return { kind: "config", config };
}

export function helpText(): string {
  const lines = ["Usage: orch-apiserver [flags]", "", "Flags:"];
  for (const flag of FLAGS) {
    const name = flag.alias === flag.name ? `-${flag.name}, --${flag.name}` : `--${flag.name}`;
    lines.push(`  ${name.padEnd(30)} ${flag.help}${flag.defaultText === "" ? "" : ` (default ${flag.defaultText})`}`);
  }
  lines.push(`  ${"-h, --help".padEnd(30)} Show this help.`);
  return `${lines.join("\n")}\n`;
}
