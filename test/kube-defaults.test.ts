// kube 1.30's defaulters (SetDefaults_* and `+default` markers) as real kubectl reads them back, in
// both product profiles: objects created with `kubectl create -f`, then `kubectl get -o json`; the
// same manifest through `create --dry-run=server -o json` answers the same defaults.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { apiGroup, KUBERNETES_PROFILE, ORCH_PROFILE, type Profile } from "../src/api/profile.js";
import { kubectlFor, ok } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";

type Json = Record<string, unknown>;

/** One object of the manifest: its YAML, what `kubectl get` names it by, and the paths checked (undefined: absent). */
interface Case {
  readonly resource: string;
  readonly name: string;
  readonly yaml: string;
  readonly expected: Readonly<Record<string, unknown>>;
}

function at(value: unknown, dotted: string): unknown {
  let current = value;
  for (const part of dotted.split(".")) {
    if (Array.isArray(current)) current = current[Number(part)];
    else if (typeof current === "object" && current !== null) current = (current as Json)[part];
    else return undefined;
  }
  return current;
}

const POD_SPEC = `      restartPolicy: Never
      containers: [{name: c, image: busybox:1.36}]`;

function cases(profile: Profile, suffix: string): Case[] {
  return [
    {
      resource: "cronjob",
      name: `nightly-${suffix}`,
      yaml: `apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly-${suffix}}
spec:
  schedule: "@daily"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox:1.36}]`,
      expected: {
        "spec.concurrencyPolicy": "Allow",
        "spec.suspend": false,
        "spec.successfulJobsHistoryLimit": 3,
        "spec.failedJobsHistoryLimit": 1,
        // SetDefaults_Job is the Job's: the template keeps what was sent, but its pod spec is defaulted.
        "spec.jobTemplate.spec.backoffLimit": undefined,
        "spec.jobTemplate.spec.completions": undefined,
        "spec.jobTemplate.spec.parallelism": undefined,
        "spec.jobTemplate.spec.completionMode": undefined,
        "spec.jobTemplate.spec.suspend": undefined,
        "spec.jobTemplate.spec.podReplacementPolicy": undefined,
        "spec.jobTemplate.spec.manualSelector": undefined,
        "spec.jobTemplate.spec.template.spec.dnsPolicy": "ClusterFirst",
      },
    },
    {
      resource: "job",
      name: `indexed-${suffix}`,
      yaml: `apiVersion: batch/v1
kind: Job
metadata: {name: indexed-${suffix}}
spec:
  completions: 3
  completionMode: Indexed
  backoffLimitPerIndex: 1
  template:
    spec:
${POD_SPEC}`,
      expected: {
        "spec.backoffLimit": 2147483647,
        "spec.parallelism": 1,
        "spec.suspend": false,
        "spec.manualSelector": false,
        "spec.podReplacementPolicy": "TerminatingOrFailed",
      },
    },
    {
      resource: "job",
      name: `plain-${suffix}`,
      yaml: `apiVersion: batch/v1
kind: Job
metadata: {name: plain-${suffix}}
spec:
  template:
    spec:
${POD_SPEC}`,
      expected: { "spec.backoffLimit": 6, "spec.completions": 1, "spec.parallelism": 1, "spec.completionMode": "NonIndexed" },
    },
    {
      resource: "pod",
      name: `cache-${suffix}`,
      yaml: `apiVersion: v1
kind: Pod
metadata: {name: cache-${suffix}}
spec:
  volumes: [{name: cache}, {name: disk, azureDisk: {diskName: d, diskURI: u}}]
  containers:
  - name: c
    image: busybox:1.36
    volumeMounts: [{name: cache, mountPath: /cache}]
    livenessProbe: {grpc: {port: 9000}}`,
      expected: {
        "spec.volumes.0": { name: "cache", emptyDir: {} },
        "spec.volumes.1.azureDisk": { diskName: "d", diskURI: "u", cachingMode: "ReadWrite", fsType: "ext4", kind: "Shared", readOnly: false },
        "spec.containers.0.livenessProbe.grpc": { port: 9000, service: "" },
      },
    },
    {
      resource: "endpointslice",
      name: `manual-${suffix}`,
      yaml: `apiVersion: ${apiGroup(profile, "discovery")}/v1
kind: EndpointSlice
metadata: {name: manual-${suffix}}
addressType: IPv4
endpoints: [{addresses: ["10.0.0.1"]}]
ports: [{port: 80}]`,
      expected: { ports: [{ name: "", port: 80, protocol: "TCP" }] },
    },
    {
      resource: "networkpolicy",
      name: `deny-${suffix}`,
      yaml: `apiVersion: ${apiGroup(profile, "networking")}/v1
kind: NetworkPolicy
metadata: {name: deny-${suffix}}`,
      expected: { spec: { podSelector: {}, policyTypes: ["Ingress"] } },
    },
    {
      resource: "ingressclass",
      name: `external-${suffix}`,
      yaml: `apiVersion: ${apiGroup(profile, "networking")}/v1
kind: IngressClass
metadata: {name: external-${suffix}}
spec:
  controller: example.com/ingress
  parameters: {apiGroup: example.com, kind: Params, name: p}`,
      expected: { "spec.parameters": { apiGroup: "example.com", kind: "Params", name: "p", scope: "Cluster" } },
    },
    {
      resource: "hpa",
      name: `web-${suffix}`,
      yaml: `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web-${suffix}}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 3
  metrics: []`,
      expected: {
        "spec.minReplicas": 1,
        "spec.metrics": [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }],
      },
    },
    {
      resource: "csidriver",
      name: `csi${suffix}.example.com`,
      yaml: `apiVersion: ${apiGroup(profile, "storage")}/v1
kind: CSIDriver
metadata: {name: csi${suffix}.example.com}
spec:
  volumeLifecycleModes: []`,
      expected: { "spec.volumeLifecycleModes": ["Persistent"], "spec.attachRequired": true, "spec.fsGroupPolicy": "ReadWriteOnceWithFSType" },
    },
    {
      resource: "customresourcedefinition",
      name: `widgets${suffix}.example.com`,
      yaml: `apiVersion: ${apiGroup(profile, "apiextensions")}/v1
kind: CustomResourceDefinition
metadata: {name: widgets${suffix}.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets${suffix}, kind: Widget${suffix}}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: ["v1"]
      clientConfig: {service: {name: conv, namespace: default}}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}`,
      expected: {
        "spec.conversion.webhook.clientConfig.service": { name: "conv", namespace: "default", port: 443 },
        "spec.names.singular": `widget${suffix}`,
        "spec.names.listKind": `Widget${suffix}List`,
      },
    },
  ];
}

