import type { ApiObject } from "../../api/object.js";
import { apiGroup, type Profile } from "../../api/profile.js";
import type { PolicyRule, Subject } from "./policy.js";

const READ = ["get", "list", "watch"];
const WRITE = ["create", "update", "patch", "delete", "deletecollection"];
const READ_WRITE = [...READ, ...WRITE];

export const MASTERS_GROUP = "system:masters";
export const AUTHENTICATED_GROUP = "system:authenticated";
export const UNAUTHENTICATED_GROUP = "system:unauthenticated";
export const NODES_GROUP = "system:nodes";
export const SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts";

/** The names this profile gives the RBAC group, its labels and annotations. */
export interface RbacNames {
  readonly group: string;
  /** `rbac.authorization.<keyDomain>/autoupdate`: `"false"` stops start-up reconciliation of an object. */
  readonly autoupdateAnnotation: string;
  /** `<keyDomain>/bootstrapping`, value `rbac-defaults`. */
  readonly bootstrappingLabel: string;
  /** `rbac.authorization.<apiDomain>/aggregate-to-<role>`. */
  aggregateLabel(role: "admin" | "edit" | "view"): string;
}

export function rbacNames(profile: Profile): RbacNames {
  const group = apiGroup(profile, "rbac.authorization");
  return {
    group,
    autoupdateAnnotation: `rbac.authorization.${profile.keyDomain}/autoupdate`,
    bootstrappingLabel: `${profile.keyDomain}/bootstrapping`,
    aggregateLabel: (role) => `${group}/aggregate-to-${role}`,
  };
}

function rule(verbs: readonly string[], groups: readonly string[], resources: readonly string[], resourceNames?: readonly string[]): PolicyRule {
  return {
    verbs: [...verbs],
    apiGroups: [...groups],
    resources: [...resources],
    ...(resourceNames === undefined ? {} : { resourceNames: [...resourceNames] }),
  };
}

function urls(verbs: readonly string[], paths: readonly string[]): PolicyRule {
  return { verbs: [...verbs], nonResourceURLs: [...paths] };
}

/** The default roles and bindings, created and reconciled at every start (kube's bootstrap policy). */
export interface BootstrapPolicy {
  readonly clusterRoles: readonly ApiObject[];
  readonly clusterRoleBindings: readonly ApiObject[];
  /** Roles of the system and public namespaces (`metadata.namespace` set). */
  readonly roles: readonly ApiObject[];
  /** RoleBindings of the system and public namespaces (`metadata.namespace` set). */
  readonly roleBindings: readonly ApiObject[];
}

/**
 * kube's default cluster roles and bindings, spelled for the profile: `cluster-admin` (bound to
 * `system:masters`), the aggregated `admin`/`edit`/`view` with the `system:aggregate-to-*` roles
 * that feed them, `system:discovery`, `system:basic-user`, `system:public-info-viewer`,
 * `system:monitoring`, `system:auth-delegator`, `system:node`, `system:node-bootstrapper`,
 * `system:kube-controller-manager`, `system:kube-scheduler`, `system:volume-scheduler`,
 * `system:node-proxier`, `system:kube-dns`, `system:heapster`, `system:kube-aggregator`,
 * `system:kubelet-api-admin`, `system:node-problem-detector`,
 * `system:persistent-volume-provisioner`, `system:service-account-issuer-discovery`, and the
 * roles of the built-in controllers; the system and public namespaces' Roles and RoleBindings.
 */
