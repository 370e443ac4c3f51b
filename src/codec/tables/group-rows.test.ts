import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ago, cells, KEY_DOMAIN, object, tableKeys, type RowCase } from "./_testing.js";

const containers = [
  { name: "web", image: "nginx:1.25" },
  { name: "log", image: "busybox:1.36" },
];
const template = { metadata: { labels: { app: "web" } }, spec: { containers } };

const WORKLOADS: readonly RowCase[] = [
  {
    group: "apps",
    kind: "Deployment",
    title: "ready of desired, up to date, available; containers, images and the selector in selector syntax",
    object: object("web", {
      spec: { replicas: 3, selector: { matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "In", values: ["fe", "be"] }] }, template },
      status: { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    }),
    cells: ["web", "2/3", 3, 2, "60m", "web,log", "nginx:1.25,busybox:1.36", "app=web,tier in (be,fe)"],
  },
  {
    group: "apps",
    kind: "ReplicaSet",
    title: "desired, current and ready; an empty selector",
    object: object("web-7d4", { spec: { replicas: 2, selector: {}, template }, status: { replicas: 2, readyReplicas: 1 } }),
    cells: ["web-7d4", 2, 2, 1, "60m", "web,log", "nginx:1.25,busybox:1.36", "<none>"],
  },
  {
    group: "apps",
    kind: "StatefulSet",
    title: "replicas default to one",
    object: object("db", {
      spec: { selector: { matchLabels: { app: "db" } }, template: { spec: { containers: [containers[0]] } } },
      status: { readyReplicas: 1 },
    }),
    cells: ["db", "1/1", "60m", "web", "nginx:1.25"],
  },
  {
    group: "apps",
    kind: "DaemonSet",
    title: "node counts, the node selector and the pod selector",
    object: object("agent", {
      spec: {
        selector: {
          matchExpressions: [
            { key: "app", operator: "Exists" },
            { key: "legacy", operator: "DoesNotExist" },
            { key: "zone", operator: "NotIn", values: ["b", "a"] },
          ],
        },
        template: { spec: { nodeSelector: { os: "linux" }, containers: [containers[1]] } },
      },
      status: { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 3, numberAvailable: 2 },
    }),
    cells: ["agent", 3, 3, 2, 3, 2, "os=linux", "60m", "log", "busybox:1.36", "app,!legacy,zone notin (a,b)"],
  },
  {
    group: "apps",
    kind: "ControllerRevision",
    title: "the controlling owner as kind.group/name",
    object: object("db-5f9", {
      metadata: { ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "db", uid: "u1", controller: true }] },
      revision: 2,
    }),
    cells: ["db-5f9", "statefulset.apps/db", 2, "60m"],
  },
  {
    group: "batch",
    kind: "Job",
    title: "a completed job: its duration from start to completion",
    object: object("pi", {
      spec: { completions: 3, parallelism: 1, selector: { matchLabels: { "job-name": "pi" } }, template: { spec: { containers: [containers[1]] } } },
      status: { succeeded: 3, startTime: ago(60), completionTime: "2024-05-01T11:02:30Z", conditions: [{ type: "Complete", status: "True" }] },
    }),
    cells: ["pi", "Complete", "3/3", "2m30s", "60m", "log", "busybox:1.36", "job-name=pi"],
  },
  {
    group: "batch",
    kind: "Job",
    title: "a running job without completions runs until one succeeds, in parallel",
    object: object("work", {
      spec: { parallelism: 3, template: { spec: { containers: [containers[1]] } } },
      status: { active: 3, startTime: ago(10), conditions: [{ type: "Complete", status: "False" }] },
    }),
    cells: ["work", "Running", "0/1 of 3", "10m", "60m", "log", "busybox:1.36", "<none>"],
  },
  {
    group: "batch",
    kind: "Job",
    title: "a suspended job that never started",
    object: object("held", {
      spec: { suspend: true, template: { spec: { containers: [containers[1]] } } },
      status: { conditions: [{ type: "Suspended", status: "True" }] },
    }),
    cells: ["held", "Suspended", "0/1", "", "60m", "log", "busybox:1.36", "<none>"],
  },
  {
    group: "batch",
    kind: "CronJob",
    title: "schedule, time zone, suspend spelled True/False, active jobs, last schedule",
    object: object("backup", {
      spec: { schedule: "*/5 * * * *", timeZone: "Etc/UTC", suspend: false, jobTemplate: { spec: { template: { spec: { containers: [containers[1]] } } } } },
      status: { active: [{ name: "backup-1" }], lastScheduleTime: ago(5) },
    }),
    cells: ["backup", "*/5 * * * *", "Etc/UTC", "False", 1, "5m", "60m", "log", "busybox:1.36", "<none>"],
  },
  {
    group: "batch",
    kind: "CronJob",
    title: "no time zone, suspend unset, never scheduled",
    object: object("report", { spec: { schedule: "@daily", jobTemplate: { spec: { template: { spec: { containers: [containers[1]] } } } } } }),
    cells: ["report", "@daily", "<none>", "<unset>", 0, "<none>", "60m", "log", "busybox:1.36", "<none>"],
  },
];

