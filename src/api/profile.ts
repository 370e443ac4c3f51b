/**
 * The product-name profile: the one place that spells every product-specific name.
 * `orch` is the spec's spelling; `kubernetes` is the real Kubernetes spelling, for stock
 * clients that hard-code names. The spec's `orch.io` maps to either `k8s.io` (API groups,
 * meta group) or `kubernetes.io` (labels, annotations, taints, secret types, signers),
 * so the profile keeps the two domains apart.
 */
export interface Profile {
  readonly name: "orch" | "kubernetes";
  /** The product as messages name it (`unused by Kubernetes`): `orch` / `Kubernetes`. */
  readonly productName: string;
  /**
   * Where messages send readers for more (a CronJob's time zone): kube's documentation in both
   * profiles, as orch has none of its own and serves the behaviour those pages describe.
   */
  readonly docsUrl: string;
  /** Suffix of API group names: `orch.io` / `k8s.io` (e.g. `rbac.authorization.<apiDomain>`). */
  readonly apiDomain: string;
  /** Domain of labels, annotations, taints, secret types, signers: `orch.io` / `kubernetes.io`. */
  readonly keyDomain: string;
  readonly systemNamespace: string;
  readonly publicNamespace: string;
  readonly nodeLeaseNamespace: string;
  readonly protobufMediaType: string;
  /**
   * Other products' protobuf media types that stock clients send and ask for (kubectl ≥ 1.32 posts
   * built-in kinds as `application/vnd.kubernetes.protobuf` whatever the server). They are read
   * as this profile's, and a response asked for in one is labelled with it.
   */
  readonly clientProtobufMediaTypes: readonly string[];
  readonly rootCAConfigMap: string;
  /** The Lease (in the system namespace) the servers' controller managers elect a leader with. */
  readonly controllerManagerLease: string;
  readonly jwsConfigMapKeyPrefix: string;
  readonly execInfoEnv: string;
  /** Label set on every namespace to its name. */
  readonly namespaceNameLabel: string;
  readonly serviceAccountTokenSecretType: string;
  readonly bootstrapTokenSecretType: string;
  /** `iss` of bound service-account tokens when `--service-account-issuer` is not given. */
  readonly defaultServiceAccountIssuer: string;
  /** `iss` of legacy (Secret-based) service-account tokens. */
  readonly legacyServiceAccountIssuer: string;
  /**
   * API domains whose group names stock clients hard-code in request bodies sent to core paths
   * (kubectl's typed client posts `authentication.k8s.io/v1` TokenRequests to
   * `serviceaccounts/{name}/token`). Such bodies are read as this profile's group and answered
   * in the spelling the client sent.
   */
  readonly clientApiDomains: readonly string[];
  /** The finalizer the namespace controller owns. */
  readonly namespaceFinalizer: string;
  /**
   * Prefixes of OpenAPI vendor extensions, first written first. kubectl reads
   * `x-kubernetes-group-version-kind` by that exact name, so the orch profile writes both.
   */
  readonly openApiExtensionPrefixes: readonly string[];
  /**
   * kubectl's client-side apply annotation. kubectl writes it under this exact name whatever the
   * server, so both profiles spell it kube's way; server-side apply keeps it current.
   */
  readonly lastAppliedConfigAnnotation: string;
  /** The manager recorded in managedFields for the server's own writes (built-in namespaces, controllers). */
  readonly serverFieldManager: string;
  /** The server's own Service (and its Endpoints and EndpointSlice) in `default`. */
  readonly serverServiceName: string;
  /** `/version`'s gitVersion: the Kubernetes release whose API this serves, plus our build tag. */
  readonly gitVersion: string;
  /** Prefix of the projected service-account token volume the ServiceAccount plugin adds (`orch-api-access-`). */
  readonly serviceAccountVolumePrefix: string;
  /** The built-in signer of API client certificates (the spec's `orch.io/apiserver-client`). */
  readonly apiServerClientSigner: string;
  /** Prefix of the priority-and-fairness response headers (`X-Orch-PF-` → `X-Orch-PF-FlowSchema-UID`). */
  readonly flowControlHeaderPrefix: string;
  /** The built-in signer of node client certificates (`orch.io/apiserver-client-node`), which the approver may auto-approve. */
  readonly nodeClientSigner: string;
  /** The built-in signer of node serving certificates (`orch.io/node-serving`). */
  readonly nodeServingSigner: string;
  /** The legacy signer (`orch.io/legacy-unknown`), refused by `certificates.<apiDomain>/v1`. */
  readonly legacyUnknownSigner: string;
  /** The `cluster-info` ConfigMap key holding the kubeconfig the bootstrap signer signs (`orchconfig`). */
  readonly clusterInfoConfigKey: string;
  /**
   * The label the server puts on the APIServices it registers itself (`onstart` for built-in
   * group versions, `true` for custom resources'): kube's `kube-aggregator.kubernetes.io/automanaged`.
   */
  readonly apiServiceAutomanagedLabel: string;
  /** The user the availability check calls aggregated servers as (with group `system:masters`): kube's `system:kube-aggregator`. */
  readonly aggregatorUser: string;
}

