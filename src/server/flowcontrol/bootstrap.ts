import type { ApiObject } from "../../api/object.js";
import { apiGroup, type Profile } from "../../api/profile.js";
import { MANDATORY_FLOW_SCHEMA_SPECS, MANDATORY_PRIORITY_LEVEL_SPECS } from "../../api/schema/rules/flowcontrol.js";

/**
 * kube 1.30's bootstrap flow-control configuration: the mandatory objects (always kept to this
 * spec) and the suggested ones (kept to it while their auto-update annotation is "true").
 * Names, precedences and shares are kube's, which dashboards and runbooks refer to.
 */
export interface BootstrapConfiguration {
  readonly group: string;
  /** `apf.<keyDomain>/autoupdate-spec`. */
  readonly autoupdateAnnotation: string;
  readonly mandatoryPriorityLevels: readonly ApiObject[];
  readonly mandatoryFlowSchemas: readonly ApiObject[];
  readonly suggestedPriorityLevels: readonly ApiObject[];
  readonly suggestedFlowSchemas: readonly ApiObject[];
}

type Subject = Record<string, unknown>;
const group = (name: string): Subject => ({ kind: "Group", group: { name } });
const user = (name: string): Subject => ({ kind: "User", user: { name } });
const serviceAccount = (namespace: string, name: string): Subject => ({ kind: "ServiceAccount", serviceAccount: { namespace, name } });
const EVERYONE = [group("system:unauthenticated"), group("system:authenticated")];
const ALL_RESOURCES = { verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"] };
const ALL_NON_RESOURCES = { verbs: ["*"], nonResourceURLs: ["*"] };

export function bootstrapConfiguration(profile: Profile): BootstrapConfiguration {
  const flowcontrol = apiGroup(profile, "flowcontrol.apiserver");
  const coordination = apiGroup(profile, "coordination");
  const autoupdateAnnotation = `apf.${profile.keyDomain}/autoupdate-spec`;
  const system = profile.systemNamespace;
  const meta = (name: string) => ({ name, annotations: { [autoupdateAnnotation]: "true" } });
  const level = (name: string, spec: Record<string, unknown>): ApiObject => ({
    apiVersion: `${flowcontrol}/v1`,
    kind: "PriorityLevelConfiguration",
    metadata: meta(name),
    spec,
  });
  const queued = (name: string, shares: number, lendablePercent: number, queues: number, handSize: number): ApiObject =>
    level(name, {
      type: "Limited",
      limited: {
        nominalConcurrencyShares: shares,
        lendablePercent,
        limitResponse: { type: "Queue", queuing: { queues, handSize, queueLengthLimit: 50 } },
      },
    });
  const schema = (
    name: string,
    priorityLevel: string,
    matchingPrecedence: number,
    distinguisher: "ByUser" | "ByNamespace" | undefined,
    rules: readonly Record<string, unknown>[],
  ): ApiObject => ({
    apiVersion: `${flowcontrol}/v1`,
    kind: "FlowSchema",
    metadata: meta(name),
    spec: {
      priorityLevelConfiguration: { name: priorityLevel },
      matchingPrecedence,
      ...(distinguisher === undefined ? {} : { distinguisherMethod: { type: distinguisher } }),
      rules,
    },
  });
  const everything = (subjects: readonly Subject[]) => [{ subjects, resourceRules: [ALL_RESOURCES], nonResourceRules: [ALL_NON_RESOURCES] }];
  const leases = (namespaces: readonly string[]) => ({
    verbs: ["get", "create", "update"],
    apiGroups: [coordination],
    resources: ["leases"],
    namespaces,
  });
  return {
    group: flowcontrol,
    autoupdateAnnotation,
    // The mandatory specs are the ones validation holds these names to (api/schema/rules/flowcontrol.ts).
    mandatoryPriorityLevels: Object.entries(MANDATORY_PRIORITY_LEVEL_SPECS).map(([name, spec]) => level(name, structuredClone(spec))),
    mandatoryFlowSchemas: Object.entries(MANDATORY_FLOW_SCHEMA_SPECS).map(([name, spec]) => ({
      apiVersion: `${flowcontrol}/v1`,
      kind: "FlowSchema",
      metadata: meta(name),
      spec: structuredClone(spec),
    })),
    suggestedPriorityLevels: [
      queued("system", 30, 33, 64, 6),
      queued("node-high", 40, 25, 64, 6),
      queued("leader-election", 10, 0, 16, 4),
      queued("workload-high", 40, 50, 128, 6),
      queued("workload-low", 100, 90, 128, 6),
      queued("global-default", 20, 50, 128, 6),
    ],
    suggestedFlowSchemas: [
      schema("probes", "exempt", 2, undefined, [
        { subjects: EVERYONE, nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/readyz", "/livez"] }] },
      ]),
      schema("system-leader-election", "leader-election", 100, "ByUser", [
        {
          subjects: [user("system:kube-controller-manager"), user("system:kube-scheduler"), serviceAccount(system, "*")],
          resourceRules: [leases([system])],
        },
      ]),
      schema("endpoint-controller", "workload-high", 150, "ByUser", [
        {
          subjects: [user("system:kube-controller-manager"), serviceAccount(system, "endpoint-controller")],
          resourceRules: [{ verbs: ["get", "create", "update"], apiGroups: [""], resources: ["endpoints"], namespaces: ["*"] }],
        },
      ]),
      schema("workload-leader-election", "leader-election", 200, "ByUser", [{ subjects: [serviceAccount(system, "*")], resourceRules: [leases(["*"])] }]),
      schema("system-node-high", "node-high", 400, "ByUser", [
        {
          subjects: [group("system:nodes")],
          resourceRules: [
            { verbs: ["*"], apiGroups: [""], resources: ["nodes", "nodes/status"], clusterScope: true },
            { verbs: ["*"], apiGroups: [coordination], resources: ["leases"], namespaces: ["*"] },
          ],
        },
      ]),
      schema("system-nodes", "system", 500, "ByUser", everything([group("system:nodes")])),
      schema("kube-controller-manager", "workload-high", 800, "ByNamespace", everything([user("system:kube-controller-manager")])),
      schema("kube-scheduler", "workload-high", 800, "ByNamespace", everything([user("system:kube-scheduler")])),
      schema(`${system}-service-accounts`, "workload-high", 900, "ByNamespace", everything([serviceAccount(system, "*")])),
      schema("service-accounts", "workload-low", 9000, "ByUser", everything([group("system:serviceaccounts")])),
      schema("global-default", "global-default", 9900, "ByUser", everything(EVERYONE)),
    ],
  };
}