function check(object: unknown, expected: Readonly<Record<string, unknown>>, what: string): void {
  for (const [path, value] of Object.entries(expected)) assert.deepEqual(at(object, path), value, `${what}: ${path}`);
}

for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
  describe(`kube 1.30's defaults as kubectl reads them (${profile.name} profile)`, () => {
    const server = useTestServer({ profile, storageBackend: "memory" });

    for (const version of ["1.27", "1.33"] as const) {
      it(`kubectl ${version}: create --dry-run=server, create and get -o json show kube's defaults`, async () => {
        const kubectl = kubectlFor(server().server.kubeconfigPath, join(server().dataDir, `kubectl-${version}`), version);
        const suffix = version.replace(".", "");
        const objects = cases(profile, suffix);
        const file = join(server().dataDir, `defaults-${suffix}.yaml`);
        writeFileSync(file, objects.map((item) => item.yaml).join("\n---\n"));

        // kubectl prints one JSON document per object, one after the other.
        const printed = ok(await kubectl(["create", "--dry-run=server", "-o", "json", "-f", file]));
        const items = printed
          .trim()
          .split(/\n\}\n(?=\{)/)
          .map((text, index, all) => JSON.parse(index < all.length - 1 ? `${text}\n}` : text) as Json);
        assert.equal(items.length, objects.length);
        objects.forEach((item, index) => check(items[index], item.expected, `dry run ${item.resource}/${item.name}`));

        ok(await kubectl(["create", "-f", file]));
        for (const item of objects) {
          const stored = JSON.parse(ok(await kubectl(["get", item.resource, item.name, "-o", "json"]))) as Json;
          check(stored, item.expected, `${item.resource}/${item.name}`);
        }

        // A load balancer's controller reports its address: kube's SetDefaults_Service gives it ipMode VIP.
        const edge = `edge-${suffix}`;
        ok(await kubectl(["create", "service", "loadbalancer", edge, "--tcp=80:8080"]));
        const status = JSON.stringify({ status: { loadBalancer: { ingress: [{ ip: "203.0.113.7" }, { hostname: "lb.example.com" }] } } });
        ok(await kubectl(["patch", "service", edge, "--subresource=status", "--type=merge", "-p", status]));
        const service = JSON.parse(ok(await kubectl(["get", "service", edge, "-o", "json"]))) as Json;
        check(service, { "status.loadBalancer.ingress": [{ ip: "203.0.113.7", ipMode: "VIP" }, { hostname: "lb.example.com" }] }, edge);

        // `kubectl autoscale` without --cpu-percent (1.27 posts autoscaling/v1): kube's stored v2 scales on 80% CPU.
        const app = `app-${suffix}`;
        ok(await kubectl(["create", "deployment", app, "--image=busybox:1.36"]));
        ok(await kubectl(["autoscale", "deployment", app, "--max=3"]));
        const v1 = JSON.parse(ok(await kubectl(["get", "horizontalpodautoscalers.v1.autoscaling", app, "-o", "json"]))) as Json;
        check(v1, { "spec.targetCPUUtilizationPercentage": 80, "spec.minReplicas": 1 }, `${app} (v1)`);
        const v2 = JSON.parse(ok(await kubectl(["get", "horizontalpodautoscalers.v2.autoscaling", app, "-o", "json"]))) as Json;
        check(
          v2,
          { "spec.metrics": [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }] },
          `${app} (v2)`,
        );
      });
    }
  });
}
