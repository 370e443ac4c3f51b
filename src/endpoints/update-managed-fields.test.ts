import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../api/profile.js";
import { inProcessServer } from "../testing/in-process.js";
import { KUBE_DEPLOYMENT_CREATE_FIELDS } from "../testing/kube-managed-fields.js";

/**
 * managedFields of Update operations (create, update, patch) as kube-apiserver writes them: the
 * set is the difference between the old and the new typed object (a create's old object is the
 * kind's empty typed one), so non-pointer structs (`spec`, `strategy`, `template`, a template's
 * `metadata` and `spec`) never carry `.`, while maps, list items and pointer structs
 * (`rollingUpdate`) that appear do. The expected FieldsV1 are real kube-apiserver outputs found in
 * public repositories (the Deployment by GoogleCloudConsole, the Pod by kubectl-run, the Service by
 * kubectl-client-side-apply less its annotation, the ConfigMap by kubectl-create), recreated with
 * the same objects.
 */

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

const NS = "/api/v1/namespaces/default";
const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
const MERGE = { "content-type": "application/merge-patch+json" };
const STRATEGIC = { "content-type": "application/strategic-merge-patch+json" };

function fieldsOf(object: Json, manager: string, subresource?: string): unknown {
  const entries = ((object["metadata"] as Json)["managedFields"] ?? []) as Json[];
  const found = entries.filter((entry) => entry["manager"] === manager && entry["subresource"] === subresource);
  assert.equal(found.length, 1, `one entry of ${manager}: ${JSON.stringify(entries)}`);
  assert.equal(found[0]?.["operation"], "Update");
  return found[0]?.["fieldsV1"];
}

async function settled(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("not settled");
}

const CONSOLE_DEPLOYMENT = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "crud", labels: { app: "crud" } },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: "crud" } },
    template: { metadata: { labels: { app: "crud" } }, spec: { containers: [{ name: "crud-sha256-1", image: "gcr.io/example/crud:1" }] } },
  },
};

