import type { ConnectionLimits } from "../server/http-server.js";
import type { AuditLogMode } from "../server/audit/log-backend.js";
import type { AuditWebhookMode } from "../server/audit/webhook-backend.js";
import type { Profile } from "../api/profile.js";
import type { AdmissionSettings } from "../admission/context.js";
import type { AuthorizationConfig } from "../authz/modes.js";
import type { RuntimeConfig, ServiceNetwork } from "../registry/index.js";
import type { FeatureGates } from "../util/feature-gates.js";

export type StorageBackend = "sqlite" | "memory" | "etcd3";

/** Everything a server needs to start; flags and library options both produce one. */
export interface Config {
  readonly securePort: number;
  readonly bindAddress: string;
  readonly dataDir: string;
  readonly tlsCertFile?: string;
  readonly tlsPrivateKeyFile?: string;
  readonly clientCaFile?: string;
  /** `--tls-min-version`: Go's name (VersionTLS12 default). */
  readonly tlsMinVersion: string;
  /** `--tls-cipher-suites`: Go's names; empty = the TLS library's defaults. */
  readonly tlsCipherSuites: readonly string[];
  /** `--tls-sni-cert-key` (repeatable): certificate and key files, and the SNI names they serve (empty = the certificate's own names). */
  readonly tlsSniCertKeys: readonly SniCertKey[];
  readonly tokenAuthFile?: string;
  readonly storageBackend: StorageBackend;
  readonly profile: Profile;
  readonly verbosity: number;
  /** `--etcd-compaction-interval`; 0 disables compaction. */
  readonly compactionIntervalMs: number;
  /** `--etcd-servers`: client URLs of the etcd members (`--storage-backend etcd3`). */
  readonly etcdServers: readonly string[];
  /** `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`: TLS (mutual with the last two) to etcd. */
  readonly etcdCaFile?: string;
  readonly etcdCertFile?: string;
  readonly etcdKeyFile?: string;
  /** `--etcd-prefix`: the key prefix every object is stored under (default `/registry`). */
  readonly etcdPrefix: string;
  /** `--etcd-count-metric-poll-period`: how often object counts are read for `apiserver_storage_objects`; 0 disables. */
  readonly etcdCountMetricPollPeriodMs: number;
  /** `--etcd-readycheck-timeout`: how long /readyz waits for etcd before failing. */
  readonly etcdReadycheckTimeoutMs: number;
  /** `--etcd-healthcheck-timeout`: how long /livez and /healthz wait for etcd. */
  readonly etcdHealthcheckTimeoutMs: number;
  /** `--request-timeout`: the handler timeout of requests that are not long-running (then 504), and the deadline of every storage call to etcd. */
  readonly requestTimeoutMs: number;
  /** `--max-connections`, `--read-header-timeout`, `--request-body-timeout`, `--tls-handshake-timeout`. */
  readonly connectionLimits: ConnectionLimits;
  /** `--shutdown-delay-duration`: how long /readyz fails before the listener stops. */
  readonly shutdownDelayMs: number;
  /** `--livez-grace-period`: how long after the start /livez passes post-start hooks that have not finished. */
  readonly livezGracePeriodMs: number;
  /** Grace for in-flight requests on stop. */
  readonly shutdownGraceMs: number;
  readonly anonymousAuth: boolean;
  /** `--requestheader-username-headers`: with the CA file, turns on the authenticating proxy. */
  readonly requestHeaderUsernameHeaders: readonly string[];
  readonly requestHeaderGroupHeaders: readonly string[];
  readonly requestHeaderExtraHeadersPrefix: readonly string[];
  /** `--requestheader-client-ca-file`: the CA the proxy's client certificate must chain to. */
  readonly requestHeaderClientCaFile?: string;
  readonly requestHeaderAllowedNames: readonly string[];
  /** `--proxy-client-cert-file` and `--proxy-client-key-file`: the client identity presented to aggregated API servers (with the front-proxy headers). */
  readonly proxyClientCertFile?: string;
  readonly proxyClientKeyFile?: string;
  readonly enableBootstrapTokenAuth: boolean;
  /** `--service-account-key-file` (repeatable): public keys service-account tokens are verified with. */
  readonly serviceAccountKeyFiles: readonly string[];
  /** `--service-account-signing-key-file`: the private key TokenRequest signs with. */
  readonly serviceAccountSigningKeyFile?: string;
  /** `--service-account-issuer` (repeatable): the first signs, all are accepted; empty = the profile's default. */
  readonly serviceAccountIssuers: readonly string[];
  /** `--api-audiences`: empty = the issuers. */
  readonly apiAudiences: readonly string[];
  readonly authenticationTokenWebhookConfigFile?: string;
  readonly authenticationTokenWebhookVersion: "v1" | "v1beta1";
  readonly authenticationTokenWebhookCacheTtlMs: number;
  /** `--runtime-config`: group versions turned on or off. */
  readonly runtimeConfig: RuntimeConfig;
  /** `--service-cluster-ip-range` and `--service-node-port-range` as given (texts) and parsed. */
  readonly serviceClusterIpRange: string;
  readonly serviceNodePortRange: string;
  readonly serviceNetwork: ServiceNetwork;
  /** `--authorization-*`: modes in order (default Node,RBAC), the ABAC policy file, the webhook. */
  readonly authorization: AuthorizationConfig;
  /** `--watch-cache`: serve lists and watches from the watch cache. */
  readonly watchCache: boolean;
  /** `--controllers`: kube-controller-manager's selection (`*`, `name`, `-name`). */
  readonly controllers: readonly string[];
  /** `--leader-elect`: controllers run on one server at a time when several share an etcd store. */
  readonly leaderElect: boolean;
  /** `--default-watch-cache-size`: events kept per resource for resuming watches. */
  readonly watchCacheSize: number;
  /** `--min-request-timeout` (seconds): a watch without timeoutSeconds lasts between this and twice this. */
  readonly minRequestTimeoutSeconds: number;
  /** `--encryption-provider-config`: the EncryptionConfiguration file; unset = everything stored as plain text. */
  readonly encryptionProviderConfig?: string;
  /** `--encryption-provider-config-automatic-reload`: poll the file and apply a valid change without a restart. */
  readonly encryptionProviderConfigAutomaticReload: boolean;
  /** `--enable-priority-and-fairness`: API Priority and Fairness (on), or none (off). */
  readonly enablePriorityAndFairness: boolean;
  /** `--max-requests-inflight` + `--max-mutating-requests-inflight`: the seats API Priority and Fairness shares out among priority levels. */
  readonly maxRequestsInflight: number;
  readonly maxMutatingRequestsInflight: number;
  /** `--enable-admission-plugins`, `--disable-admission-plugins`, `--admission-control-config-file`, and the plugins' tuning flags. */
  readonly admission: AdmissionConfig;
  /** `--audit-*`: the policy and the log and webhook backends. */
  readonly audit: AuditConfig;
  /** `--feature-gates`. */
  readonly featureGates: FeatureGates;
  /** `--tracing-config-file`: a TracingConfiguration (endpoint, samplingRatePerMillion); needs APIServerTracing. */
  readonly tracingConfigFile?: string;
  /** `--goaway-chance`: the probability (0–0.02) an HTTP/2 request is answered with GOAWAY so clients rebalance. */
  readonly goawayChance: number;
  /** `--show-hidden-metrics-for-version`: the previous minor version, whose still-visible deprecated metrics are shown again. */
  readonly showHiddenMetricsForVersion?: string;
  /** `--cluster-signing-*`: what the CSR signing controller signs with, and for how long. */
  readonly clusterSigning: ClusterSigningConfig;
}

