// Real kubectl, oldest and newest, posting a broad set of VALID manifests (the fields real charts set on
// workloads, services, ingresses, autoscalers, budgets, policies, storage, CronJobs, StatefulSets with
// volume claim templates, Jobs with pod failure policies, DaemonSets, quotas, limits, RBAC, leases,
// endpoints, a standalone pod, webhook configurations, PVs, a CSI driver, priority and runtime classes,
// flow control, namespaces, secrets of several types, every Service type, admission policies, a CRD with
// CEL rules) in both product-name profiles:
// every one must be accepted. Validation sweeps add refusals; this guards against refusing what kube accepts.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { apiGroup, KUBERNETES_PROFILE, ORCH_PROFILE, type Profile } from "../src/api/profile.js";
import { kubectlFor, resolveKubectl, type Kubectl } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";

function manifests(profile: Profile): string {
  const g = (prefix: string): string => apiGroup(profile, prefix);
  return `apiVersion: v1
kind: ConfigMap
metadata: {name: web-config}
data: {index.html: "hi"}
---
apiVersion: v1
kind: Secret
metadata: {name: web-secret}
type: Opaque
stringData: {token: abc}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable: 0}}
  template:
    metadata: {labels: {app: web, tier: frontend}}
    spec:
      securityContext: {runAsNonRoot: true, runAsUser: 101, fsGroup: 101, seccompProfile: {type: RuntimeDefault}, sysctls: [{name: net.ipv4.ip_local_port_range, value: "1024 65535"}]}
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/os, operator: In, values: [linux]}]}]
          preferredDuringSchedulingIgnoredDuringExecution: [{weight: 50, preference: {matchExpressions: [{key: zone, operator: Exists}]}}]
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}
      topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: web}}}]
      tolerations:
      - {key: dedicated, operator: Equal, value: web, effect: NoSchedule}
      - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 60}
      - {operator: Exists}
      nodeSelector: {kubernetes.io/arch: amd64}
      dnsPolicy: ClusterFirst
      dnsConfig: {options: [{name: ndots, value: "2"}]}
      hostAliases: [{ip: 10.1.2.3, hostnames: [foo.local]}]
      initContainers:
      - name: init
        image: busybox:1.36
        command: [sh, -c, "echo init"]
      - name: sidecar
        image: busybox:1.36
        restartPolicy: Always
        command: [sh, -c, "sleep 3600"]
      containers:
      - name: nginx
        image: nginx:1.25
        imagePullPolicy: IfNotPresent
        ports: [{name: http, containerPort: 8080, protocol: TCP}, {name: metrics, containerPort: 9090}]
        env:
        - {name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
        - {name: CPU_LIMIT, valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: 1m}}}
        - {name: TOKEN, valueFrom: {secretKeyRef: {name: web-secret, key: token, optional: true}}}
        envFrom: [{configMapRef: {name: web-config}, prefix: CFG_}]
        resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {cpu: 500m, memory: 128Mi}}
        readinessProbe: {httpGet: {path: /healthz, port: http, scheme: HTTP, httpHeaders: [{name: X-Probe, value: "1"}]}, periodSeconds: 5}
        livenessProbe: {tcpSocket: {port: 8080}, initialDelaySeconds: 10, failureThreshold: 3}
        startupProbe: {exec: {command: [cat, /tmp/ready]}, failureThreshold: 30, periodSeconds: 2}
        lifecycle: {preStop: {exec: {command: [sh, -c, "sleep 5"]}}}
        securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL], add: [NET_BIND_SERVICE]}}
        volumeMounts:
        - {name: html, mountPath: /usr/share/nginx/html, readOnly: true}
        - {name: cache, mountPath: /var/cache/nginx}
        - {name: token, mountPath: /var/run/token, subPath: token}
        - {name: podinfo, mountPath: /etc/podinfo}
        - {name: data, mountPath: /data, subPathExpr: $(POD_NAME)}
      volumes:
      - {name: html, configMap: {name: web-config, defaultMode: 0444, items: [{key: index.html, path: index.html, mode: 0400}]}}
      - {name: cache, emptyDir: {medium: Memory, sizeLimit: 64Mi}}
      - {name: token, secret: {secretName: web-secret, optional: true}}
      - name: podinfo
        projected:
          sources:
          - downwardAPI: {items: [{path: labels, fieldRef: {fieldPath: metadata.labels}}]}
          - serviceAccountToken: {path: sa-token, expirationSeconds: 3600, audience: api}
          - configMap: {name: web-config}
      - {name: data, hostPath: {path: /var/data, type: DirectoryOrCreate}}
      terminationGracePeriodSeconds: 30
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}, {name: metrics, port: 9090, targetPort: 9090}]
  sessionAffinity: ClientIP
  sessionAffinityConfig: {clientIP: {timeoutSeconds: 10800}}
---
apiVersion: v1
kind: Service
metadata: {name: web-lb}
spec:
  type: LoadBalancer
  selector: {app: web}
  ports: [{port: 443, targetPort: 8080}]
  loadBalancerSourceRanges: [10.0.0.0/8]
  externalTrafficPolicy: Local
---
apiVersion: ${g("networking")}/v1
kind: Ingress
metadata: {name: web}
spec:
  ingressClassName: nginx
  tls: [{hosts: [web.example.com], secretName: web-tls}]
  rules:
  - host: web.example.com
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}, {path: /api, pathType: Exact, backend: {service: {name: web, port: {number: 80}}}}]}
  - host: "*.example.org"
    http: {paths: [{path: /x, pathType: ImplementationSpecific, backend: {service: {name: web, port: {number: 80}}}}]}
---
apiVersion: ${g("networking")}/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: k8s.io/ingress-nginx, parameters: {apiGroup: k8s.example.com, kind: IngressParameters, name: external-lb, scope: Namespace, namespace: default}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}}
  - {type: Pods, pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: "100"}}}
  behavior:
    scaleDown: {stabilizationWindowSeconds: 300, policies: [{type: Percent, value: 50, periodSeconds: 60}], selectPolicy: Max}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {maxUnavailable: 25%, selector: {matchLabels: {app: web}}}
---
apiVersion: ${g("networking")}/v1
kind: NetworkPolicy
metadata: {name: web}
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Ingress, Egress]
  ingress: [{from: [{namespaceSelector: {matchExpressions: [{key: team, operator: In, values: [a, b]}]}}, {ipBlock: {cidr: 10.0.0.0/16, except: [10.0.1.0/24]}}], ports: [{port: http}, {port: 9090, protocol: TCP}]}]
  egress: [{to: [{podSelector: {}}], ports: [{port: 53, protocol: UDP}]}]
---
apiVersion: ${g("storage")}/v1
kind: StorageClass
metadata: {name: fast}
provisioner: ebs.csi.aws.com
parameters: {type: gp3}
reclaimPolicy: Delete
volumeBindingMode: WaitForFirstConsumer
allowVolumeExpansion: true
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec: {accessModes: [ReadWriteOnce], storageClassName: fast, resources: {requests: {storage: 1Gi}}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: report}
spec:
  schedule: "*/5 * * * *"
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      backoffLimit: 2
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: r, image: busybox:1.36, command: [date]}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 1
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres:16, ports: [{containerPort: 5432, name: pg}], volumeMounts: [{name: pgdata, mountPath: /var/lib/postgresql/data}]}]
  volumeClaimTemplates:
  - metadata: {name: pgdata}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: ${g("admissionregistration")}/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas-limit}
spec:
  failurePolicy: Fail
  matchConstraints: {resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]}
  validations: [{expression: "object.spec.replicas <= 50", message: too many, reason: Invalid}]
---
apiVersion: ${g("admissionregistration")}/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas-limit}
spec: {policyName: replicas-limit, validationActions: [Deny, Audit], matchResources: {namespaceSelector: {matchLabels: {env: prod}}}}
---
apiVersion: ${g("apiextensions")}/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd], categories: [all]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}, scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}
    additionalPrinterColumns: [{name: Size, type: integer, jsonPath: .spec.size}]
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations: [{rule: "self.size <= self.maxSize", message: "size too big", fieldPath: ".size", reason: FieldValueInvalid}]
            properties:
              size: {type: integer, minimum: 0, default: 1}
              maxSize: {type: integer, default: 10}
              replicas: {type: integer}
              mode: {type: string, enum: [a, b]}
              ports: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name], items: {type: object, required: [name], properties: {name: {type: string}, port: {type: integer, format: int32}}}}
              tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}
              target: {x-kubernetes-int-or-string: true}
              extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
              template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
          status:
            type: object
            properties: {replicas: {type: integer}}

---
apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  backoffLimit: 3
  completions: 3
  parallelism: 2
  completionMode: Indexed
  ttlSecondsAfterFinished: 600
  activeDeadlineSeconds: 600
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes: {containerName: m, operator: In, values: [42]}
    - action: Ignore
      onPodConditions: [{type: DisruptionTarget}]
  template:
    spec:
      restartPolicy: Never
      containers: [{name: m, image: busybox:1.36, command: [sh, -c, "exit 0"]}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1, maxSurge: 0}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      hostNetwork: true
      hostPID: true
      dnsPolicy: ClusterFirstWithHostNet
      priorityClassName: system-node-critical
      serviceAccountName: agent
      tolerations: [{operator: Exists}]
      containers:
      - name: agent
        image: agent:1
        ports: [{containerPort: 9100, hostPort: 9100, name: metrics}]
        securityContext: {privileged: true}
        volumeMounts: [{name: proc, mountPath: /host/proc, readOnly: true, mountPropagation: HostToContainer}]
      volumes: [{name: proc, hostPath: {path: /proc}}]
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: agent}
imagePullSecrets: [{name: regcred}]
automountServiceAccountToken: false
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: quota}
spec:
  hard: {requests.cpu: "10", requests.memory: 20Gi, limits.cpu: "20", pods: "50", count/deployments.apps: "10", requests.storage: 100Gi, persistentvolumeclaims: "10", services.loadbalancers: "2"}
---
apiVersion: v1
kind: LimitRange
metadata: {name: pvc-limits}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 256Mi}
    defaultRequest: {cpu: 100m, memory: 128Mi}
    max: {cpu: "2", memory: 2Gi}
    min: {cpu: 10m, memory: 16Mi}
    maxLimitRequestRatio: {cpu: "10"}
  - type: PersistentVolumeClaim
    max: {storage: 50Gi}
    min: {storage: 1Gi}
---
apiVersion: ${g("rbac.authorization")}/v1
kind: Role
metadata: {name: reader}
rules:
- apiGroups: ["", apps]
  resources: [pods, pods/log, deployments]
  verbs: [get, list, watch]
- apiGroups: [""]
  resources: [configmaps]
  resourceNames: [web-config]
  verbs: [get, update]
---
apiVersion: ${g("rbac.authorization")}/v1
kind: RoleBinding
metadata: {name: reader}
subjects: [{kind: ServiceAccount, name: agent, namespace: default}, {kind: User, name: alice, apiGroup: ${g("rbac.authorization")}}, {kind: Group, name: devs, apiGroup: ${g("rbac.authorization")}}]
roleRef: {kind: Role, name: reader, apiGroup: ${g("rbac.authorization")}}
---
apiVersion: ${g("coordination")}/v1
kind: Lease
metadata: {name: leader}
spec: {holderIdentity: pod-a, leaseDurationSeconds: 15, acquireTime: "2026-01-01T00:00:00.000000Z", renewTime: "2026-01-01T00:00:10.000000Z", leaseTransitions: 1}
---
apiVersion: v1
kind: Endpoints
metadata: {name: external-db}
subsets: [{addresses: [{ip: 10.1.2.3}, {ip: 192.168.0.10, hostname: db-0}], ports: [{name: pg, port: 5432, protocol: TCP}]}]
---
apiVersion: ${g("discovery")}/v1
kind: EndpointSlice
metadata: {name: external-db-1, labels: {kubernetes.io/service-name: external-db}}
addressType: IPv4
endpoints: [{addresses: [10.1.2.3], conditions: {ready: true, serving: true, terminating: false}, nodeName: node-1, zone: us-east-1a}]
ports: [{name: pg, port: 5432, protocol: TCP, appProtocol: postgresql}]
---
apiVersion: v1
kind: Pod
metadata: {name: standalone, annotations: {container.apparmor.security.beta.kubernetes.io/app: runtime/default}}
spec:
  restartPolicy: OnFailure
  shareProcessNamespace: true
  enableServiceLinks: false
  automountServiceAccountToken: false
  readinessGates: [{conditionType: example.com/ready}]
  os: {name: linux}
  containers:
  - name: app
    image: app:1
    stdin: true
    tty: true
    workingDir: /work
    resources: {requests: {cpu: "1", memory: 1Gi, ephemeral-storage: 1Gi}, limits: {cpu: "1", memory: 1Gi, nvidia.com/gpu: "1"}}
    lifecycle: {postStart: {httpGet: {path: /started, port: 8080}}, preStop: {sleep: {seconds: 5}}}
    securityContext: {runAsUser: 1000, runAsGroup: 3000, runAsNonRoot: true, seccompProfile: {type: Localhost, localhostProfile: profiles/app.json}}
  terminationGracePeriodSeconds: 60
---
apiVersion: ${g("admissionregistration")}/v1
kind: MutatingWebhookConfiguration
metadata: {name: inject}
webhooks:
- name: inject.example.com
  admissionReviewVersions: [v1, v1beta1]
  sideEffects: None
  failurePolicy: Ignore
  reinvocationPolicy: IfNeeded
  timeoutSeconds: 5
  matchPolicy: Equivalent
  namespaceSelector: {matchExpressions: [{key: inject, operator: NotIn, values: ["false"]}]}
  objectSelector: {matchLabels: {inject: "true"}}
  matchConditions: [{name: not-system, expression: "!request.userInfo.username.startsWith('system:')"}]
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods], scope: Namespaced}]
  clientConfig: {service: {namespace: default, name: injector, path: /mutate, port: 8443}}
---
apiVersion: ${g("admissionregistration")}/v1
kind: ValidatingWebhookConfiguration
metadata: {name: check}
webhooks:
- name: check.example.com
  admissionReviewVersions: [v1]
  sideEffects: NoneOnDryRun
  rules: [{apiGroups: ["*"], apiVersions: ["*"], operations: [CREATE, UPDATE], resources: ["*/*"]}, {apiGroups: [apps], apiVersions: [v1], operations: ["*"], resources: [deployments, deployments/scale]}]
  clientConfig: {url: "https://hooks.example.com:8443/validate"}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: nfs-pv}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteMany]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: nfs
  mountOptions: [hard, nfsvers=4.1]
  nfs: {server: 10.0.0.5, path: /exports/data}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: csi-pv}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce]
  volumeMode: Block
  claimRef: {namespace: default, name: data}
  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-123, fsType: ext4, volumeAttributes: {type: gp3}}
  nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: topology.ebs.csi.aws.com/zone, operator: In, values: [us-east-1a]}]}]}}
---
apiVersion: ${g("storage")}/v1
kind: CSIDriver
metadata: {name: ebs.csi.aws.com}
spec: {attachRequired: true, podInfoOnMount: false, fsGroupPolicy: File, volumeLifecycleModes: [Persistent], tokenRequests: [{audience: sts.amazonaws.com, expirationSeconds: 3600}], requiresRepublish: false}
---
apiVersion: ${g("scheduling")}/v1
kind: PriorityClass
metadata: {name: high}
value: 100000
preemptionPolicy: PreemptLowerPriority
description: high priority
---
apiVersion: ${g("node")}/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
overhead: {podFixed: {cpu: 100m, memory: 64Mi}}
scheduling: {nodeSelector: {runtime: gvisor}, tolerations: [{key: runtime, operator: Equal, value: gvisor, effect: NoSchedule}]}
---
apiVersion: ${g("flowcontrol.apiserver")}/v1
kind: PriorityLevelConfiguration
metadata: {name: batch}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 10
    lendablePercent: 50
    borrowingLimitPercent: 100
    limitResponse: {type: Queue, queuing: {queues: 16, handSize: 4, queueLengthLimit: 50}}
---
apiVersion: ${g("flowcontrol.apiserver")}/v1
kind: FlowSchema
metadata: {name: batch-jobs}
spec:
  priorityLevelConfiguration: {name: batch}
  matchingPrecedence: 1000
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: ServiceAccount, serviceAccount: {namespace: default, name: agent}}, {kind: Group, group: {name: batch-users}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"]}]
    nonResourceRules: [{verbs: [get], nonResourceURLs: [/healthz, "/metrics/*"]}]
---
apiVersion: v1
kind: Namespace
metadata: {name: team-a, labels: {team: a, pod-security.kubernetes.io/enforce: baseline}, annotations: {owner: a@example.com}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: bin}
binaryData: {blob: AAECAw==}
data: {"app.properties": "a=b", "config.yaml": "x: 1"}
immutable: true
---
apiVersion: v1
kind: Secret
metadata: {name: regcred}
type: kubernetes.io/dockerconfigjson
data: {.dockerconfigjson: eyJhdXRocyI6e319}
---
apiVersion: v1
kind: Secret
metadata: {name: basic}
type: kubernetes.io/basic-auth
stringData: {username: u, password: p}
---
apiVersion: v1
kind: Service
metadata: {name: ext}
spec: {type: ExternalName, externalName: db.example.com}
---
apiVersion: v1
kind: Service
metadata: {name: headless}
spec: {clusterIP: None, selector: {app: db}, ports: [{port: 5432, name: pg}], publishNotReadyAddresses: true}
---
apiVersion: v1
kind: Service
metadata: {name: np}
spec: {type: NodePort, selector: {app: web}, ports: [{port: 80, targetPort: 8080, nodePort: 30080, protocol: TCP, appProtocol: http}], ipFamilyPolicy: SingleStack, internalTrafficPolicy: Local}`;
}