describe("managedFields of Update operations, as kube writes them", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  it("a Deployment created by one Update: no `.` under spec, strategy, template or the template's metadata and spec", async () => {
    const created = await server.call("POST", `${DEPLOYMENTS}?fieldManager=GoogleCloudConsole`, { body: CONSOLE_DEPLOYMENT });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(fieldsOf(created.json, "GoogleCloudConsole"), KUBE_DEPLOYMENT_CREATE_FIELDS);
  });

  it("a Deployment updated: each writer owns what it changed; a pointer struct that appears gets `.`, a struct that always exists does not", async () => {
    const image = await server.call("PATCH", `${DEPLOYMENTS}/crud?fieldManager=kubectl-set`, {
      body: { spec: { template: { spec: { containers: [{ name: "crud-sha256-1", image: "gcr.io/example/crud:2" }] } } } },
      headers: STRATEGIC,
    });
    assert.equal(image.status, 200, image.text);
    assert.deepEqual(fieldsOf(image.json, "kubectl-set"), {
      "f:spec": { "f:template": { "f:spec": { "f:containers": { 'k:{"name":"crud-sha256-1"}': { "f:image": {} } } } } },
    });
    const edited = await server.call("PATCH", `${DEPLOYMENTS}/crud?fieldManager=kubectl-edit`, {
      body: {
        spec: {
          template: {
            metadata: { labels: { tier: "web" } },
            spec: { securityContext: { runAsNonRoot: true }, containers: [{ name: "crud-sha256-1", securityContext: { privileged: false } }] },
          },
        },
      },
      headers: STRATEGIC,
    });
    assert.equal(edited.status, 200, edited.text);
    assert.deepEqual(fieldsOf(edited.json, "kubectl-edit"), {
      "f:spec": {
        "f:template": {
          "f:metadata": { "f:labels": { "f:tier": {} } },
          "f:spec": {
            "f:containers": { 'k:{"name":"crud-sha256-1"}': { "f:securityContext": { ".": {}, "f:privileged": {} } } },
            "f:securityContext": { "f:runAsNonRoot": {} },
          },
        },
      },
    });
  });

  it("a status writer's entry has no `.` under status (the Deployment's status always exists)", async () => {
    const live = await server.call("GET", `${DEPLOYMENTS}/crud`);
    const status = {
      observedGeneration: 1,
      replicas: 3,
      conditions: [
        {
          type: "Available",
          status: "False",
          lastUpdateTime: "2024-05-01T10:00:00Z",
          lastTransitionTime: "2024-05-01T10:00:00Z",
          reason: "MinimumReplicasUnavailable",
          message: "Deployment does not have minimum availability.",
        },
      ],
    };
    const written = await server.call("PUT", `${DEPLOYMENTS}/crud/status?fieldManager=kube-controller-manager`, { body: { ...live.json, status } });
    assert.equal(written.status, 200, written.text);
    assert.deepEqual(fieldsOf(written.json, "kube-controller-manager", "status"), {
      "f:status": {
        "f:conditions": {
          ".": {},
          'k:{"type":"Available"}': {
            ".": {},
            "f:lastTransitionTime": {},
            "f:lastUpdateTime": {},
            "f:message": {},
            "f:reason": {},
            "f:status": {},
            "f:type": {},
          },
        },
        "f:observedGeneration": {},
        "f:replicas": {},
      },
    });
  });

  it("a Pod created as kubectl run sends it, then labelled", async () => {
    const created = await server.call("POST", `${NS}/pods?fieldManager=kubectl-run`, {
      body: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "kubia", labels: { run: "kubia" } },
        spec: {
          containers: [{ name: "kubia", image: "luksa/kubia", ports: [{ containerPort: 8080 }], resources: {} }],
          dnsPolicy: "ClusterFirst",
          restartPolicy: "Always",
        },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(fieldsOf(created.json, "kubectl-run"), {
      "f:metadata": { "f:labels": { ".": {}, "f:run": {} } },
      "f:spec": {
        "f:containers": {
          'k:{"name":"kubia"}': {
            ".": {},
            "f:image": {},
            "f:imagePullPolicy": {},
            "f:name": {},
            "f:ports": { ".": {}, 'k:{"containerPort":8080,"protocol":"TCP"}': { ".": {}, "f:containerPort": {}, "f:protocol": {} } },
            "f:resources": {},
            "f:terminationMessagePath": {},
            "f:terminationMessagePolicy": {},
          },
        },
        "f:dnsPolicy": {},
        "f:enableServiceLinks": {},
        "f:restartPolicy": {},
        "f:schedulerName": {},
        "f:securityContext": {},
        "f:terminationGracePeriodSeconds": {},
      },
    });
    const labelled = await server.call("PATCH", `${NS}/pods/kubia?fieldManager=kubectl-label`, {
      body: { metadata: { labels: { env: "dev" } } },
      headers: MERGE,
    });
    assert.equal(labelled.status, 200, labelled.text);
    assert.deepEqual(fieldsOf(labelled.json, "kubectl-label"), { "f:metadata": { "f:labels": { "f:env": {} } } });
  });

  it("a Service created, then given labels: the new labels map gets `.`, spec does not", async () => {
    const created = await server.call("POST", `${NS}/services?fieldManager=kubectl-create`, {
      body: {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "harvester-cluster-repo" },
        spec: { ports: [{ port: 80, protocol: "TCP", targetPort: 80 }], selector: { app: "harvester-cluster-repo" } },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(fieldsOf(created.json, "kubectl-create"), {
      "f:spec": {
        "f:internalTrafficPolicy": {},
        "f:ports": { ".": {}, 'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:port": {}, "f:protocol": {}, "f:targetPort": {} } },
        "f:selector": {},
        "f:sessionAffinity": {},
        "f:type": {},
      },
    });
    const put = await server.call("PUT", `${NS}/services/harvester-cluster-repo?fieldManager=kubectl-replace`, {
      body: { ...created.json, metadata: { ...(created.json["metadata"] as Json), labels: { tier: "repo" } } },
    });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(fieldsOf(put.json, "kubectl-replace"), { "f:metadata": { "f:labels": { ".": {}, "f:tier": {} } } });
  });

  it("a ConfigMap created by kubectl create, then updated", async () => {
    const created = await server.call("POST", `${NS}/configmaps?fieldManager=kubectl-create`, {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "redis-conf" }, data: { "redis.conf": "appendonly yes\n" } },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(fieldsOf(created.json, "kubectl-create"), { "f:data": { ".": {}, "f:redis.conf": {} } });
    const put = await server.call("PUT", `${NS}/configmaps/redis-conf?fieldManager=kubectl-edit`, {
      body: { ...created.json, data: { "redis.conf": "appendonly yes\n", extra: "1" } },
    });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(fieldsOf(put.json, "kubectl-edit"), { "f:data": { "f:extra": {} } });
  });

  it("a ReplicationController's template is a pointer struct: created whole, with `.` on it and every struct below it, its null creationTimestamp owned", async () => {
    // As kube writes an OpenShift DeploymentConfig (also a pointer template) created by kubectl-create.
    const created = await server.call("POST", `${NS}/replicationcontrollers?fieldManager=kubectl-create`, {
      body: {
        apiVersion: "v1",
        kind: "ReplicationController",
        metadata: { name: "rc" },
        spec: { replicas: 1, template: { metadata: { labels: { app: "rc" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
      },
    });
    assert.equal(created.status, 201, created.text);
    const spec = (fieldsOf(created.json, "kubectl-create") as Json)["f:spec"] as Json;
    assert.deepEqual(spec["f:template"], {
      ".": {},
      "f:metadata": { ".": {}, "f:creationTimestamp": {}, "f:labels": { ".": {}, "f:app": {} } },
      "f:spec": {
        ".": {},
        "f:containers": {
          ".": {},
          'k:{"name":"c"}': {
            ".": {},
            "f:image": {},
            "f:imagePullPolicy": {},
            "f:name": {},
            "f:resources": {},
            "f:terminationMessagePath": {},
            "f:terminationMessagePolicy": {},
          },
        },
        "f:dnsPolicy": {},
        "f:restartPolicy": {},
        "f:schedulerName": {},
        "f:securityContext": {},
        "f:terminationGracePeriodSeconds": {},
      },
    });
  });

  it("a custom resource created by an Update: its objects are unstructured, so `f:spec` gets `.` (and its status writer's `f:status`)", async () => {
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "memcacheds.cache.example.com" },
      spec: {
        group: "cache.example.com",
        scope: "Namespaced",
        names: { plural: "memcacheds", singular: "memcached", kind: "Memcached", listKind: "MemcachedList" },
        versions: [
          {
            name: "v1alpha1",
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: {
                  spec: { type: "object", properties: { size: { type: "integer" } } },
                  status: { type: "object", properties: { nodes: { type: "array", items: { type: "string" } } } },
                },
              },
            },
          },
        ],
      },
    };
    const made = await server.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { body: crd });
    assert.equal(made.status, 201, made.text);
    const path = "/apis/cache.example.com/v1alpha1/namespaces/default/memcacheds";
    await settled(async () => (await server.call("GET", path)).status === 200);
    const created = await server.call("POST", `${path}?fieldManager=kubectl`, {
      body: { apiVersion: "cache.example.com/v1alpha1", kind: "Memcached", metadata: { name: "memcached-sample" }, spec: { size: 3 } },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(fieldsOf(created.json, "kubectl"), { "f:spec": { ".": {}, "f:size": {} } });
    const status = await server.call("PUT", `${path}/memcached-sample/status?fieldManager=manager`, {
      body: { ...created.json, status: { nodes: ["a", "b"] } },
    });
    assert.equal(status.status, 200, status.text);
    assert.deepEqual(fieldsOf(status.json, "manager", "status"), { "f:status": { ".": {}, "f:nodes": {} } });
  });
});