const hpaV2 = {
  scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
  minReplicas: 2,
  maxReplicas: 10,
  metrics: [
    { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } },
    { type: "Resource", resource: { name: "memory", target: { type: "AverageValue", averageValue: "500Mi" } } },
    { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } } },
  ],
};

const SCALING: readonly RowCase[] = [
  {
    group: "autoscaling",
    kind: "HorizontalPodAutoscaler",
    title: "v2: current/target per metric, two at most",
    object: {
      ...object("web", {
        spec: hpaV2,
        status: {
          currentReplicas: 3,
          currentMetrics: [
            { type: "Resource", resource: { name: "cpu", current: { averageUtilization: 45 } } },
            { type: "Resource", resource: { name: "memory", current: { averageValue: "300Mi" } } },
          ],
        },
      }),
      apiVersion: "autoscaling/v2",
    },
    cells: ["web", "Deployment/web", "cpu: 45%/80%, memory: 300Mi/500Mi + 1 more...", "2", 10, 3, "60m"],
  },
  {
    group: "autoscaling",
    kind: "HorizontalPodAutoscaler",
    title: "v2: external and object metrics (value and average), no minimum",
    object: {
      ...object("queue", {
        spec: {
          scaleTargetRef: { kind: "StatefulSet", name: "worker" },
          maxReplicas: 4,
          metrics: [
            { type: "External", external: { metric: { name: "depth" }, target: { type: "Value", value: "100" } } },
            { type: "Object", object: { metric: { name: "rps" }, target: { type: "AverageValue", averageValue: "5" } } },
          ],
        },
        status: { currentReplicas: 1, currentMetrics: [{ type: "External", external: { current: { value: "42" } } }] },
      }),
      apiVersion: "autoscaling/v2",
    },
    cells: ["queue", "StatefulSet/worker", "42/100, <unknown>/5 (avg)", "<unset>", 4, 1, "60m"],
  },
  {
    group: "autoscaling",
    kind: "HorizontalPodAutoscaler",
    title: "v1: the CPU target, then the metrics v1 keeps in annotations",
    object: {
      ...object("web-v1", {
        metadata: { annotations: { [`autoscaling.alpha.${KEY_DOMAIN}/metrics`]: JSON.stringify([hpaV2.metrics[2]]) } },
        spec: { scaleTargetRef: { kind: "Deployment", name: "web" }, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 70 },
        status: { currentReplicas: 2, currentCPUUtilizationPercentage: 35 },
      }),
      apiVersion: "autoscaling/v1",
    },
    cells: ["web-v1", "Deployment/web", "cpu: 35%/70%, <unknown>/10", "1", 5, 2, "60m"],
  },
  {
    group: "autoscaling",
    kind: "HorizontalPodAutoscaler",
    title: "v1 without a target",
    object: { ...object("bare", { spec: { scaleTargetRef: { kind: "Deployment", name: "web" }, maxReplicas: 3 } }), apiVersion: "autoscaling/v1" },
    cells: ["bare", "Deployment/web", "<none>", "<unset>", 3, 0, "60m"],
  },
  {
    group: "autoscaling",
    kind: "Scale",
    title: "desired and observed replicas",
    object: object("web", { spec: { replicas: 3 }, status: { replicas: 2, selector: "app=web" } }),
    cells: ["web", 3, 2, "60m"],
  },
  {
    group: "policy",
    kind: "PodDisruptionBudget",
    title: "a percentage minimum",
    object: object("pdb", { spec: { minAvailable: "50%" }, status: { disruptionsAllowed: 1 } }),
    cells: ["pdb", "50%", "N/A", 1, "60m"],
  },
  {
    group: "policy",
    kind: "PodDisruptionBudget",
    title: "a count maximum",
    object: object("pdb2", { spec: { maxUnavailable: 1 }, status: {} }),
    cells: ["pdb2", "N/A", "1", 0, "60m"],
  },
];

