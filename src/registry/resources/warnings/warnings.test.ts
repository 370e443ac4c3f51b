import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiObject } from "../../../api/object.js";
import { KUBERNETES_PROFILE, ORCH_PROFILE, type Profile } from "../../../api/profile.js";
import { fractionalBytes } from "./fractional-bytes.js";
import { kindWarnings } from "./index.js";

type Json = Record<string, unknown>;

function object(kind: string, spec: Json, metadata: Json = {}, extra: Json = {}): ApiObject {
  return { apiVersion: "v1", kind, metadata: { name: "x", namespace: "default", generation: 1, ...metadata }, spec, ...extra } as ApiObject;
}

function onCreate(profile: Profile, key: string, target: ApiObject): string[] {
  const rules = kindWarnings(profile).get(key);
  assert.ok(rules?.onCreate !== undefined, `no create warnings for ${key}`);
  return rules.onCreate(target);
}

function onUpdate(profile: Profile, key: string, target: ApiObject, old: ApiObject): string[] {
  const rules = kindWarnings(profile).get(key);
  assert.ok(rules?.onUpdate !== undefined, `no update warnings for ${key}`);
  return rules.onUpdate(target, old);
}

const container = (extra: Json = {}): Json => ({ name: "c", image: "busybox", ...extra });
const pod = (spec: Json, metadata: Json = {}): ApiObject => object("Pod", { containers: [container()], ...spec }, metadata);

