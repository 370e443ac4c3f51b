// @kubernetes/client-node 1.x typed APIs for the catalogue's kinds: CoreV1Api and AppsV1Api in the
// orch profile (their groups carry no product name), plus BatchV1Api, and NetworkingV1Api and
// RbacAuthorizationV1Api, whose group names are kube's, under the kubernetes profile.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import * as k8s from "@kubernetes/client-node";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../src/api/profile.js";
import { useTestServer } from "./helpers/server.js";

const NAMESPACE = "default";
const LABELS = { app: "web" };
const template: k8s.V1PodTemplateSpec = {
  metadata: { labels: LABELS },
  spec: { containers: [{ name: "web", image: "nginx:1.25", ports: [{ containerPort: 80 }] }] },
};

function configFor(kubeconfig: string): k8s.KubeConfig {
  const config = new k8s.KubeConfig();
  config.loadFromString(kubeconfig);
  return config;
}

const mergePatch = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch);

describe("client-node typed APIs: CoreV1Api and AppsV1Api (orch profile)", () => {
  const server = useTestServer({ profile: ORCH_PROFILE, storageBackend: "memory" });
  let core: k8s.CoreV1Api;
  let apps: k8s.AppsV1Api;
  let batch: k8s.BatchV1Api;

  before(() => {
    const config = configFor(server().server.kubeconfig);
    core = config.makeApiClient(k8s.CoreV1Api);
    apps = config.makeApiClient(k8s.AppsV1Api);
    batch = config.makeApiClient(k8s.BatchV1Api);
  });

  it("AppsV1Api: a Deployment created, read with its defaults, listed, scaled, patched and deleted", async () => {
    const created = await apps.createNamespacedDeployment({
      namespace: NAMESPACE,
      body: { metadata: { name: "web" }, spec: { replicas: 2, selector: { matchLabels: LABELS }, template } },
    });
    assert.equal(created.spec?.strategy?.type, "RollingUpdate", "defaulted by the server, decoded by the typed model");
    assert.equal(created.spec?.template.spec?.containers[0]?.ports?.[0]?.protocol, "TCP");
    const read = await apps.readNamespacedDeployment({ namespace: NAMESPACE, name: "web" });
    assert.equal(read.metadata?.uid, created.metadata?.uid);
    assert.ok(read.metadata?.creationTimestamp instanceof Date);
    const listed = await apps.listNamespacedDeployment({ namespace: NAMESPACE, labelSelector: "" });
    assert.deepEqual(
      listed.items.map((item) => item.metadata?.name),
      ["web"],
    );
    const scale = await apps.readNamespacedDeploymentScale({ namespace: NAMESPACE, name: "web" });
    assert.equal(scale.spec?.replicas, 2);
    assert.equal(scale.status?.selector, "app=web");
    await apps.replaceNamespacedDeploymentScale({ namespace: NAMESPACE, name: "web", body: { ...scale, spec: { replicas: 4 } } });
    assert.equal((await apps.readNamespacedDeployment({ namespace: NAMESPACE, name: "web" })).spec?.replicas, 4);
    const patched = await apps.patchNamespacedDeployment({ namespace: NAMESPACE, name: "web", body: { metadata: { labels: { tier: "front" } } } }, mergePatch);
    assert.equal(patched.metadata?.labels?.["tier"], "front");
    await apps.deleteNamespacedDeployment({ namespace: NAMESPACE, name: "web" });
    await assert.rejects(
      apps.readNamespacedDeployment({ namespace: NAMESPACE, name: "web" }),
      (error: unknown) => error instanceof k8s.ApiException && error.code === 404,
    );
  });

  it("AppsV1Api: StatefulSet, DaemonSet and ReplicaSet round trips", async () => {
    await apps.createNamespacedStatefulSet({
      namespace: NAMESPACE,
      body: { metadata: { name: "db" }, spec: { serviceName: "db", selector: { matchLabels: LABELS }, template } },
    });
    await apps.createNamespacedDaemonSet({
      namespace: NAMESPACE,
      body: { metadata: { name: "agent" }, spec: { selector: { matchLabels: LABELS }, template } },
    });
    await apps.createNamespacedReplicaSet({ namespace: NAMESPACE, body: { metadata: { name: "rs" }, spec: { selector: { matchLabels: LABELS }, template } } });
    assert.equal((await apps.readNamespacedStatefulSet({ namespace: NAMESPACE, name: "db" })).spec?.podManagementPolicy, "OrderedReady");
    assert.equal((await apps.readNamespacedDaemonSet({ namespace: NAMESPACE, name: "agent" })).spec?.updateStrategy?.type, "RollingUpdate");
    assert.equal((await apps.readNamespacedReplicaSet({ namespace: NAMESPACE, name: "rs" })).spec?.replicas, 1);
  });

  it("CoreV1Api: a Pod starts Pending, is bound to a node, and its status is written; Services get a cluster IP type", async () => {
    const pod = await core.createNamespacedPod({ namespace: NAMESPACE, body: { metadata: { name: "p" }, spec: template.spec as k8s.V1PodSpec } });
    assert.equal(pod.status?.phase, "Pending");
    // The bootstrap LimitRange of `default` (the spec's Limits table) gives the container a 0.1 CPU request.
    assert.equal(pod.status?.qosClass, "Burstable");
    await core.createNamespacedPodBinding({ namespace: NAMESPACE, name: "p", body: { metadata: { name: "p" }, target: { kind: "Node", name: "node-1" } } });
    const bound = await core.readNamespacedPod({ namespace: NAMESPACE, name: "p" });
    assert.equal(bound.spec?.nodeName, "node-1");
    const running = await core.replaceNamespacedPodStatus({
      namespace: NAMESPACE,
      name: "p",
      body: { ...bound, status: { ...bound.status, phase: "Running", podIP: "10.0.0.9" } },
    });
    assert.equal(running.status?.podIP, "10.0.0.9");
    const service = await core.createNamespacedService({
      namespace: NAMESPACE,
      body: { metadata: { name: "web" }, spec: { selector: LABELS, ports: [{ port: 80 }] } },
    });
    assert.equal(service.spec?.type, "ClusterIP");
    assert.equal(service.spec?.ports?.[0]?.protocol, "TCP");
  });

  it("BatchV1Api: a Job and a CronJob", async () => {
    const jobSpec = { template: { spec: { restartPolicy: "Never", containers: [{ name: "run", image: "busybox:1.36" }] } } };
    const job = await batch.createNamespacedJob({ namespace: NAMESPACE, body: { metadata: { name: "once" }, spec: jobSpec } });
    assert.equal(job.spec?.backoffLimit, 6);
    const cron = await batch.createNamespacedCronJob({
      namespace: NAMESPACE,
      body: { metadata: { name: "nightly" }, spec: { schedule: "0 3 * * *", jobTemplate: { spec: jobSpec } } },
    });
    assert.equal(cron.spec?.concurrencyPolicy, "Allow");
    assert.deepEqual(
      (await batch.listNamespacedCronJob({ namespace: NAMESPACE })).items.map((item) => item.metadata?.name),
      ["nightly"],
    );
  });
});

