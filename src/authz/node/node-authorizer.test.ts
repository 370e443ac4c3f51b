import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ApiObject } from "../../api/object.js";
import { controlledFreshness, memoryFeed } from "../../testing/memory-feed.js";
import type { Attributes } from "../authorizer.js";
import { nodeAuthorizer, nodeIdentity } from "./node-authorizer.js";
import { NodeGraph, podReferences } from "./node-graph.js";

function pod(namespace: string, name: string, node: string | undefined, spec: Record<string, unknown> = {}): ApiObject {
  return { kind: "Pod", metadata: { namespace, name }, spec: { ...(node === undefined ? {} : { nodeName: node }), ...spec } };
}

const WEB = pod("ns", "web", "n1", {
  serviceAccountName: "web-sa",
  imagePullSecrets: [{ name: "registry" }],
  containers: [
    {
      name: "c",
      env: [
        { name: "A", valueFrom: { secretKeyRef: { name: "env-secret", key: "k" } } },
        { name: "B", valueFrom: { configMapKeyRef: { name: "env-cm", key: "k" } } },
      ],
      envFrom: [{ configMapRef: { name: "envfrom-cm" } }],
    },
  ],
  volumes: [
    { name: "s", secret: { secretName: "vol-secret" } },
    { name: "c", configMap: { name: "vol-cm" } },
    { name: "d", persistentVolumeClaim: { claimName: "data" } },
    { name: "p", projected: { sources: [{ secret: { name: "proj-secret" } }, { configMap: { name: "proj-cm" } }] } },
  ],
});

function setup() {
  const pods = memoryFeed([
    WEB,
    pod("ns", "db", "n2", { volumes: [{ name: "s", secret: { secretName: "db-secret" } }] }),
    pod("ns", "pending", undefined, { volumes: [{ name: "s", secret: { secretName: "pending-secret" } }] }),
  ]);
  const claims = memoryFeed([
    { kind: "PersistentVolumeClaim", metadata: { namespace: "ns", name: "data" }, spec: { volumeName: "pv-data" } },
    { kind: "PersistentVolumeClaim", metadata: { namespace: "ns", name: "other" }, spec: { volumeName: "pv-other" } },
  ]);
  const freshness = controlledFreshness();
  const graph = new NodeGraph({ pods, persistentVolumeClaims: claims });
  return { pods, claims, freshness, authorizer: nodeAuthorizer(graph, freshness) };
}

const N1 = { name: "system:node:n1", groups: ["system:nodes", "system:authenticated"] };

function request(
  verb: string,
  resource: string,
  options: { namespace?: string; name?: string; subresource?: string; group?: string; fieldEquals?: Record<string, string> } = {},
): Attributes {
  return {
    kind: "resource",
    verb,
    group: options.group ?? "",
    namespace: options.namespace ?? "",
    resource,
    subresource: options.subresource ?? "",
    name: options.name ?? "",
    ...(options.fieldEquals === undefined ? {} : { fieldEquals: new Map(Object.entries(options.fieldEquals)) }),
  };
}

const ns = (verb: string, resource: string, name: string, subresource = ""): Attributes => request(verb, resource, { namespace: "ns", name, subresource });

