import type { Profile } from "../api/profile.js";
import type { AdmissionSettings } from "../admission/context.js";
import type { AuthorizationConfig } from "../authz/modes.js";
import type { RuntimeConfig, ServiceNetwork } from "../registry/index.js";

export type StorageBackend = "sqlite" | "memory" | "etcd3";

/** Everything a server needs to start; flags and library options both produce one. */
export interface Config {
  readonly securePort: number;
  readonly bindAddress: string;
  readonly dataDir: string;
  readonly tlsCertFile?: string;
  readonly tlsPrivateKeyFile?: string;
  readonly clientCaFile?: string;
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
  /** `--request-timeout`: the deadline of every storage call to etcd (a request never waits on etcd longer). */
  readonly requestTimeoutMs: number;
  /** `--shutdown-delay-duration`: how long /readyz fails before the listener stops. */
  readonly shutdownDelayMs: number;
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
  /** `--enable-admission-plugins`, `--disable-admission-plugins`, `--admission-control-config-file`, and the plugins' tuning flags. */
  readonly admission: AdmissionConfig;
}

export interface AdmissionConfig extends AdmissionSettings {
  readonly enable: readonly string[];
  readonly disable: readonly string[];
  readonly configFile?: string;
}