export const ORCH_PROFILE: Profile = {
  name: "orch",
  productName: "orch",
  docsUrl: "https://kubernetes.io/docs",
  apiDomain: "orch.io",
  keyDomain: "orch.io",
  systemNamespace: "orch-system",
  publicNamespace: "orch-public",
  nodeLeaseNamespace: "orch-node-lease",
  protobufMediaType: "application/vnd.orch.protobuf",
  clientProtobufMediaTypes: ["application/vnd.kubernetes.protobuf"],
  rootCAConfigMap: "orch-root-ca.crt",
  controllerManagerLease: "orch-controller-manager",
  jwsConfigMapKeyPrefix: "jws-orchconfig-",
  execInfoEnv: "ORCH_EXEC_INFO",
  namespaceNameLabel: "orch.io/metadata.name",
  serviceAccountTokenSecretType: "orch.io/service-account-token",
  bootstrapTokenSecretType: "bootstrap.orch.io/token",
  defaultServiceAccountIssuer: "https://orch.default.svc.cluster.local",
  legacyServiceAccountIssuer: "orch/serviceaccount",
  clientApiDomains: ["k8s.io"],
  namespaceFinalizer: "orch",
  openApiExtensionPrefixes: ["x-kubernetes-", "x-orch-"],
  lastAppliedConfigAnnotation: "kubectl.kubernetes.io/last-applied-configuration",
  serverFieldManager: "orch-apiserver",
  serverServiceName: "orch",
  gitVersion: "v1.30.0+orch",
  serviceAccountVolumePrefix: "orch-api-access-",
  apiServerClientSigner: "orch.io/apiserver-client",
  nodeClientSigner: "orch.io/apiserver-client-node",
  nodeServingSigner: "orch.io/node-serving",
  legacyUnknownSigner: "orch.io/legacy-unknown",
  clusterInfoConfigKey: "orchconfig",
  apiServiceAutomanagedLabel: "aggregator.orch.io/automanaged",
  aggregatorUser: "system:orch-aggregator",
  flowControlHeaderPrefix: "X-Orch-PF-",
};