describe("client-node typed APIs for groups named after kube: NetworkingV1Api, RbacAuthorizationV1Api (kubernetes profile)", () => {
  const server = useTestServer({ profile: KUBERNETES_PROFILE, storageBackend: "memory" });
  let networking: k8s.NetworkingV1Api;
  let rbac: k8s.RbacAuthorizationV1Api;

  before(() => {
    const config = configFor(server().server.kubeconfig);
    networking = config.makeApiClient(k8s.NetworkingV1Api);
    rbac = config.makeApiClient(k8s.RbacAuthorizationV1Api);
  });

  it("an Ingress with the v1 backend shape, and a Role with its binding", async () => {
    const ingress = await networking.createNamespacedIngress({
      namespace: NAMESPACE,
      body: {
        metadata: { name: "web" },
        spec: {
          rules: [
            { host: "web.example.com", http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "web", port: { number: 80 } } } }] } },
          ],
        },
      },
    });
    assert.equal(ingress.spec?.rules?.[0]?.http?.paths[0]?.backend.service?.port?.number, 80);
    await assert.rejects(
      networking.createNamespacedIngress({
        namespace: NAMESPACE,
        body: {
          metadata: { name: "bad" },
          spec: { rules: [{ http: { paths: [{ path: "/", backend: { service: { name: "web", port: { number: 80 } } } } as k8s.V1HTTPIngressPath] } }] },
        },
      }),
      (error: unknown) => error instanceof k8s.ApiException && error.code === 422 && String(error.body).includes("pathType"),
    );
    await rbac.createNamespacedRole({
      namespace: NAMESPACE,
      body: { metadata: { name: "reader" }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }] },
    });
    const binding = await rbac.createNamespacedRoleBinding({
      namespace: NAMESPACE,
      body: {
        metadata: { name: "reader" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" },
        subjects: [{ kind: "User", name: "alice", apiGroup: "rbac.authorization.k8s.io" }],
      },
    });
    assert.equal(binding.roleRef.name, "reader");
  });
});