/** `--audit-<backend>-truncate-*`: kube's truncating backend in front of the log or the webhook. */
export interface AuditTruncateConfig {
  readonly enabled: boolean;
  readonly maxBatchBytes: number;
  readonly maxEventBytes: number;
}

export interface AuditConfig {
  readonly policyFile?: string;
  /** `-` is standard output. */
  readonly logPath?: string;
  readonly logMaxAgeDays: number;
  readonly logMaxBackups: number;
  /** Megabytes; 0 = the default of 100. */
  readonly logMaxSizeMb: number;
  /** `--audit-log-format`: json (kube's Event per line) or legacy (kube's one-line text). */
  readonly logFormat: "json" | "legacy";
  /** `--audit-log-compress`: rotated files are gzipped (`<backup>.gz`). */
  readonly logCompress: boolean;
  readonly logTruncate: AuditTruncateConfig;
  readonly webhookTruncate: AuditTruncateConfig;
  /** `--audit-log-version`, `--audit-webhook-version` as given: only the profile's `audit.<domain>/v1` is served. */
  readonly logVersion?: string;
  readonly webhookVersion?: string;
  /** `--audit-log-mode`: blocking (default), blocking-strict or batch. */
  readonly logMode: AuditLogMode;
  /** `--audit-log-batch-*` (batch mode). */
  readonly logBatchBufferSize: number;
  readonly logBatchMaxSize: number;
  readonly logBatchMaxWaitMs: number;
  readonly logBatchThrottleEnable: boolean;
  readonly logBatchThrottleQps: number;
  readonly logBatchThrottleBurst: number;
  readonly webhookConfigFile?: string;
  /** `--audit-webhook-mode`: batch (default), blocking or blocking-strict. */
  readonly webhookMode: AuditWebhookMode;
  readonly webhookBatchBufferSize: number;
  readonly webhookBatchMaxSize: number;
  readonly webhookBatchMaxWaitMs: number;
  /** `--audit-webhook-batch-throttle-enable` (kube's default true); off, the qps and burst are ignored. */
  readonly webhookBatchThrottleEnable: boolean;
  readonly webhookBatchThrottleQps: number;
  readonly webhookBatchThrottleBurst: number;
  readonly webhookInitialBackoffMs: number;
}

export interface SniCertKey {
  readonly certFile: string;
  readonly keyFile: string;
  readonly names: readonly string[];
}

/** The per-signer flag infixes, kube-controller-manager's spelling (`--cluster-signing-<infix>-cert-file`). */
export const SIGNER_FLAGS = ["kube-apiserver-client", "kubelet-client", "kubelet-serving", "legacy-unknown"] as const;
export type SignerFlag = (typeof SIGNER_FLAGS)[number];

export interface SigningFiles {
  readonly certFile?: string;
  readonly keyFile?: string;
}

export interface ClusterSigningConfig extends SigningFiles {
  /** `--cluster-signing-<signer>-cert-file` / `-key-file`: a CA for one signer (not together with the general pair). */
  readonly signers: Readonly<Partial<Record<SignerFlag, SigningFiles>>>;
  /** `--cluster-signing-duration`: the longest lifetime of an issued certificate (default 1 year). */
  readonly durationMs: number;
}

export interface AdmissionConfig extends AdmissionSettings {
  readonly enable: readonly string[];
  readonly disable: readonly string[];
  readonly configFile?: string;
}
