import { KUBERNETES_PROFILE, ORCH_PROFILE, profileByName } from "../api/profile.js";
import { AuthorizationConfigError, DEFAULT_AUTHORIZATION, parseAuthorizationModes, validateAuthorizationConfig } from "../authz/modes.js";
import { CONTROLLER_NAMES } from "../controllers/names.js";
import { selectControllers } from "../controllers/runtime/selection.js";
import { SIGNER_FLAGS, type Config, type SignerFlag, type StorageBackend } from "./config.js";
import {
  DEFAULT_SERVICE_CLUSTER_IP_RANGE,
  DEFAULT_SERVICE_NETWORK,
  DEFAULT_SERVICE_NODE_PORT_RANGE,
  parseRuntimeConfig,
  parseServiceNetwork,
  RuntimeConfigError,
} from "../registry/index.js";
import { checkAdmissionConfig } from "./admission.js";
import { parseCipherSuites, parseTlsMinVersion } from "../server/tls-policy.js";
import { DEFAULT_ADMISSION_SETTINGS } from "../admission/context.js";
import { AdmissionConfigError } from "../admission/deny.js";
import { FlagError, list, parseBool, parseCount, parseDurationFlag, parsePort, type FlagSpec, type MutableConfig } from "./flag-spec.js";
import { OPERATIONS_FLAGS, checkOperationsConfig, operationsDefaults } from "./operations-flags.js";
import { CONNECTION_FLAGS } from "./connection-flags.js";
import { DEFAULT_CONNECTION_LIMITS } from "../server/http-server.js";

export { FlagError };