export const KUBERNETES_PROFILE: Profile = {
  name: "kubernetes",
  productName: "Kubernetes",
  docsUrl: "https://kubernetes.io/docs",
  apiDomain: "k8s.io",
  keyDomain: "kubernetes.io",
  systemNamespace: "kube-system",
  publicNamespace: "kube-public",
  nodeLeaseNamespace: "kube-node-lease",
  protobufMediaType: "application/vnd.kubernetes.protobuf",
  clientProtobufMediaTypes: [],
  rootCAConfigMap: "kube-root-ca.crt",
  controllerManagerLease: "kube-controller-manager",
  jwsConfigMapKeyPrefix: "jws-kubeconfig-",
  execInfoEnv: "KUBERNETES_EXEC_INFO",
  namespaceNameLabel: "kubernetes.io/metadata.name",
  serviceAccountTokenSecretType: "kubernetes.io/service-account-token",
  bootstrapTokenSecretType: "bootstrap.kubernetes.io/token",
  defaultServiceAccountIssuer: "https://kubernetes.default.svc.cluster.local",
  legacyServiceAccountIssuer: "kubernetes/serviceaccount",
  clientApiDomains: [],
  namespaceFinalizer: "kubernetes",
  openApiExtensionPrefixes: ["x-kubernetes-"],
  lastAppliedConfigAnnotation: "kubectl.kubernetes.io/last-applied-configuration",
  serverFieldManager: "kube-apiserver",
  serverServiceName: "kubernetes",
  gitVersion: "v1.30.0",
  serviceAccountVolumePrefix: "kube-api-access-",
  apiServerClientSigner: "kubernetes.io/kube-apiserver-client",
  flowControlHeaderPrefix: "X-Kubernetes-PF-",
  nodeClientSigner: "kubernetes.io/kube-apiserver-client-kubelet",
  nodeServingSigner: "kubernetes.io/kubelet-serving",
  legacyUnknownSigner: "kubernetes.io/legacy-unknown",
  clusterInfoConfigKey: "kubeconfig",
  apiServiceAutomanagedLabel: "kube-aggregator.kubernetes.io/automanaged",
  aggregatorUser: "system:kube-aggregator",
};

/**
 * kube's native resource names (IsNativeResource): no domain, or one under a key domain
 * (`kubernetes.io/…`). Either profile's domain counts, as validation does not know the profile
 * and manifests written for kube keep kube's names under orch too.
 */
export function isNativeResourceName(name: string): boolean {
  return !name.includes("/") || name.includes(`${ORCH_PROFILE.keyDomain}/`) || name.includes(`${KUBERNETES_PROFILE.keyDomain}/`);
}

export function profileByName(name: string): Profile | undefined {
  if (name === ORCH_PROFILE.name) return ORCH_PROFILE;
  if (name === KUBERNETES_PROFILE.name) return KUBERNETES_PROFILE;
  return undefined;
}

/** `meta.<apiDomain>`: the group of Table, PartialObjectMetadata, etc. */
export function metaGroup(profile: Profile): string {
  return `meta.${profile.apiDomain}`;
}

/** A group named relative to the API domain: `apiGroup(p, "rbac.authorization")`. */
export function apiGroup(profile: Profile, prefix: string): string {
  return `${prefix}.${profile.apiDomain}`;
}

/**
 * A group spelled in another profile's API domain (`rbac.authorization.k8s.io` under the orch
 * profile): the profile it belongs to and this profile's spelling of it; undefined otherwise.
 */
export function foreignGroup(profile: Profile, group: string): { readonly owner: Profile; readonly ours: string } | undefined {
  for (const owner of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
    if (owner.name === profile.name || !group.endsWith(`.${owner.apiDomain}`)) continue;
    return { owner, ours: `${group.slice(0, -owner.apiDomain.length)}${profile.apiDomain}` };
  }
  return undefined;
}

/** The 404 message for a group spelled the other profile's way: the group to use instead, and the flag that serves that spelling. */
export function foreignGroupMessage(profile: Profile, group: string, ours: string, owner: Profile): string {
  return (
    `the server could not find the requested resource: this server runs --compat ${profile.name}, which serves ${group} as ${ours}; ` +
    `use ${ours}, or start the server with --compat ${owner.name} for stock ${owner.name === KUBERNETES_PROFILE.name ? "Kubernetes" : owner.name} manifests and clients`
  );
}

/**
 * For a configuration file whose `apiVersion` spells `expectedGroup` the other profile's way
 * (`audit.k8s.io/v1` where this server reads `audit.orch.io/v1`): a sentence to append to the
 * refusal naming the flag that reads the file as it is; "" for any other apiVersion.
 */