/** The allowed/denied matrix for node n1. */
const MATRIX: readonly [string, Attributes, boolean][] = [
  ["gets its own Node", request("get", "nodes", { name: "n1" }), true],
  ["watches its own Node through a metadata.name field selector", request("watch", "nodes", { name: "n1" }), true],
  ["updates its own Node", request("update", "nodes", { name: "n1" }), true],
  ["patches its own Node's status", request("patch", "nodes", { name: "n1", subresource: "status" }), true],
  ["registers a Node (the name is NodeRestriction admission's check)", request("create", "nodes"), true],
  ["does not get another Node", request("get", "nodes", { name: "n2" }), false],
  ["does not update another Node's status", request("update", "nodes", { name: "n2", subresource: "status" }), false],
  ["does not list all Nodes", request("list", "nodes"), false],
  ["does not delete its own Node", request("delete", "nodes", { name: "n1" }), false],
  ["gets a pod bound to it", ns("get", "pods", "web"), true],
  ["updates the status of a pod bound to it", ns("update", "pods", "web", "status"), true],
  ["lists pods with spec.nodeName=<itself>", request("list", "pods", { fieldEquals: { "spec.nodeName": "n1" } }), true],
  ["watches pods with spec.nodeName=<itself>", request("watch", "pods", { fieldEquals: { "spec.nodeName": "n1" } }), true],
  ["does not list every pod", request("list", "pods"), false],
  ["does not list another node's pods", request("list", "pods", { fieldEquals: { "spec.nodeName": "n2" } }), false],
  ["does not get a pod bound elsewhere", ns("get", "pods", "db"), false],
  ["does not get an unscheduled pod", ns("get", "pods", "pending"), false],
  ["does not update a pod's spec", ns("update", "pods", "web"), false],
  ["does not delete a pod bound to it", ns("delete", "pods", "web"), false],
  ["reads a secret of a secret volume", ns("get", "secrets", "vol-secret"), true],
  ["reads an env secret", ns("get", "secrets", "env-secret"), true],
  ["reads an image pull secret", ns("get", "secrets", "registry"), true],
  ["reads a projected secret", ns("get", "secrets", "proj-secret"), true],
  ["watches one referenced secret", ns("watch", "secrets", "vol-secret"), true],
  ["does not read a secret of another node's pod", ns("get", "secrets", "db-secret"), false],
  ["does not read a secret of an unscheduled pod", ns("get", "secrets", "pending-secret"), false],
  ["does not list secrets", request("list", "secrets", { namespace: "ns" }), false],
  ["does not write a referenced secret", ns("update", "secrets", "vol-secret"), false],
  ["reads referenced config maps (env, envFrom, volume, projected)", ns("get", "configmaps", "envfrom-cm"), true],
  ["reads a volume config map", ns("get", "configmaps", "vol-cm"), true],
  ["does not read an unreferenced config map", ns("get", "configmaps", "elsewhere"), false],
  ["reads a referenced claim", ns("get", "persistentvolumeclaims", "data"), true],
  ["does not read another claim", ns("get", "persistentvolumeclaims", "other"), false],
  ["reads the volume bound to a referenced claim", request("get", "persistentvolumes", { name: "pv-data" }), true],
  ["does not read another volume", request("get", "persistentvolumes", { name: "pv-other" }), false],
  ["creates a token for its pod's service account", ns("create", "serviceaccounts", "web-sa", "token"), true],
  ["does not create a token for another service account", ns("create", "serviceaccounts", "default", "token"), false],
  ["has no say on other resources", ns("get", "services", "s"), false],
  ["has no say on other groups", request("get", "deployments", { namespace: "ns", name: "d", group: "apps" }), false],
];

describe("nodeAuthorizer()", () => {
  for (const [name, attributes, allowed] of MATRIX) {
    it(name, async () => {
      const { authorizer } = setup();
      const decision = await authorizer.authorize(N1, attributes);
      assert.equal(decision.kind, allowed ? "allow" : "no-opinion", decision.reason);
    });
  }

  it("has no opinion about users who are not nodes", async () => {
    const { authorizer } = setup();
    for (const user of [
      { name: "system:node:n1", groups: ["system:authenticated"] },
      { name: "n1", groups: ["system:nodes"] },
      { name: "jane", groups: [] },
    ]) {
      assert.equal((await authorizer.authorize(user, ns("get", "pods", "web"))).kind, "no-opinion");
    }
    assert.equal(nodeIdentity(N1), "n1");
    assert.equal(nodeIdentity({ name: "system:node:", groups: ["system:nodes"] }), undefined);
  });

  it("follows pods: a pod bound later grants its references, a pod moved away revokes them", async () => {
    const { pods, authorizer } = setup();
    pods.set(pod("ns", "pending", "n1", { volumes: [{ name: "s", secret: { secretName: "pending-secret" } }] }));
    assert.equal((await authorizer.authorize(N1, ns("get", "secrets", "pending-secret"))).kind, "allow");
    pods.delete("ns", "web");
    assert.equal((await authorizer.authorize(N1, ns("get", "secrets", "vol-secret"))).kind, "no-opinion");
    assert.equal((await authorizer.authorize(N1, ns("get", "pods", "web"))).kind, "no-opinion");
  });

  it("counts references per node: a secret stays readable while another pod on the node uses it", async () => {
    const { pods, authorizer } = setup();
    pods.set(pod("ns", "second", "n1", { volumes: [{ name: "s", secret: { secretName: "vol-secret" } }] }));
    pods.delete("ns", "web");
    assert.equal((await authorizer.authorize(N1, ns("get", "secrets", "vol-secret"))).kind, "allow");
  });

  it("waits for the feeds before refusing a relationship it has not seen yet", async () => {
    const { pods, freshness, authorizer } = setup();
    freshness.pending.push(() => pods.set(pod("ns", "late", "n1")));
    assert.equal((await authorizer.authorize(N1, ns("get", "pods", "late"))).kind, "allow");
    assert.equal(freshness.waits, 1);
  });

  it("podReferences() finds generic ephemeral volumes' claims", () => {
    assert.deepEqual(podReferences(pod("ns", "p", "n1", { volumes: [{ name: "scratch", ephemeral: { volumeClaimTemplate: {} } }] })), [
      { kind: "pvc", name: "p-scratch" },
    ]);
  });
});