const FLAGS: readonly FlagSpec[] = [
  {
    name: "secure-port",
    help: "The port on which to serve HTTPS.",
    defaultText: "6443",
    apply: (config, value) => void (config.securePort = parsePort(value, "secure-port")),
  },
  { name: "bind-address", help: "The IP address on which to listen.", defaultText: "127.0.0.1", apply: (config, value) => void (config.bindAddress = value) },
  {
    name: "data-dir",
    help: "Directory for the store, generated certificates and the admin kubeconfig.",
    defaultText: ".orch",
    apply: (config, value) => void (config.dataDir = value),
  },
  {
    name: "tls-cert-file",
    help: "Serving certificate (PEM). Generated into the data dir when unset.",
    defaultText: "",
    apply: (config, value) => void (config.tlsCertFile = value),
  },
  { name: "tls-private-key-file", help: "Serving private key (PEM).", defaultText: "", apply: (config, value) => void (config.tlsPrivateKeyFile = value) },
  {
    name: "tls-min-version",
    help: "Minimum TLS version: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13.",
    defaultText: "VersionTLS12",
    apply: (config, value) => {
      try {
        parseTlsMinVersion(value);
      } catch (error) {
        throw new FlagError(`invalid value "${value}" for flag --tls-min-version: ${error instanceof Error ? error.message : String(error)}`);
      }
      config.tlsMinVersion = value;
    },
  },
  {
    name: "tls-cipher-suites",
    help: "Comma-separated TLS 1.2 cipher suites, Go's names (TLS 1.3 suites are not configurable). Default: the TLS library's.",
    defaultText: "",
    apply: (config, value) => {
      try {
        parseCipherSuites(list(value));
      } catch (error) {
        throw new FlagError(`invalid value "${value}" for flag --tls-cipher-suites: ${error instanceof Error ? error.message : String(error)}`);
      }
      config.tlsCipherSuites = list(value);
    },
  },
  {
    name: "tls-sni-cert-key",
    help: 'A certificate and key served by SNI: "cert.pem,key.pem" or "cert.pem,key.pem:*.example.com,example.com" (repeatable). Reloaded when the files change.',
    defaultText: "",
    apply: (config, value) => {
      const match = /^([^,:]+),([^,:]+)(?::(.*))?$/.exec(value);
      if (match === null) throw new FlagError(`invalid value "${value}" for flag --tls-sni-cert-key: expected certfile,keyfile[:name1,name2]`);
      config.tlsSniCertKeys = [
        ...config.tlsSniCertKeys,
        { certFile: match[1] ?? "", keyFile: match[2] ?? "", names: list(match[3] ?? "").map((name) => name.toLowerCase()) },
      ];
    },
  },
  {
    name: "client-ca-file",
    help: "CA bundle that client certificates are verified against. Default: the generated CA.",
    defaultText: "",
    apply: (config, value) => void (config.clientCaFile = value),
  },
  {
    name: "token-auth-file",
    help: 'Static bearer tokens, CSV: token,user,uid,"group1,group2".',
    defaultText: "",
    apply: (config, value) => void (config.tokenAuthFile = value),
  },
  {
    name: "storage-backend",
    help: "Storage backend: sqlite (durable, in the data dir), memory, or etcd3 (the members of --etcd-servers).",
    defaultText: "sqlite",
    apply: (config, value) => {
      if (value !== "sqlite" && value !== "memory" && value !== "etcd3")
        throw new FlagError(`invalid value "${value}" for flag --storage-backend: must be sqlite, memory or etcd3`);
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
  {
    name: "etcd-compaction-interval",
    help: "How often history older than one interval is compacted; 0 disables.",
    defaultText: "5m",
    apply: (config, value) => void (config.compactionIntervalMs = parseDurationFlag(value, "etcd-compaction-interval")),
  },
  {
    name: "etcd-servers",
    help: "Comma-separated etcd client URLs (http:// or https://, all alike); needed by --storage-backend etcd3.",
    defaultText: "",
    apply: (config, value) => {
      const servers = list(value);
      for (const server of servers) {
        let url: URL | undefined;
        try {
          url = new URL(server);
        } catch {
          url = undefined;
        }
        if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") {
          throw new FlagError(`invalid value "${server}" in flag --etcd-servers: must be an http:// or https:// URL`);
        }
      }
      config.etcdServers = [...config.etcdServers, ...servers];
    },
  },
  {
    name: "etcd-cafile",
    help: "CA bundle that etcd's serving certificates are verified against.",
    defaultText: "",
    apply: (config, value) => void (config.etcdCaFile = value),
  },
  { name: "etcd-certfile", help: "Client certificate for etcd (mutual TLS).", defaultText: "", apply: (config, value) => void (config.etcdCertFile = value) },
  { name: "etcd-keyfile", help: "Private key of --etcd-certfile.", defaultText: "", apply: (config, value) => void (config.etcdKeyFile = value) },
  {
    name: "etcd-prefix",
    help: "Prefix of every key the server stores in etcd.",
    defaultText: "/registry",
    apply: (config, value) => {
      if (!value.startsWith("/")) throw new FlagError(`invalid value "${value}" for flag --etcd-prefix: must start with /`);
      config.etcdPrefix = value.replace(/\/+$/, "");
    },
  },
  {
    name: "etcd-count-metric-poll-period",
    help: "How often the number of stored objects per resource is read for apiserver_storage_objects; 0 disables.",
    defaultText: "1m",
    apply: (config, value) => void (config.etcdCountMetricPollPeriodMs = parseDurationFlag(value, "etcd-count-metric-poll-period")),
  },
  {
    name: "etcd-readycheck-timeout",
    help: "How long /readyz waits for etcd to answer before reporting it unready.",
    defaultText: "2s",
    apply: (config, value) => void (config.etcdReadycheckTimeoutMs = parseDurationFlag(value, "etcd-readycheck-timeout")),
  },
  {
    name: "etcd-healthcheck-timeout",
    help: "How long /livez and /healthz wait for etcd to answer.",
    defaultText: "2s",
    apply: (config, value) => void (config.etcdHealthcheckTimeoutMs = parseDurationFlag(value, "etcd-healthcheck-timeout")),
  },
  {
    name: "request-timeout",
    help: "How long a request that is not long-running (watch, exec, attach, port-forward, proxy, log) may take before it is answered 504 Timeout (a request's ?timeout= can lower it); also the deadline of every storage call to etcd.",
    defaultText: "1m",
    apply: (config, value) => void (config.requestTimeoutMs = parseDurationFlag(value, "request-timeout")),
  },
  {
    name: "shutdown-delay-duration",
    help: "How long /readyz reports failure before the server stops listening on SIGTERM.",
    defaultText: "0s",
    apply: (config, value) => void (config.shutdownDelayMs = parseDurationFlag(value, "shutdown-delay-duration")),
  },
  {
    name: "livez-grace-period",
    help: "How long after the start /livez takes unfinished post-start hooks to be on their way (they pass /livez until then).",
    defaultText: "0s",
    apply: (config, value) => void (config.livezGracePeriodMs = parseDurationFlag(value, "livez-grace-period")),
  },
  {
    name: "shutdown-grace-period",
    help: "How long in-flight requests may take to finish on stop.",
    defaultText: "30s",
    apply: (config, value) => void (config.shutdownGraceMs = parseDurationFlag(value, "shutdown-grace-period")),
  },
  {
    name: "runtime-config",
    help: "Group versions to turn on or off: <group>/<version>[=true|false],... and api/all.",
    defaultText: "",
    apply: (config, value) => {
      try {
        config.runtimeConfig = parseRuntimeConfig(value);
      } catch (error) {
        if (error instanceof RuntimeConfigError) throw new FlagError(`invalid value "${value}" for flag --runtime-config: ${error.message}`);
        throw error;
      }
    },
  },
  {
    name: "service-cluster-ip-range",
    help: "CIDR services' cluster IPs come from; two comma-separated CIDRs of different families for dual-stack (the first is primary).",
    defaultText: DEFAULT_SERVICE_CLUSTER_IP_RANGE,
    apply: (config, value) => setServiceNetwork(config, "service-cluster-ip-range", value, config.serviceNodePortRange),
  },
  {
    name: "service-node-port-range",
    help: "Ports NodePort and LoadBalancer services' node ports come from (low-high, inclusive).",
    defaultText: DEFAULT_SERVICE_NODE_PORT_RANGE,
    apply: (config, value) => setServiceNetwork(config, "service-node-port-range", config.serviceClusterIpRange, value),
  },
  {
    name: "authorization-mode",
    help: "Ordered comma list of AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC, Node: the first to allow or deny decides; none deciding denies.",
    defaultText: "Node,RBAC",
    apply: (config, value) => {
      try {
        config.authorization = { ...config.authorization, modes: parseAuthorizationModes(value) };
      } catch (error) {
        if (error instanceof AuthorizationConfigError) throw new FlagError(`invalid value "${value}" for flag --authorization-mode: ${error.message}`);
        throw error;
      }
    },
  },
  {
    name: "authorization-policy-file",
    help: "ABAC policy file: one JSON policy object per line.",
    defaultText: "",
    apply: (config, value) => void (config.authorization = { ...config.authorization, policyFile: value }),
  },
  {
    name: "authorization-webhook-config-file",
    help: "Kubeconfig-format file of the authorization webhook (a SubjectAccessReview is POSTed to it).",
    defaultText: "",
    apply: (config, value) => void (config.authorization = { ...config.authorization, webhookConfigFile: value }),
  },
  {
    name: "authorization-webhook-version",
    help: "SubjectAccessReview version sent to the webhook: v1 or v1beta1.",
    defaultText: "v1beta1",
    apply: (config, value) => {
      if (value !== "v1" && value !== "v1beta1")
        throw new FlagError(`invalid value "${value}" for flag --authorization-webhook-version: must be v1 or v1beta1`);
      config.authorization = { ...config.authorization, webhookVersion: value };
    },
  },
  {
    name: "authorization-webhook-cache-authorized-ttl",
    help: "How long the webhook's allows are cached.",
    defaultText: "5m",
    apply: (config, value) =>
      void (config.authorization = { ...config.authorization, webhookAuthorizedTtlMs: parseDurationFlag(value, "authorization-webhook-cache-authorized-ttl") }),
  },
  {
    name: "authorization-webhook-cache-unauthorized-ttl",
    help: "How long the webhook's denials (and no-opinions) are cached.",
    defaultText: "30s",
    apply: (config, value) =>
      void (config.authorization = {
        ...config.authorization,
        webhookUnauthorizedTtlMs: parseDurationFlag(value, "authorization-webhook-cache-unauthorized-ttl"),
      }),
  },
  {
    name: "enable-priority-and-fairness",
    help: "Limit and queue requests by FlowSchemas and PriorityLevelConfigurations (API Priority and Fairness).",
    defaultText: "true",
    boolean: true,
    apply: (config, value) => void (config.enablePriorityAndFairness = parseBool(value, "enable-priority-and-fairness")),
  },
  {
    name: "max-requests-inflight",
    help: "With --max-mutating-requests-inflight, the concurrency API Priority and Fairness shares out among its priority levels.",
    defaultText: "400",
    apply: (config, value) => void (config.maxRequestsInflight = parseCount(value, "max-requests-inflight")),
  },
  {
    name: "max-mutating-requests-inflight",
    help: "Added to --max-requests-inflight: the server's total concurrency limit.",
    defaultText: "200",
    apply: (config, value) => void (config.maxMutatingRequestsInflight = parseCount(value, "max-mutating-requests-inflight")),
  },
  {
    name: "watch-cache",
    help: "Serve lists and watches from the in-memory watch cache.",
    defaultText: "true",
    boolean: true,
    apply: (config, value) => void (config.watchCache = parseBool(value, "watch-cache")),
  },
  {
    name: "controllers",
    help: "Controllers to run: * is every default one, name enables one, -name disables one (kube-controller-manager's names; see the README).",
    defaultText: "*",
    apply: (config, value) => {
      const names = value
        .split(",")
        .map((name) => name.trim())
        .filter((name) => name !== "");
      try {
        selectControllers(CONTROLLER_NAMES, names);
      } catch (error) {
        throw new FlagError(`--controllers: ${error instanceof Error ? error.message : String(error)}`);
      }
      config.controllers = names;
    },
  },
  {
    name: "leader-elect",
    help: "With --storage-backend etcd3, run controllers on one server at a time, elected through a coordination Lease.",
    defaultText: "true",
    boolean: true,
    apply: (config, value) => void (config.leaderElect = parseBool(value, "leader-elect")),
  },
  {
    name: "default-watch-cache-size",
    help: "Events kept per resource for resuming watches (also bounded to 5 minutes).",
    defaultText: "20000",
    apply: (config, value) => void (config.watchCacheSize = parseCount(value, "default-watch-cache-size")),
  },
  {
    name: "min-request-timeout",
    help: "Seconds a watch without timeoutSeconds lasts at least (at most twice this).",
    defaultText: "1800",
    apply: (config, value) => void (config.minRequestTimeoutSeconds = parseCount(value, "min-request-timeout")),
  },
  {
    name: "anonymous-auth",
    help: "Serve requests without credentials as system:anonymous.",
    defaultText: "true",
    boolean: true,
    apply: (config, value) => void (config.anonymousAuth = parseBool(value, "anonymous-auth")),
  },
  {
    name: "requestheader-username-headers",
    help: "Headers naming the user, first non-empty wins (authenticating proxy; needs --requestheader-client-ca-file).",
    defaultText: "",
    apply: (config, value) => void (config.requestHeaderUsernameHeaders = [...config.requestHeaderUsernameHeaders, ...list(value)]),
  },
  {
    name: "requestheader-group-headers",
    help: "Headers whose every value is a group (authenticating proxy).",
    defaultText: "",
    apply: (config, value) => void (config.requestHeaderGroupHeaders = [...config.requestHeaderGroupHeaders, ...list(value)]),
  },
  {
    name: "requestheader-extra-headers-prefix",
    help: "Header prefixes whose rest names an extra attribute (authenticating proxy).",
    defaultText: "",
    apply: (config, value) => void (config.requestHeaderExtraHeadersPrefix = [...config.requestHeaderExtraHeadersPrefix, ...list(value)]),
  },
  {
    name: "requestheader-client-ca-file",
    help: "CA bundle the authenticating proxy's client certificate must chain to; do not reuse the client CA.",
    defaultText: "",
    apply: (config, value) => void (config.requestHeaderClientCaFile = value),
  },
  {
    name: "requestheader-allowed-names",
    help: "Common names the proxy's certificate may have; empty allows any the CA issued.",
    defaultText: "",
    apply: (config, value) => void (config.requestHeaderAllowedNames = [...config.requestHeaderAllowedNames, ...list(value)]),
  },
  {
    name: "proxy-client-cert-file",
    help: "PEM client certificate presented to aggregated API servers (APIServices with a service), with the user in X-Remote-* headers.",
    defaultText: "",
    apply: (config, value) => void (config.proxyClientCertFile = value),
  },
  {
    name: "proxy-client-key-file",
    help: "PEM private key of --proxy-client-cert-file.",
    defaultText: "",
    apply: (config, value) => void (config.proxyClientKeyFile = value),
  },
  {
    name: "enable-bootstrap-token-auth",
    help: "Accept bootstrap tokens (Secrets bootstrap-token-<id> in the system namespace).",
    defaultText: "false",
    boolean: true,
    apply: (config, value) => void (config.enableBootstrapTokenAuth = parseBool(value, "enable-bootstrap-token-auth")),
  },
  {
    name: "service-account-key-file",
    help: "PEM file of public keys (or private keys, certificates) service-account tokens are verified with; repeatable. Default: generated into the data dir.",
    defaultText: "",
    apply: (config, value) => void (config.serviceAccountKeyFiles = [...config.serviceAccountKeyFiles, value]),
  },
  {
    name: "service-account-signing-key-file",
    help: "PEM private key service-account tokens are signed with. Default: generated into the data dir.",
    defaultText: "",
    apply: (config, value) => void (config.serviceAccountSigningKeyFile = value),
  },
  {
    name: "service-account-issuer",
    help: "Issuer (iss) of service-account tokens; repeatable: the first signs, all are accepted.",
    defaultText: "",
    apply: (config, value) => void (config.serviceAccountIssuers = [...config.serviceAccountIssuers, value]),
  },
  {
    name: "api-audiences",
    help: "Audiences of the API: tokens must be for one of them. Default: the service-account issuers.",
    defaultText: "",
    apply: (config, value) => void (config.apiAudiences = [...config.apiAudiences, ...list(value)]),
  },
  {
    name: "authentication-token-webhook-config-file",
    help: "Kubeconfig-format file of the token authentication webhook (a TokenReview is POSTed to it).",
    defaultText: "",
    apply: (config, value) => void (config.authenticationTokenWebhookConfigFile = value),
  },
  {
    name: "authentication-token-webhook-version",
    help: "TokenReview version sent to the webhook: v1 or v1beta1.",
    defaultText: "v1beta1",
    apply: (config, value) => {
      if (value !== "v1" && value !== "v1beta1")
        throw new FlagError(`invalid value "${value}" for flag --authentication-token-webhook-version: must be v1 or v1beta1`);
      config.authenticationTokenWebhookVersion = value;
    },
  },
  {
    name: "authentication-token-webhook-cache-ttl",
    help: "How long the webhook's answers are cached.",
    defaultText: "2m",
    apply: (config, value) => void (config.authenticationTokenWebhookCacheTtlMs = parseDurationFlag(value, "authentication-token-webhook-cache-ttl")),
  },
  {
    name: "enable-admission-plugins",
    help: "Admission plugins to turn on besides the defaults (comma list; they run in the server's fixed order).",
    defaultText: "",
    apply: (config, value) => void (config.admission = { ...config.admission, enable: [...config.admission.enable, ...list(value)] }),
  },
  {
    name: "disable-admission-plugins",
    help: "Admission plugins to turn off, defaults included (comma list).",
    defaultText: "",
    apply: (config, value) => void (config.admission = { ...config.admission, disable: [...config.admission.disable, ...list(value)] }),
  },
  {
    name: "admission-control-config-file",
    help: "AdmissionConfiguration file: plugins[] with a name and a path or an inline configuration.",
    defaultText: "",
    apply: (config, value) => void (config.admission = { ...config.admission, configFile: value }),
  },
  {
    name: "default-not-ready-toleration-seconds",
    help: "tolerationSeconds of the not-ready NoExecute toleration DefaultTolerationSeconds adds.",
    defaultText: "300",
    apply: (config, value) =>
      void (config.admission = { ...config.admission, notReadyTolerationSeconds: parseSeconds(value, "default-not-ready-toleration-seconds") }),
  },
  {
    name: "default-unreachable-toleration-seconds",
    help: "tolerationSeconds of the unreachable NoExecute toleration DefaultTolerationSeconds adds.",
    defaultText: "300",
    apply: (config, value) =>
      void (config.admission = { ...config.admission, unreachableTolerationSeconds: parseSeconds(value, "default-unreachable-toleration-seconds") }),
  },
  {
    name: "encryption-provider-config",
    help: "EncryptionConfiguration file: which resources are encrypted at rest, and with which providers (identity, aescbc, aesgcm, secretbox, kms v2).",
    defaultText: "",
    apply: (config, value) => void (config.encryptionProviderConfig = value),
  },
  {
    name: "encryption-provider-config-automatic-reload",
    help: "Reload --encryption-provider-config when the file changes.",
    defaultText: "false",
    boolean: true,
    apply: (config, value) => void (config.encryptionProviderConfigAutomaticReload = parseBool(value, "encryption-provider-config-automatic-reload")),
  },
  ...OPERATIONS_FLAGS,
  ...CONNECTION_FLAGS,
  {
    name: "cluster-signing-cert-file",
    help: "PEM CA certificate the built-in CSR signers issue with (default: the cluster CA of the data dir).",
    defaultText: "",
    apply: (config, value) => void (config.clusterSigning = { ...config.clusterSigning, certFile: value }),
  },
  {
    name: "cluster-signing-key-file",
    help: "PEM private key of --cluster-signing-cert-file.",
    defaultText: "",
    apply: (config, value) => void (config.clusterSigning = { ...config.clusterSigning, keyFile: value }),
  },
  ...SIGNER_FLAGS.flatMap(signerFileFlags),
  {
    name: "cluster-signing-duration",
    help: "The longest lifetime of a certificate the built-in signers issue (spec.expirationSeconds may ask for less).",
    defaultText: "8760h0m0s",
    apply: (config, value) => void (config.clusterSigning = { ...config.clusterSigning, durationMs: parseDurationFlag(value, "cluster-signing-duration") }),
  },
];

function setServiceNetwork(config: MutableConfig, flag: string, clusterIpRange: string, nodePortRange: string): void {
  try {
    config.serviceNetwork = parseServiceNetwork(clusterIpRange, nodePortRange);
  } catch (error) {
    throw new FlagError(`invalid value for flag --${flag}: ${error instanceof Error ? error.message : String(error)}`);
  }
  config.serviceClusterIpRange = clusterIpRange;
  config.serviceNodePortRange = nodePortRange;
}

function parseSeconds(value: string, flag: string): number {
  if (!/^\d+$/.test(value)) throw new FlagError(`invalid value "${value}" for flag --${flag}: must be a non-negative integer`);
  return Number(value);
}

export function defaultConfig(): Config {
  return {
    securePort: 6443,
    bindAddress: "127.0.0.1",
    dataDir: ".orch",
    tlsMinVersion: "VersionTLS12",
    tlsCipherSuites: [],
    tlsSniCertKeys: [],
    storageBackend: "sqlite",
    profile: ORCH_PROFILE,
    verbosity: 0,
    compactionIntervalMs: 5 * 60_000,
    etcdServers: [],
    etcdPrefix: "/registry",
    etcdCountMetricPollPeriodMs: 60_000,
    etcdReadycheckTimeoutMs: 2_000,
    etcdHealthcheckTimeoutMs: 2_000,
    requestTimeoutMs: 60_000,
    connectionLimits: DEFAULT_CONNECTION_LIMITS,
    shutdownDelayMs: 0,
    livezGracePeriodMs: 0,
    shutdownGraceMs: 30_000,
    anonymousAuth: true,
    authorization: DEFAULT_AUTHORIZATION,
    requestHeaderUsernameHeaders: [],
    requestHeaderGroupHeaders: [],
    requestHeaderExtraHeadersPrefix: [],
    requestHeaderAllowedNames: [],
    enableBootstrapTokenAuth: false,
    serviceAccountKeyFiles: [],
    serviceAccountIssuers: [],
    apiAudiences: [],
    authenticationTokenWebhookVersion: "v1beta1",
    authenticationTokenWebhookCacheTtlMs: 2 * 60_000,
    runtimeConfig: new Map(),
    serviceClusterIpRange: DEFAULT_SERVICE_CLUSTER_IP_RANGE,
    serviceNodePortRange: DEFAULT_SERVICE_NODE_PORT_RANGE,
    serviceNetwork: DEFAULT_SERVICE_NETWORK,
    watchCache: true,
    watchCacheSize: 20_000,
    controllers: ["*"],
    leaderElect: true,
    minRequestTimeoutSeconds: 1800,
    enablePriorityAndFairness: true,
    maxRequestsInflight: 400,
    maxMutatingRequestsInflight: 200,
    admission: { enable: [], disable: [], ...DEFAULT_ADMISSION_SETTINGS },
    encryptionProviderConfigAutomaticReload: false,
    ...operationsDefaults(),
    clusterSigning: { signers: {}, durationMs: 365 * 24 * 3600_000 },
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
  try {
    validateAuthorizationConfig(config.authorization);
  } catch (error) {
    if (error instanceof AuthorizationConfigError) throw new FlagError(error.message);
    throw error;
  }
  if (config.storageBackend === "etcd3" && config.etcdServers.length === 0)
    throw new FlagError("--etcd-servers must be specified with --storage-backend etcd3");
  if ((config.etcdCertFile === undefined) !== (config.etcdKeyFile === undefined))
    throw new FlagError("--etcd-certfile and --etcd-keyfile must be given together");
  try {
    checkAdmissionConfig(config.admission, config.profile);
  } catch (error) {
    if (error instanceof AdmissionConfigError) throw new FlagError(error.message);
    throw error;
  }
  if (config.encryptionProviderConfigAutomaticReload && config.encryptionProviderConfig === undefined)
    throw new FlagError("--encryption-provider-config-automatic-reload needs --encryption-provider-config");
  checkOperationsConfig(config);
  checkClusterSigning(config);
  if ((config.tlsCertFile === undefined) !== (config.tlsPrivateKeyFile === undefined)) {
    throw new FlagError("--tls-cert-file and --tls-private-key-file must be given together");
  }
  if ((config.requestHeaderClientCaFile === undefined) !== (config.requestHeaderUsernameHeaders.length === 0)) {
    throw new FlagError("--requestheader-client-ca-file and --requestheader-username-headers must be given together");
  }
  if ((config.proxyClientCertFile === undefined) !== (config.proxyClientKeyFile === undefined)) {
    throw new FlagError("--proxy-client-cert-file and --proxy-client-key-file must be given together");
  }
  return { kind: "config", config };
}

/** As kube-controller-manager: each pair complete, and the general pair or per-signer pairs, not both. */
function checkClusterSigning(config: Config): void {
  const signing = config.clusterSigning;
  const pairs: [string, { readonly certFile?: string; readonly keyFile?: string }][] = [
    ["cluster-signing", signing],
    ...Object.entries(signing.signers).map(([infix, files]): [string, { readonly certFile?: string; readonly keyFile?: string }] => [
      `cluster-signing-${infix}`,
      files,
    ]),
  ];
  for (const [prefix, files] of pairs) {
    if ((files.certFile === undefined) !== (files.keyFile === undefined))
      throw new FlagError(`--${prefix}-cert-file and --${prefix}-key-file must be given together`);
  }
  if (signing.certFile !== undefined && Object.keys(signing.signers).length > 0)
    throw new FlagError(
      "cannot specify default and per controller certs at the same time (--cluster-signing-cert-file and --cluster-signing-<signer>-cert-file)",
    );
}

function signerFileFlags(infix: SignerFlag): FlagSpec[] {
  const set = (config: MutableConfig, field: "certFile" | "keyFile", value: string): void => {
    const signers = config.clusterSigning.signers;
    config.clusterSigning = { ...config.clusterSigning, signers: { ...signers, [infix]: { ...signers[infix], [field]: value } } };
  };
  return [
    {
      name: `cluster-signing-${infix}-cert-file`,
      help: `PEM CA certificate the ${infix} signer issues with (instead of --cluster-signing-cert-file).`,
      defaultText: "",
      apply: (config, value) => set(config, "certFile", value),
    },
    {
      name: `cluster-signing-${infix}-key-file`,
      help: `PEM private key of --cluster-signing-${infix}-cert-file.`,
      defaultText: "",
      apply: (config, value) => set(config, "keyFile", value),
    },
  ];
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