for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
  describe(`valid manifests are accepted (${profile.name} profile)`, () => {
    const server = useTestServer({ profile });
    let path: string;
    before(() => {
      path = join(server().dataDir, "valid.yaml");
      writeFileSync(path, manifests(profile));
    });

    for (const version of ["oldest", "newest"] as const) {
      it(`kubectl ${resolveKubectl(version).version}: create --dry-run=server accepts every object`, async () => {
        const kubectl: Kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, version);
        const result = await kubectl(["create", "-n", "default", "--dry-run=server", "-f", path]);
        assert.equal(result.code, 0, result.stderr);
        const lines = result.stdout.trim().split("\n");
        assert.equal(lines.length, manifests(profile).split("\n---\n").length, result.stdout);
        for (const line of lines) assert.match(line, /created \(server dry run\)$/);
      });
    }

    it("kubectl (newest): apply stores them, and the StatefulSet keeps its claim-template mount", async () => {
      const kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, "newest");
      // Stored for real, the webhook configurations would send every later write to hosts that do not exist.
      const stored = join(server().dataDir, "stored.yaml");
      writeFileSync(
        stored,
        manifests(profile)
          .split("\n---\n")
          .filter((document) => !/^kind: (Mutating|Validating)WebhookConfiguration$/m.test(document))
          .join("\n---\n"),
      );
      const applied = await kubectl(["apply", "-n", "default", "-f", stored]);
      assert.equal(applied.code, 0, applied.stderr);
      const mount = await kubectl(["get", "statefulset", "db", "-n", "default", "-o", "jsonpath={.spec.template.spec.containers[0].volumeMounts[0].name}"]);
      assert.equal(mount.stdout, "pgdata", mount.stderr);
    });
  });
}