export function foreignConfigHint(expectedGroup: string, apiVersion: unknown): string {
  if (typeof apiVersion !== "string") return "";
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  const ours = [ORCH_PROFILE, KUBERNETES_PROFILE].find((profile) => expectedGroup.endsWith(`.${profile.apiDomain}`));
  if (ours === undefined) return "";
  const stem = expectedGroup.slice(0, -ours.apiDomain.length);
  const owner = [ORCH_PROFILE, KUBERNETES_PROFILE].find((profile) => profile.name !== ours.name && group === `${stem}${profile.apiDomain}`);
  if (owner === undefined) return "";
  const stock = owner.name === KUBERNETES_PROFILE.name ? "a stock Kubernetes file" : `a file written for --compat ${owner.name}`;
  return `; this server runs --compat ${ours.name}, which spells ${group} as ${expectedGroup}: change the apiVersion, or start the server with --compat ${owner.name} to use ${stock} as it is`;
}

/** The names encryption at rest spells. */
export interface EncryptionNames {
  /** `apiserver.config.<apiDomain>`: the EncryptionConfiguration group. */
  readonly configGroup: string;
  /** The marker every encrypted stored value starts with: `orch:enc:` / `k8s:enc:`. */
  readonly valuePrefix: string;
}

export function encryptionNames(profile: Profile): EncryptionNames {
  return { configGroup: `apiserver.config.${profile.apiDomain}`, valuePrefix: `${profile.name === "orch" ? "orch" : "k8s"}:enc:` };
}

/** The names admission spells: configuration groups, labels, annotations, taints, paths. */
export interface AdmissionNames {
  /** `apiserver.config.<apiDomain>`: the AdmissionConfiguration group. */
  readonly configGroup: string;
  /** `eventratelimit.admission.<apiDomain>`: EventRateLimit's Configuration group. */
  readonly eventRateLimitGroup: string;
  /** `pod-security.admission.config.<apiDomain>`: PodSecurity's configuration group. */
  readonly podSecurityConfigGroup: string;
  /** `pod-security.<keyDomain>/`: the namespace label prefix (`enforce`, `warn`, `audit` and their `-version`). */
  readonly podSecurityLabelPrefix: string;
  /** `.image-policy.<apiDomain>/`: the infix of pod annotations forwarded to the image policy backend. */
  readonly imagePolicyAnnotationInfix: string;
  /** `scheduler.alpha.<keyDomain>/node-selector`: PodNodeSelector's namespace annotation. */
  readonly nodeSelectorAnnotation: string;
  /** `node-restriction.<keyDomain>/`: labels a node may not set on itself. */
  readonly nodeRestrictionLabelPrefix: string;
  /** `node.<keyDomain>/`: the prefix of the node condition taints (`not-ready`, `unreachable`). */
  readonly nodeTaintPrefix: string;
  /** Where the service-account token volume is mounted. */
  readonly serviceAccountMountPath: string;
  /** The domain of kubelet-owned node labels (`<keyDomain>/hostname`, `node.<keyDomain>/…`). */
  readonly keyDomain: string;
}

export function admissionNames(profile: Profile): AdmissionNames {
  return {
    configGroup: `apiserver.config.${profile.apiDomain}`,
    eventRateLimitGroup: `eventratelimit.admission.${profile.apiDomain}`,
    podSecurityConfigGroup: `pod-security.admission.config.${profile.apiDomain}`,
    podSecurityLabelPrefix: `pod-security.${profile.keyDomain}/`,
    imagePolicyAnnotationInfix: `.image-policy.${profile.apiDomain}/`,
    nodeSelectorAnnotation: `scheduler.alpha.${profile.keyDomain}/node-selector`,
    nodeRestrictionLabelPrefix: `node-restriction.${profile.keyDomain}/`,
    nodeTaintPrefix: `node.${profile.keyDomain}/`,
    serviceAccountMountPath: `/var/run/secrets/${profile.keyDomain}/serviceaccount`,
    keyDomain: profile.keyDomain,
  };
}

/**
 * The built-in Secret types as clients write them (`kubectl create secret tls|docker-registry`, Helm
 * charts, controllers): spelled the Kubernetes way whatever the server's profile, so both profiles
 * validate exactly these names.
 */
export const CLIENT_SECRET_TYPES = {
  dockercfg: "kubernetes.io/dockercfg",
  dockerConfigJson: "kubernetes.io/dockerconfigjson",
  basicAuth: "kubernetes.io/basic-auth",
  sshAuth: "kubernetes.io/ssh-auth",
  tls: "kubernetes.io/tls",
} as const;