const NETWORK_AND_STORAGE: readonly RowCase[] = [
  {
    group: "networking",
    kind: "Ingress",
    title: "class, three hosts then how many rules more, balancer address, TLS ports",
    object: object("web", {
      spec: {
        ingressClassName: "nginx",
        rules: [{ host: "a.example.com" }, {}, { host: "b.example.com" }, { host: "c.example.com" }, { host: "d.example.com" }],
        tls: [{ hosts: ["a.example.com"] }],
      },
      status: { loadBalancer: { ingress: [{ ip: "10.0.0.9" }] } },
    }),
    cells: ["web", "nginx", "a.example.com,b.example.com,c.example.com + 2 more...", "10.0.0.9", "80, 443", "60m"],
  },
  {
    group: "networking",
    kind: "Ingress",
    title: "no class, no host, no address",
    object: object("default-backend", { spec: { defaultBackend: { service: { name: "web", port: { number: 80 } } } } }),
    cells: ["default-backend", "<none>", "*", "", "80", "60m"],
  },
  {
    group: "networking",
    kind: "IngressClass",
    title: "controller and parameters as Kind.group/name",
    object: object("nginx", { spec: { controller: "example.com/ingress", parameters: { apiGroup: "config.example.com", kind: "Params", name: "p" } } }),
    cells: ["nginx", "example.com/ingress", "Params.config.example.com/p", "60m"],
  },
  {
    group: "networking",
    kind: "IngressClass",
    title: "no parameters",
    object: object("plain", { spec: { controller: "example.com/ingress" } }),
    cells: ["plain", "example.com/ingress", "<none>", "60m"],
  },
  {
    group: "networking",
    kind: "NetworkPolicy",
    title: "the pod selector",
    object: object("db", { spec: { podSelector: { matchLabels: { role: "db" } } } }),
    cells: ["db", "role=db", "60m"],
  },
  {
    group: "networking",
    kind: "NetworkPolicy",
    title: "every pod",
    object: object("deny-all", { spec: { podSelector: {} } }),
    cells: ["deny-all", "<none>", "60m"],
  },
  {
    group: "discovery",
    kind: "EndpointSlice",
    title: "ports (number, name or *) and addresses, three of each",
    object: object("web-abc", {
      addressType: "IPv4",
      ports: [{ port: 80 }, { name: "https" }, {}, { port: 8080 }],
      endpoints: [{ addresses: ["10.0.0.1", "10.0.0.2"] }, { addresses: ["10.0.0.3"] }],
    }),
    cells: ["web-abc", "IPv4", "80,https,* + 1 more...", "10.0.0.1,10.0.0.2,10.0.0.3", "60m"],
  },
  {
    group: "discovery",
    kind: "EndpointSlice",
    title: "empty",
    object: object("empty", { addressType: "IPv6" }),
    cells: ["empty", "IPv6", "<unset>", "<unset>", "60m"],
  },
  {
    group: "storage",
    kind: "StorageClass",
    title: "the default class is marked; policies default",
    object: object("standard", {
      metadata: { annotations: { [`storageclass.${KEY_DOMAIN}/is-default-class`]: "true" } },
      provisioner: "example.com/csi",
      volumeBindingMode: "WaitForFirstConsumer",
      allowVolumeExpansion: true,
    }),
    cells: ["standard (default)", "example.com/csi", "Delete", "WaitForFirstConsumer", true, "60m"],
  },
  {
    group: "storage",
    kind: "StorageClass",
    title: "the beta default annotation counts too; explicit policies",
    object: object("slow", {
      metadata: { annotations: { [`storageclass.beta.${KEY_DOMAIN}/is-default-class`]: "true" } },
      provisioner: "example.com/nfs",
      reclaimPolicy: "Retain",
      volumeBindingMode: "Immediate",
    }),
    cells: ["slow (default)", "example.com/nfs", "Retain", "Immediate", false, "60m"],
  },
  {
    group: "storage",
    kind: "CSIDriver",
    title: "defaults of an empty spec",
    object: object("csi.example.com", { spec: {} }),
    cells: ["csi.example.com", true, false, false, "<unset>", false, "<none>", "60m"],
  },
  {
    group: "storage",
    kind: "CSIDriver",
    title: "token audiences and lifecycle modes",
    object: object("secrets.example.com", {
      spec: {
        attachRequired: false,
        podInfoOnMount: true,
        storageCapacity: true,
        requiresRepublish: true,
        tokenRequests: [{ audience: "vault" }, { audience: "cloud" }],
        volumeLifecycleModes: ["Persistent", "Ephemeral"],
      },
    }),
    cells: ["secrets.example.com", false, true, true, "vault,cloud", true, "Persistent,Ephemeral", "60m"],
  },
  {
    group: "storage",
    kind: "CSINode",
    title: "registered drivers",
    object: object("node-1", {
      spec: {
        drivers: [
          { name: "a", nodeID: "n" },
          { name: "b", nodeID: "n" },
        ],
      },
    }),
    cells: ["node-1", 2, "60m"],
  },
  {
    group: "storage",
    kind: "VolumeAttachment",
    title: "attacher, volume, node, attached",
    object: object("csi-123", {
      spec: { attacher: "csi.example.com", source: { persistentVolumeName: "pv-1" }, nodeName: "node-1" },
      status: { attached: true },
    }),
    cells: ["csi-123", "csi.example.com", "pv-1", "node-1", true, "60m"],
  },
  {
    group: "scheduling",
    kind: "PriorityClass",
    title: "value and global default",
    object: object("high", { value: 1000, globalDefault: true }),
    cells: ["high", 1000, true, "60m"],
  },
  { group: "node", kind: "RuntimeClass", title: "the handler", object: object("gvisor", { handler: "runsc" }), cells: ["gvisor", "runsc", "60m"] },
  {
    group: "coordination",
    kind: "Lease",
    title: "the holder",
    object: object("node-1", { spec: { holderIdentity: "node-1", leaseDurationSeconds: 40 } }),
    cells: ["node-1", "node-1", "60m"],
  },
  { group: "coordination", kind: "Lease", title: "no holder", object: object("free", { spec: {} }), cells: ["free", "", "60m"] },
];