export function bootstrapPolicy(profile: Profile): BootstrapPolicy {
  const names = rbacNames(profile);
  const core = "";
  const apps = "apps";
  const autoscaling = "autoscaling";
  const batch = "batch";
  const extensions = "extensions";
  const policy = "policy";
  const networking = apiGroup(profile, "networking");
  const coordination = apiGroup(profile, "coordination");
  const discovery = apiGroup(profile, "discovery");
  const authorization = apiGroup(profile, "authorization");
  const authentication = apiGroup(profile, "authentication");
  const certificates = apiGroup(profile, "certificates");
  const storage = apiGroup(profile, "storage");
  const node = apiGroup(profile, "node");
  const events = apiGroup(profile, "events");
  const rbac = names.group;
  const eventsRule = rule(["create", "update", "patch"], [core, events], ["events"]);

  const meta = (name: string, labels: Record<string, string> = {}): ApiObject["metadata"] => ({
    name,
    labels: { [names.bootstrappingLabel]: "rbac-defaults", ...labels },
    annotations: { [names.autoupdateAnnotation]: "true" },
  });
  const clusterRole = (name: string, rules: readonly PolicyRule[], labels?: Record<string, string>): ApiObject => ({
    apiVersion: `${rbac}/v1`,
    kind: "ClusterRole",
    metadata: meta(name, labels),
    rules: rules.map((entry) => ({ ...entry })),
  });
  const aggregated = (name: string, to: "admin" | "edit" | "view", labels?: Record<string, string>): ApiObject => ({
    apiVersion: `${rbac}/v1`,
    kind: "ClusterRole",
    metadata: meta(name, labels),
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [names.aggregateLabel(to)]: "true" } }] },
    rules: [],
  });
  const group = (name: string): Subject => ({ kind: "Group", apiGroup: rbac, name });
  const user = (name: string): Subject => ({ kind: "User", apiGroup: rbac, name });
  const serviceAccount = (name: string): Subject => ({ kind: "ServiceAccount", name, namespace: profile.systemNamespace });
  const binding = (name: string, role: string, subjects: readonly Subject[]): ApiObject => ({
    apiVersion: `${rbac}/v1`,
    kind: "ClusterRoleBinding",
    metadata: meta(name),
    roleRef: { apiGroup: rbac, kind: "ClusterRole", name: role },
    subjects: subjects.map((subject) => ({ ...subject })),
  });

  const clusterRoles: ApiObject[] = [
    clusterRole("cluster-admin", [rule(["*"], ["*"], ["*"]), urls(["*"], ["*"])]),
    clusterRole("system:discovery", [
      urls(["get"], ["/livez", "/readyz", "/healthz", "/version", "/version/", "/openapi", "/openapi/*", "/api", "/api/*", "/apis", "/apis/*"]),
    ]),
    clusterRole("system:monitoring", [urls(["get"], ["/metrics", "/metrics/slis", "/livez", "/readyz", "/healthz", "/livez/*", "/readyz/*", "/healthz/*"])]),
    clusterRole("system:basic-user", [
      rule(["create"], [authorization], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
      rule(["create"], [authentication], ["selfsubjectreviews"]),
    ]),
    clusterRole("system:public-info-viewer", [urls(["get"], ["/livez", "/readyz", "/healthz", "/version", "/version/"])]),
    aggregated("admin", "admin"),
    aggregated("edit", "edit", { [names.aggregateLabel("admin")]: "true" }),
    aggregated("view", "view", { [names.aggregateLabel("edit")]: "true" }),
    clusterRole(
      "system:aggregate-to-admin",
      [rule(["create"], [authorization], ["localsubjectaccessreviews"]), rule(READ_WRITE, [rbac], ["roles", "rolebindings"])],
      { [names.aggregateLabel("admin")]: "true" },
    ),
    clusterRole(
      "system:aggregate-to-edit",
      [
        rule(WRITE, [core], ["pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"]),
        rule(["create"], [core], ["pods/eviction"]),
        rule(
          WRITE,
          [core],
          [
            "replicationcontrollers",
            "replicationcontrollers/scale",
            "serviceaccounts",
            "services",
            "services/proxy",
            "persistentvolumeclaims",
            "configmaps",
            "secrets",
            "events",
          ],
        ),
        rule(["create"], [core], ["serviceaccounts/token"]),
        rule(READ, [core], ["pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"]),
        rule(["impersonate"], [core], ["serviceaccounts"]),
        rule(
          WRITE,
          [apps],
          ["statefulsets", "statefulsets/scale", "daemonsets", "deployments", "deployments/scale", "deployments/rollback", "replicasets", "replicasets/scale"],
        ),
        rule(WRITE, [autoscaling], ["horizontalpodautoscalers"]),
        rule(WRITE, [batch], ["jobs", "cronjobs"]),
        rule(
          WRITE,
          [extensions],
          [
            "daemonsets",
            "deployments",
            "deployments/scale",
            "deployments/rollback",
            "ingresses",
            "replicasets",
            "replicasets/scale",
            "replicationcontrollers/scale",
            "networkpolicies",
          ],
        ),
        rule(WRITE, [policy], ["poddisruptionbudgets"]),
        rule(WRITE, [networking], ["networkpolicies", "ingresses"]),
        rule(READ_WRITE, [coordination], ["leases"]),
      ],
      { [names.aggregateLabel("edit")]: "true" },
    ),
    clusterRole(
      "system:aggregate-to-view",
      [
        rule(
          READ,
          [core],
          [
            "pods",
            "replicationcontrollers",
            "replicationcontrollers/scale",
            "serviceaccounts",
            "services",
            "services/status",
            "endpoints",
            "persistentvolumeclaims",
            "persistentvolumeclaims/status",
            "configmaps",
          ],
        ),
        rule(
          READ,
          [core],
          [
            "limitranges",
            "resourcequotas",
            "bindings",
            "events",
            "pods/status",
            "resourcequotas/status",
            "namespaces/status",
            "replicationcontrollers/status",
            "pods/log",
          ],
        ),
        rule(READ, [core], ["namespaces"]),
        rule(READ, [discovery], ["endpointslices"]),
        rule(
          READ,
          [apps],
          [
            "controllerrevisions",
            "statefulsets",
            "statefulsets/status",
            "statefulsets/scale",
            "daemonsets",
            "daemonsets/status",
            "deployments",
            "deployments/status",
            "deployments/scale",
            "replicasets",
            "replicasets/status",
            "replicasets/scale",
          ],
        ),
        rule(READ, [autoscaling], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
        rule(READ, [batch], ["jobs", "cronjobs", "cronjobs/status", "jobs/status"]),
        rule(
          READ,
          [extensions],
          [
            "daemonsets",
            "daemonsets/status",
            "deployments",
            "deployments/scale",
            "deployments/status",
            "ingresses",
            "ingresses/status",
            "replicasets",
            "replicasets/scale",
            "replicasets/status",
            "replicationcontrollers/scale",
            "networkpolicies",
          ],
        ),
        rule(READ, [policy], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
        rule(READ, [networking], ["networkpolicies", "ingresses", "ingresses/status"]),
      ],
      { [names.aggregateLabel("view")]: "true" },
    ),
    clusterRole("system:auth-delegator", [rule(["create"], [authentication], ["tokenreviews"]), rule(["create"], [authorization], ["subjectaccessreviews"])]),
    clusterRole("system:node", [
      rule(["create"], [authentication], ["tokenreviews"]),
      rule(["create"], [authorization], ["subjectaccessreviews", "localsubjectaccessreviews"]),
      rule(READ, [core], ["services"]),
      rule(["create", "get", "list", "watch"], [core], ["nodes"]),
      rule(["update", "patch"], [core], ["nodes/status"]),
      rule(["update", "patch"], [core], ["nodes"]),
      rule(["create", "update", "patch"], [core], ["events"]),
      rule(READ, [core], ["pods"]),
      rule(["create", "delete"], [core], ["pods"]),
      rule(["update", "patch"], [core], ["pods/status"]),
      rule(["create"], [core], ["pods/eviction"]),
      rule(READ, [core], ["secrets", "configmaps"]),
      rule(["get"], [core], ["persistentvolumeclaims", "persistentvolumes"]),
      rule(["get"], [core], ["endpoints"]),
      rule(["create", "get", "list", "watch"], [certificates], ["certificatesigningrequests"]),
      rule(["get", "create", "update", "patch", "delete"], [coordination], ["leases"]),
      rule(["get"], [storage], ["volumeattachments"]),
      rule(["create"], [core], ["serviceaccounts/token"]),
      rule(["get", "update", "patch"], [core], ["persistentvolumeclaims/status"]),
      rule(["get", "create", "update", "patch", "delete"], [storage], ["csinodes"]),
      rule(READ, [storage], ["csidrivers"]),
      rule(READ, [node], ["runtimeclasses"]),
    ]),
    clusterRole("system:node-bootstrapper", [rule(["create", "get", "list", "watch"], [certificates], ["certificatesigningrequests"])]),
    // What the csrapproving controller's SubjectAccessReviews ask, and approval per built-in signer.
    clusterRole(`system:${certificates}:certificatesigningrequests:nodeclient`, [rule(["create"], [certificates], ["certificatesigningrequests/nodeclient"])]),
    clusterRole(`system:${certificates}:certificatesigningrequests:selfnodeclient`, [
      rule(["create"], [certificates], ["certificatesigningrequests/selfnodeclient"]),
    ]),
    clusterRole(`system:${certificates}:kube-apiserver-client-approver`, [rule(["approve"], [certificates], ["signers"], [profile.apiServerClientSigner])]),
    clusterRole(`system:${certificates}:kube-apiserver-client-kubelet-approver`, [rule(["approve"], [certificates], ["signers"], [profile.nodeClientSigner])]),
    clusterRole(`system:${certificates}:kubelet-serving-approver`, [rule(["approve"], [certificates], ["signers"], [profile.nodeServingSigner])]),
    clusterRole(`system:${certificates}:legacy-unknown-approver`, [rule(["approve"], [certificates], ["signers"], [profile.legacyUnknownSigner])]),
    clusterRole("system:kube-controller-manager", [
      eventsRule,
      rule(["create"], [coordination], ["leases"]),
      rule(["get", "update"], [coordination], ["leases"], ["kube-controller-manager"]),
      rule(["create"], [core], ["secrets", "serviceaccounts"]),
      rule(["delete"], [core], ["secrets"]),
      rule(["get"], [core], ["configmaps", "namespaces", "secrets", "serviceaccounts"]),
      rule(["update"], [core], ["secrets", "serviceaccounts"]),
      rule(["create"], [authentication], ["tokenreviews"]),
      rule(["create"], [authorization], ["subjectaccessreviews"]),
      rule(["list", "watch"], ["*"], ["*"]),
      rule(["create"], [core], ["serviceaccounts/token"]),
    ]),
    clusterRole("system:kube-scheduler", [
      eventsRule,
      rule(["create"], [coordination], ["leases"]),
      rule(["get", "update"], [coordination], ["leases"], ["kube-scheduler"]),
      rule(READ, [core], ["nodes"]),
      rule(["get", "list", "watch", "delete"], [core], ["pods"]),
      rule(["create"], [core], ["pods/binding", "bindings"]),
      rule(["patch", "update"], [core], ["pods/status"]),
      rule(READ, [core], ["services", "replicationcontrollers"]),
      rule(READ, [apps, extensions], ["replicasets"]),
      rule(READ, [apps], ["statefulsets"]),
      rule(READ, [policy], ["poddisruptionbudgets"]),
      rule(READ, [core], ["persistentvolumeclaims", "persistentvolumes"]),
      rule(["create"], [authentication], ["tokenreviews"]),
      rule(["create"], [authorization], ["subjectaccessreviews"]),
      rule(READ, [storage], ["csinodes"]),
      rule(READ, [core], ["namespaces"]),
      rule(READ, [storage], ["csidrivers"]),
      rule(READ, [storage], ["csistoragecapacities"]),
    ]),
    // Roles kube keeps for other components (kube-proxy, DNS, add-ons), bound where kube binds them.
    clusterRole("system:heapster", [rule(READ, [core], ["events", "namespaces", "nodes", "pods"]), rule(READ, [extensions], ["deployments"])]),
    clusterRole("system:kube-aggregator", [rule(READ, [core], ["endpoints", "services"])]),
    clusterRole("system:kube-dns", [rule(["list", "watch"], [core], ["endpoints", "services"])]),
    clusterRole("system:kubelet-api-admin", [
      rule(READ, [core], ["nodes"]),
      rule(["proxy"], [core], ["nodes"]),
      rule(["*"], [core], ["nodes/log", "nodes/metrics", "nodes/proxy", "nodes/stats"]),
    ]),
    clusterRole("system:node-problem-detector", [
      rule(["get"], [core], ["nodes"]),
      rule(["patch"], [core], ["nodes/status"]),
      rule(["create", "patch", "update"], [core, events], ["events"]),
    ]),
    clusterRole("system:node-proxier", [
      rule(["list", "watch"], [core], ["endpoints", "services"]),
      rule(READ, [core], ["nodes"]),
      rule(["create", "patch", "update"], [core, events], ["events"]),
      rule(["list", "watch"], [discovery], ["endpointslices"]),
    ]),
    clusterRole("system:persistent-volume-provisioner", [
      rule(["create", "delete", "get", "list", "watch"], [core], ["persistentvolumes"]),
      rule(["get", "list", "update", "watch"], [core], ["persistentvolumeclaims"]),
      rule(READ, [storage], ["storageclasses"]),
      rule(["watch"], [core], ["events"]),
      rule(["create", "patch", "update"], [core, events], ["events"]),
    ]),
    clusterRole("system:volume-scheduler", [
      rule(["get", "list", "patch", "update", "watch"], [core], ["persistentvolumes"]),
      rule(READ, [storage], ["storageclasses"]),
      rule(["get", "list", "patch", "update", "watch"], [core], ["persistentvolumeclaims"]),
    ]),
    clusterRole("system:service-account-issuer-discovery", [
      urls(["get"], ["/.well-known/openid-configuration", "/.well-known/openid-configuration/", "/openid/v1/jwks", "/openid/v1/jwks/"]),
    ]),
    clusterRole("system:controller:namespace-controller", [
      rule(["get", "list", "watch", "delete"], [core], ["namespaces"]),
      rule(["update"], [core], ["namespaces/finalize", "namespaces/status"]),
      rule(["get", "list", "delete", "deletecollection"], ["*"], ["*"]),
    ]),
    clusterRole("system:controller:clusterrole-aggregation-controller", [
      rule(["escalate", "get", "list", "watch", "update", "patch"], [rbac], ["clusterroles"]),
    ]),
  ];

  const clusterRoleBindings: ApiObject[] = [
    binding("cluster-admin", "cluster-admin", [group(MASTERS_GROUP)]),
    binding("system:monitoring", "system:monitoring", [group("system:monitoring")]),
    binding("system:discovery", "system:discovery", [group(AUTHENTICATED_GROUP)]),
    binding("system:basic-user", "system:basic-user", [group(AUTHENTICATED_GROUP)]),
    binding("system:public-info-viewer", "system:public-info-viewer", [group(AUTHENTICATED_GROUP), group(UNAUTHENTICATED_GROUP)]),
    binding("system:node", "system:node", []),
    binding("system:kube-controller-manager", "system:kube-controller-manager", [user("system:kube-controller-manager")]),
    binding("system:kube-scheduler", "system:kube-scheduler", [user("system:kube-scheduler")]),
    binding("system:volume-scheduler", "system:volume-scheduler", [user("system:kube-scheduler")]),
    binding("system:node-proxier", "system:node-proxier", [user("system:kube-proxy")]),
    binding("system:kube-dns", "system:kube-dns", [serviceAccount("kube-dns")]),
    binding("system:service-account-issuer-discovery", "system:service-account-issuer-discovery", [group(SERVICE_ACCOUNTS_GROUP)]),
    binding("system:controller:namespace-controller", "system:controller:namespace-controller", [serviceAccount("namespace-controller")]),
    binding("system:controller:clusterrole-aggregation-controller", "system:controller:clusterrole-aggregation-controller", [
      serviceAccount("clusterrole-aggregation-controller"),
    ]),
  ];
  // kube's namespaced defaults (its `namespace-roles.yaml`), without the `leasecandidates` rules
  // kube 1.31 added with coordinated leader election (1.30 serves no such resource).
  const system = profile.systemNamespace;
  const inNamespace = (namespace: string, object: ApiObject): ApiObject => ({ ...object, metadata: { ...object.metadata, namespace } });
  const role = (namespace: string, name: string, rules: readonly PolicyRule[]): ApiObject =>
    inNamespace(namespace, { apiVersion: `${rbac}/v1`, kind: "Role", metadata: meta(name), rules: rules.map((entry) => ({ ...entry })) });
  const roleBinding = (namespace: string, name: string, roleName: string, subjects: readonly Subject[]): ApiObject =>
    inNamespace(namespace, {
      apiVersion: `${rbac}/v1`,
      kind: "RoleBinding",
      metadata: meta(name),
      roleRef: { apiGroup: rbac, kind: "Role", name: roleName },
      subjects: subjects.map((subject) => ({ ...subject })),
    });
  const leaderLocking = rule(["create", "get", "list", "update", "watch"], [coordination], ["leases"]);
  const recordEvents = rule(["create", "patch", "update"], [core, events], ["events"]);
  const roles: ApiObject[] = [
    role(profile.publicNamespace, "system:controller:bootstrap-signer", [
      rule(READ, [core], ["configmaps"]),
      rule(["update"], [core], ["configmaps"], ["cluster-info"]),
      recordEvents,
    ]),
    role(system, "extension-apiserver-authentication-reader", [rule(READ, [core], ["configmaps"], ["extension-apiserver-authentication"])]),
    role(system, "system::leader-locking-kube-controller-manager", [leaderLocking]),
    role(system, "system::leader-locking-kube-scheduler", [leaderLocking]),
    role(system, "system:controller:bootstrap-signer", [rule(READ, [core], ["secrets"])]),
    role(system, "system:controller:cloud-provider", [rule(["create", "get", "list", "watch"], [core], ["configmaps"])]),
    role(system, "system:controller:token-cleaner", [rule(["delete", "get", "list", "watch"], [core], ["secrets"]), recordEvents]),
  ];
  const roleBindings: ApiObject[] = [
    roleBinding(profile.publicNamespace, "system:controller:bootstrap-signer", "system:controller:bootstrap-signer", [serviceAccount("bootstrap-signer")]),
    roleBinding(system, "system::extension-apiserver-authentication-reader", "extension-apiserver-authentication-reader", [
      user("system:kube-controller-manager"),
      user("system:kube-scheduler"),
    ]),
    roleBinding(system, "system::leader-locking-kube-controller-manager", "system::leader-locking-kube-controller-manager", [
      user("system:kube-controller-manager"),
      serviceAccount("kube-controller-manager"),
      serviceAccount("leader-election-controller"),
    ]),
    roleBinding(system, "system::leader-locking-kube-scheduler", "system::leader-locking-kube-scheduler", [
      user("system:kube-scheduler"),
      serviceAccount("kube-scheduler"),
    ]),
    roleBinding(system, "system:controller:bootstrap-signer", "system:controller:bootstrap-signer", [serviceAccount("bootstrap-signer")]),
    roleBinding(system, "system:controller:cloud-provider", "system:controller:cloud-provider", [serviceAccount("cloud-provider")]),
    roleBinding(system, "system:controller:token-cleaner", "system:controller:token-cleaner", [serviceAccount("token-cleaner")]),
  ];
  return { clusterRoles, clusterRoleBindings, roles, roleBindings };
}