describe("kind warnings: kube 1.30's messages per rule", () => {
  // [rule, pod spec, pod metadata, expected warnings under the kubernetes profile]
  const podCases: [string, Json, Json, string[]][] = [
    [
      "deprecated node label in nodeSelector",
      { nodeSelector: { "beta.kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux" } },
      {},
      ['spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead'],
    ],
    [
      "deprecated node labels in required and preferred node affinity",
      {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: "failure-domain.beta.kubernetes.io/zone", operator: "Exists" }] }],
            },
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 1,
                preference: {
                  matchExpressions: [
                    { key: "a", operator: "Exists" },
                    { key: "node-role.kubernetes.io/master", operator: "Exists" },
                  ],
                },
              },
            ],
          },
        },
      },
      {},
      [
        'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
        'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[1].key: node-role.kubernetes.io/master is use "node-role.kubernetes.io/control-plane" instead',
      ],
    ],
    [
      "topology spread: deprecated key, null selector",
      { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: "beta.kubernetes.io/instance-type", whenUnsatisfiable: "DoNotSchedule" }] },
      {},
      [
        'spec.topologySpreadConstraints[0].topologyKey: beta.kubernetes.io/instance-type is deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
        "spec.topologySpreadConstraints[0].labelSelector: a null labelSelector results in matching no pod",
      ],
    ],
    [
      "deprecated annotations",
      {},
      { annotations: { "scheduler.alpha.kubernetes.io/critical-pod": "", "security.alpha.kubernetes.io/unsafe-sysctls": "a=b" } },
      [
        'metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; use the "priorityClassName" field instead',
        'metadata.annotations[security.alpha.kubernetes.io/unsafe-sysctls]: non-functional in v1.11+; use the "sysctls" field instead',
      ],
    ],
    [
      "seccomp annotations without the fields",
      { securityContext: {} },
      { annotations: { "seccomp.security.alpha.kubernetes.io/pod": "runtime/default", "container.seccomp.security.alpha.kubernetes.io/c": "unconfined" } },
      [
        'metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: non-functional in v1.27+; use the "seccompProfile" field instead',
        'metadata.annotations[container.seccomp.security.alpha.kubernetes.io/c]: non-functional in v1.27+; use the "seccompProfile" field instead',
      ],
    ],
    [
      "seccomp annotation with the field",
      { securityContext: { seccompProfile: { type: "RuntimeDefault" } } },
      { annotations: { "seccomp.security.alpha.kubernetes.io/pod": "x" } },
      [],
    ],
    [
      "deprecated volume types",
      {
        volumes: [
          { name: "a", gitRepo: { repository: "r" } },
          { name: "b", storageos: { volumeName: "v" } },
          { name: "c", cephfs: { monitors: ["m"] } },
          { name: "d", emptyDir: {} },
        ],
      },
      {},
      [
        "spec.volumes[0].gitRepo: deprecated in v1.11",
        "spec.volumes[1].storageOS: deprecated in v1.22, non-functional in v1.25+",
        "spec.volumes[2].cephfs: deprecated in v1.28, non-functional in v1.31+",
      ],
    ],
    [
      "ephemeral volume claim asking for fractional bytes",
      { volumes: [{ name: "e", ephemeral: { volumeClaimTemplate: { spec: { resources: { requests: { storage: "1500m" } } } } } }] },
      {},
      ['spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer'],
    ],
    [
      "duplicate host alias addresses",
      { hostAliases: [{ ip: "10.0.0.1" }, { ip: "10.0.0.2" }, { ip: "10.0.0.1" }] },
      {},
      ['spec.hostAliases[2].ip: duplicate ip "10.0.0.1"'],
    ],
    [
      "duplicate and empty image pull secrets",
      { imagePullSecrets: [{ name: "a" }, { name: "" }, { name: "a" }] },
      {},
      ['spec.imagePullSecrets[2].name: duplicate name "a"', 'spec.imagePullSecrets[1].name: invalid empty name ""'],
    ],
    [
      "fractional memory and ephemeral storage",
      {
        overhead: { memory: "0.5" },
        containers: [container({ resources: { limits: { memory: "1.5Gi", "ephemeral-storage": "2.5" }, requests: { memory: "100m", cpu: "100m" } } })],
      },
      {},
      [
        'spec.overhead[memory]: fractional byte value "500m" is invalid, must be an integer',
        'spec.containers[0].resources.requests[memory]: fractional byte value "100m" is invalid, must be an integer',
        'spec.containers[0].resources.limits[ephemeral-storage]: fractional byte value "2500m" is invalid, must be an integer',
      ],
    ],
    [
      "env entries hiding earlier ones",
      {
        initContainers: [
          container({
            name: "i",
            env: [
              { name: "A", value: "1" },
              { name: "A", value: "$(A)2" },
            ],
          }),
        ],
        containers: [
          container({
            env: [
              { name: "A", value: "1" },
              { name: "A", value: "2" },
              { name: "A", valueFrom: { fieldRef: { fieldPath: "x" } } },
            ],
          }),
        ],
      },
      {},
      [
        'spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when using apply',
        'spec.containers[0].env[2]: hides previous definition of "A", which may be dropped when using apply',
      ],
    ],
    [
      "port clashes",
      {
        containers: [
          container({
            ports: [
              { containerPort: 80, protocol: "TCP" },
              { containerPort: 80, protocol: "TCP", hostPort: 8080 },
            ],
          }),
          container({
            name: "d",
            ports: [
              { containerPort: 80, protocol: "TCP" },
              { containerPort: 53, protocol: "UDP", hostIP: "10.0.0.1" },
              { containerPort: 90, protocol: "TCP", hostPort: 9090, hostIP: "10.0.0.2" },
              { containerPort: 90, protocol: "TCP", hostPort: 9090 },
            ],
          }),
        ],
      },
      {},
      [
        "spec.containers[0].ports[1]: overlapping port definition with spec.containers[0].ports[0]",
        "spec.containers[1].ports[0]: duplicate port definition with spec.containers[0].ports[0]",
        "spec.containers[1].ports[0]: overlapping port definition with spec.containers[0].ports[1]",
        "spec.containers[1].ports[1]: hostIP set without hostPort: {Name: HostPort:0 ContainerPort:53 Protocol:UDP HostIP:10.0.0.1}",
        "spec.containers[1].ports[3]: dangerously ambiguous port definition with spec.containers[1].ports[2]",
      ],
    ],
    [
      "negative termination grace period",
      { terminationGracePeriodSeconds: -1 },
      {},
      ["spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1"],
    ],
    [
      "pod (anti-)affinity terms without a selector",
      {
        affinity: {
          podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "k" }] },
          podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: "k" } }] },
        },
      },
      {},
      [
        "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector: a null labelSelector results in matching no pod",
        "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector: a null labelSelector results in matching no pod",
      ],
    ],
    [
      "name that is not a DNS label",
      {},
      { name: "web.v1" },
      ["metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]"],
    ],
    ["a plain pod", { nodeSelector: { "kubernetes.io/os": "linux" } }, {}, []],
  ];
  for (const [rule, spec, metadata, expected] of podCases) {
    it(`Pod: ${rule}`, () => {
      assert.deepEqual(onCreate(KUBERNETES_PROFILE, "/Pod", pod(spec, metadata)), expected);
    });
  }

  it("Pod: keys and messages are spelled in the profile's key domain", () => {
    const selector = { nodeSelector: { "beta.orch.io/os": "linux", "beta.kubernetes.io/os": "linux" } };
    assert.deepEqual(onCreate(ORCH_PROFILE, "/Pod", pod(selector)), ['spec.nodeSelector[beta.orch.io/os]: deprecated since v1.14; use "orch.io/os" instead']);
    assert.deepEqual(onCreate(KUBERNETES_PROFILE, "/Pod", pod(selector)), [
      'spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead',
    ]);
    const annotated = pod({}, { annotations: { "scheduler.alpha.orch.io/critical-pod": "" } });
    assert.deepEqual(onCreate(ORCH_PROFILE, "/Pod", annotated), [
      'metadata.annotations[scheduler.alpha.orch.io/critical-pod]: non-functional in v1.16+; use the "priorityClassName" field instead',
    ]);
  });

  it("Pod: kube does not warn on pod updates", () => {
    assert.equal(kindWarnings(KUBERNETES_PROFILE).get("/Pod")?.onUpdate, undefined);
  });

  const template = { metadata: { labels: { app: "a" } }, spec: { nodeSelector: { "beta.kubernetes.io/arch": "amd64" }, containers: [container()] } };
  const archMessage = 'deprecated since v1.14; use "kubernetes.io/arch" instead';
  const templateCases: [string, ApiObject, string[]][] = [
    ["/PodTemplate", object("PodTemplate", {}, {}, { template }), [`template.spec.nodeSelector[beta.kubernetes.io/arch]: ${archMessage}`]],
    ["/ReplicationController", object("ReplicationController", { template }), [`spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: ${archMessage}`]],
    ["apps/Deployment", object("Deployment", { template }), [`spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: ${archMessage}`]],
    ["apps/ReplicaSet", object("ReplicaSet", { template }), [`spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: ${archMessage}`]],
    ["apps/DaemonSet", object("DaemonSet", { template }), [`spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: ${archMessage}`]],
    [
      "apps/StatefulSet",
      object("StatefulSet", { template, volumeClaimTemplates: [{ spec: { resources: { requests: { storage: "0.5" } } } }] }),
      [
        `spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: ${archMessage}`,
        'spec.volumeClaimTemplates[0].resources.requests[storage]: fractional byte value "500m" is invalid, must be an integer',
      ],
    ],
    ["batch/Job", object("Job", { template }), [`spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: ${archMessage}`]],
    [
      "batch/CronJob",
      object("CronJob", { schedule: "* * * * *", jobTemplate: { spec: { template } } }),
      [`spec.jobTemplate.spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: ${archMessage}`],
    ],
  ];
  for (const [key, target, expected] of templateCases) {
    it(`${key}: the pod template's warnings at its path, on create`, () => {
      assert.deepEqual(onCreate(KUBERNETES_PROFILE, key, target), expected);
    });
    it(`${key}: on update only when the generation changes`, () => {
      const old = { ...target, metadata: { ...target.metadata, generation: 1 } };
      const same = onUpdate(KUBERNETES_PROFILE, key, target, old);
      assert.deepEqual(
        same.filter((warning) => warning.includes("nodeSelector")),
        [],
      );
      const changed = { ...target, metadata: { ...target.metadata, generation: 2 } };
      assert.deepEqual(
        onUpdate(KUBERNETES_PROFILE, key, changed, old).filter((warning) => warning.includes("nodeSelector")),
        expected.filter((warning) => warning.includes("nodeSelector")),
      );
    });
  }

  it("AppArmor annotations warn in templates (pods have them turned into fields)", () => {
    const annotated = {
      metadata: { annotations: { "container.apparmor.security.beta.kubernetes.io/c": "runtime/default" } },
      spec: { containers: [container()] },
    };
    assert.deepEqual(onCreate(KUBERNETES_PROFILE, "apps/DaemonSet", object("DaemonSet", { template: annotated })), [
      'spec.template.metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: deprecated since v1.30; use the "appArmorProfile" field instead',
    ]);
    assert.deepEqual(onCreate(KUBERNETES_PROFILE, "/Pod", object("Pod", annotated.spec, annotated.metadata)), []);
  });

  it("workload names that are not DNS labels (create only)", () => {
    const long = "a".repeat(64);
    for (const key of ["apps/Deployment", "apps/ReplicaSet", "/ReplicationController", "batch/Job", "batch/CronJob"]) {
      const target = object("X", { template: { spec: { containers: [container()] } } }, { name: "web.v1" });
      assert.deepEqual(onCreate(KUBERNETES_PROFILE, key, target).slice(0, 1), [
        "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]",
      ]);
    }
    assert.deepEqual(onCreate(KUBERNETES_PROFILE, "apps/Deployment", object("Deployment", {}, { name: `${long}.b` })), [
      "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must be no more than 63 characters must not contain dots]",
    ]);
    assert.deepEqual(onCreate(KUBERNETES_PROFILE, "apps/DaemonSet", object("DaemonSet", {}, { name: "web.v1" })), []);
  });

  it("StatefulSet updates name the claim template's spec `Spec`, as kube does", () => {
    const target = object("StatefulSet", { volumeClaimTemplates: [{ spec: { resources: { limits: { storage: "1.5" } } } }] });
    assert.deepEqual(onUpdate(KUBERNETES_PROFILE, "apps/StatefulSet", target, target), [
      'spec.volumeClaimTemplates[0].Spec.resources.limits[storage]: fractional byte value "1500m" is invalid, must be an integer',
    ]);
  });

  it("Indexed Jobs too large to track, in the profile's product name", () => {
    const spec = { completionMode: "Indexed", completions: 100_001, parallelism: 10_001, template: { spec: { containers: [container()] } } };
    assert.deepEqual(onCreate(KUBERNETES_PROFILE, "batch/Job", object("Job", spec)), [
      "spec: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail",
    ]);
    assert.match(onCreate(ORCH_PROFILE, "batch/Job", object("Job", spec))[0] ?? "", /, orch might not be able/);
  });

  it("CronJob updates whose schedule keeps a TZ prefix", () => {
    const target = object("CronJob", { schedule: "CRON_TZ=UTC 0 * * * *", jobTemplate: { spec: { template: { spec: { containers: [container()] } } } } });
    assert.deepEqual(onUpdate(KUBERNETES_PROFILE, "batch/CronJob", target, target), [
      "cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details",
    ]);
  });

  it("PersistentVolumeClaim: beta storage class annotation, fractional storage (create and update)", () => {
    const claim = object(
      "PersistentVolumeClaim",
      { resources: { requests: { storage: "1.5" }, limits: { storage: "2Gi" } } },
      {
        annotations: { "volume.beta.kubernetes.io/storage-class": "fast" },
      },
    );
    const expected = [
      'metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead',
      'spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer',
    ];
    assert.deepEqual(onCreate(KUBERNETES_PROFILE, "/PersistentVolumeClaim", claim), expected);
    assert.deepEqual(onUpdate(KUBERNETES_PROFILE, "/PersistentVolumeClaim", claim, claim), expected);
  });

  it("PersistentVolume: beta storage class annotation, Recycle, deprecated node affinity labels", () => {
    const volume = object(
      "PersistentVolume",
      {
        persistentVolumeReclaimPolicy: "Recycle",
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: "beta.orch.io/os", operator: "In", values: ["linux"] }] }] } },
      },
      { annotations: { "volume.beta.orch.io/storage-class": "" } },
    );
    const expected = [
      'metadata.annotations[volume.beta.orch.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead',
      "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.",
      'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key: beta.orch.io/os is deprecated since v1.14; use "orch.io/os" instead',
    ];
    assert.deepEqual(onCreate(ORCH_PROFILE, "/PersistentVolume", volume), expected);
    assert.deepEqual(onUpdate(ORCH_PROFILE, "/PersistentVolume", volume, volume), expected);
  });

  it("Ingress: the class annotation, on create only", () => {
    const ingress = object("Ingress", {}, { annotations: { "kubernetes.io/ingress.class": "nginx" } });
    assert.deepEqual(onCreate(KUBERNETES_PROFILE, "networking/Ingress", ingress), [
      "annotation \"kubernetes.io/ingress.class\" is deprecated, please use 'spec.ingressClassName' instead",
    ]);
    assert.equal(kindWarnings(KUBERNETES_PROFILE).get("networking/Ingress")?.onUpdate, undefined);
    assert.deepEqual(onCreate(ORCH_PROFILE, "networking/Ingress", object("Ingress", {}, { annotations: { "orch.io/ingress.class": "nginx" } })), [
      "annotation \"orch.io/ingress.class\" is deprecated, please use 'spec.ingressClassName' instead",
    ]);
  });

  it("Service: the topology-aware-hints annotation", () => {
    const service = object("Service", {}, { annotations: { "service.kubernetes.io/topology-aware-hints": "auto" } });
    const expected = ["annotation service.kubernetes.io/topology-aware-hints is deprecated, please use service.kubernetes.io/topology-mode instead"];
    assert.deepEqual(onCreate(KUBERNETES_PROFILE, "/Service", service), expected);
    assert.deepEqual(onUpdate(KUBERNETES_PROFILE, "/Service", service, service), expected);
  });

  it("Node: removed config source and the unused external ID (labels are not checked)", () => {
    const node = object("Node", { configSource: { configMap: {} }, externalID: "i-1" }, { labels: { "beta.kubernetes.io/arch": "amd64" } });
    assert.deepEqual(onCreate(KUBERNETES_PROFILE, "/Node", node), [
      "spec.configSource: the feature is removed",
      "spec.externalID: this field is deprecated, and is unused by Kubernetes",
    ]);
  });

  it("RuntimeClass: deprecated labels in the scheduling node selector", () => {
    const runtimeClass = { ...object("RuntimeClass", {}), scheduling: { nodeSelector: { "failure-domain.beta.kubernetes.io/region": "r" } } } as ApiObject;
    const expected = ['scheduling.nodeSelector: deprecated since v1.17; use "topology.kubernetes.io/region" instead'];
    assert.deepEqual(onCreate(KUBERNETES_PROFILE, "node/RuntimeClass", runtimeClass), expected);
    assert.deepEqual(onUpdate(KUBERNETES_PROFILE, "node/RuntimeClass", runtimeClass, runtimeClass), expected);
  });
});

describe("fractionalBytes() prints kube's canonical quantity", () => {
  const cases: [unknown, string | undefined][] = [
    ["1Gi", undefined],
    ["0.5Gi", undefined],
    ["1500m", "1500m"],
    ["1.5", "1500m"],
    ["100m", "100m"],
    ["2000m", undefined],
    ["1.0000001", "1000000100n"],
    ["0.0015", "1500u"],
    ["1.5e0", "1500e-3"],
    ["0.0001Ki", "102400u"],
    [1.5, "1500m"],
    [2, undefined],
    ["nonsense", undefined],
  ];
  for (const [value, expected] of cases) {
    it(`${JSON.stringify(value)} → ${expected ?? "whole bytes"}`, () => {
      assert.equal(fractionalBytes(value), expected);
    });
  }
});