const CONTROL: readonly RowCase[] = [
  {
    group: "events",
    kind: "Event",
    title: "the events group's field names: regarding, note, deprecated times and count",
    object: object("web.17c", {
      regarding: { kind: "Pod", name: "web", fieldPath: "spec.containers{web}" },
      note: "Pulled image",
      type: "Normal",
      reason: "Pulled",
      reportingController: "kubelet",
      reportingInstance: "node-1",
      deprecatedFirstTimestamp: ago(30),
      deprecatedLastTimestamp: ago(3),
      deprecatedCount: 2,
    }),
    cells: ["3m", "Normal", "Pulled", "pod/web", "spec.containers{web}", "kubelet, node-1", "Pulled image", "30m", 2, "web.17c"],
  },
  {
    group: "rbac.authorization",
    kind: "ClusterRoleBinding",
    title: "role as kind/name; users, groups and service accounts apart",
    object: object("viewers", {
      roleRef: { apiGroup: "rbac", kind: "ClusterRole", name: "view" },
      subjects: [
        { kind: "User", name: "alice" },
        { kind: "Group", name: "devs" },
        { kind: "ServiceAccount", name: "builder", namespace: "ci" },
        { kind: "User", name: "bob" },
      ],
    }),
    cells: ["viewers", "ClusterRole/view", "60m", "alice, bob", "devs", "ci/builder"],
  },
  {
    group: "rbac.authorization",
    kind: "RoleBinding",
    title: "no subjects",
    object: object("empty", { roleRef: { kind: "Role", name: "reader" } }),
    cells: ["empty", "Role/reader", "60m", "", "", ""],
  },
  {
    group: "certificates",
    kind: "CertificateSigningRequest",
    title: "signer, requestor, requested duration, approved and issued",
    object: object("csr-1", {
      spec: { signerName: "example.com/signer", username: "alice", expirationSeconds: 3600, request: "" },
      status: { conditions: [{ type: "Approved", status: "True" }], certificate: "Y2VydA==" },
    }),
    cells: ["csr-1", "60m", "example.com/signer", "alice", "60m", "Approved,Issued"],
  },
  {
    group: "certificates",
    kind: "CertificateSigningRequest",
    title: "denial wins over approval; a failure is added",
    object: object("csr-2", { spec: { username: "bob" }, status: { conditions: [{ type: "Approved" }, { type: "Denied" }, { type: "Failed" }] } }),
    cells: ["csr-2", "60m", "<none>", "bob", "<none>", "Denied,Failed"],
  },
  {
    group: "certificates",
    kind: "CertificateSigningRequest",
    title: "pending",
    object: object("csr-3", { spec: { signerName: "example.com/signer", username: "carol" } }),
    cells: ["csr-3", "60m", "example.com/signer", "carol", "<none>", "Pending"],
  },
  {
    group: "admissionregistration",
    kind: "MutatingWebhookConfiguration",
    title: "webhooks",
    object: object("inject", { webhooks: [{ name: "a" }, { name: "b" }] }),
    cells: ["inject", 2, "60m"],
  },
  { group: "admissionregistration", kind: "ValidatingWebhookConfiguration", title: "no webhooks", object: object("none"), cells: ["none", 0, "60m"] },
  {
    group: "admissionregistration",
    kind: "ValidatingAdmissionPolicy",
    title: "with params",
    object: object("p", { spec: { validations: [{ expression: "true" }], paramKind: { apiVersion: "v1", kind: "ConfigMap" } } }),
    cells: ["p", 1, "v1/ConfigMap", "60m"],
  },
  {
    group: "admissionregistration",
    kind: "ValidatingAdmissionPolicyBinding",
    title: "param by name",
    object: object("b", { spec: { policyName: "p", paramRef: { name: "limits", namespace: "params" } } }),
    cells: ["b", "p", "params/limits", "60m"],
  },
  {
    group: "flowcontrol.apiserver",
    kind: "FlowSchema",
    title: "level, precedence, distinguisher, the Dangling condition",
    object: object("service-accounts", {
      spec: { priorityLevelConfiguration: { name: "workload-low" }, matchingPrecedence: 9000, distinguisherMethod: { type: "ByUser" } },
      status: { conditions: [{ type: "Dangling", status: "False" }] },
    }),
    cells: ["service-accounts", "workload-low", 9000, "ByUser", "60m", "False"],
  },
  {
    group: "flowcontrol.apiserver",
    kind: "FlowSchema",
    title: "not yet checked",
    object: object("exempt", { spec: { priorityLevelConfiguration: { name: "exempt" }, matchingPrecedence: 1 } }),
    cells: ["exempt", "exempt", 1, "<none>", "60m", "?"],
  },
  {
    group: "flowcontrol.apiserver",
    kind: "PriorityLevelConfiguration",
    title: "a queuing level",
    object: object("workload-low", {
      spec: {
        type: "Limited",
        limited: { nominalConcurrencyShares: 100, limitResponse: { type: "Queue", queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } } },
      },
    }),
    cells: ["workload-low", "Limited", 100, 128, 6, 50, "60m"],
  },
  {
    group: "flowcontrol.apiserver",
    kind: "PriorityLevelConfiguration",
    title: "a rejecting level has no queues",
    object: object("catch-all", { spec: { type: "Limited", limited: { nominalConcurrencyShares: 5, limitResponse: { type: "Reject" } } } }),
    cells: ["catch-all", "Limited", 5, "<none>", "<none>", "<none>", "60m"],
  },
  {
    group: "flowcontrol.apiserver",
    kind: "PriorityLevelConfiguration",
    title: "an exempt level",
    object: object("exempt", { spec: { type: "Exempt", exempt: {} } }),
    cells: ["exempt", "Exempt", "<none>", "<none>", "<none>", "<none>", "60m"],
  },
  {
    group: "apiregistration",
    kind: "APIService",
    title: "a local one, available",
    object: object("v1.apps", {
      spec: { group: "apps", version: "v1" },
      status: { conditions: [{ type: "Available", status: "True", reason: "Local" }] },
    }),
    cells: ["v1.apps", "Local", "True", "60m"],
  },
  {
    group: "apiregistration",
    kind: "APIService",
    title: "a service-backed one, unavailable with its reason",
    object: object("v1beta1.metrics.k8s.io", {
      spec: { service: { namespace: "kube-system", name: "metrics-server" } },
      status: { conditions: [{ type: "Available", status: "False", reason: "MissingEndpoints" }] },
    }),
    cells: ["v1beta1.metrics.k8s.io", "kube-system/metrics-server", "False (MissingEndpoints)", "60m"],
  },
  {
    group: "apiregistration",
    kind: "APIService",
    title: "not checked yet",
    object: object("v1.example.com", { spec: { service: { namespace: "x", name: "y" } } }),
    cells: ["v1.example.com", "x/y", "Unknown", "60m"],
  },
];

const CASES = [...WORKLOADS, ...SCALING, ...NETWORK_AND_STORAGE, ...CONTROL];

describe("tables of the named groups: every cell of a row, wide ones included", () => {
  it("every kind of a named group with a table has a case", () => {
    const covered = new Set(CASES.map((testCase) => `${testCase.group}/${testCase.kind}`));
    assert.deepEqual(
      tableKeys((group) => group !== "").filter((key) => !covered.has(key)),
      [],
    );
  });

  for (const testCase of CASES) {
    it(`${testCase.group}/${testCase.kind}: ${testCase.title}`, () => {
      assert.deepEqual(cells(testCase.group, testCase.kind, testCase.object), testCase.cells);
    });
  }
});
