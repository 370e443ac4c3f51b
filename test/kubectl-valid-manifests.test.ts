// Real kubectl, oldest and newest, posting a broad set of VALID manifests (the fields real charts set on
// workloads, services, ingresses, autoscalers, budgets, policies, storage, CronJobs, StatefulSets with
// volume claim templates, admission policies, a CRD with CEL rules) in both product-name profiles:
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
`;
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
      const applied = await kubectl(["apply", "-n", "default", "-f", path]);
      assert.equal(applied.code, 0, applied.stderr);
      const mount = await kubectl(["get", "statefulset", "db", "-n", "default", "-o", "jsonpath={.spec.template.spec.containers[0].volumeMounts[0].name}"]);
      assert.equal(mount.stdout, "pgdata", mount.stderr);
    });
  });
}
