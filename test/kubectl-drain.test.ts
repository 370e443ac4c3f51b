// Pod eviction honouring PodDisruptionBudgets, driven by `kubectl drain` (the pinned newest kubectl).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../src/api/profile.js";
import { json, request, type Credentials } from "./helpers/http.js";
import { useTestServer } from "./helpers/server.js";

// The pods and lease name owners (a ReplicaSet, a Node) that are never created: without the
// garbage collector, as kube's collector would delete them as dangling dependents.

/** The pinned newest kubectl: its drain sends JSON evictions, so it works before protobuf request bodies do. */
const KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.33";

type Json = Record<string, unknown>;

function kubectl(kubeconfig: string, home: string, args: readonly string[], timeoutMs = 60_000): Promise<{ code: number; stdout: string; stderr: string }> {
  mkdirSync(home, { recursive: true });
  return new Promise((resolve) => {
    execFile(
      KUBECTL,
      ["--kubeconfig", kubeconfig, "--cache-dir", join(home, "kube-cache"), ...args],
      { timeout: timeoutMs, killSignal: "SIGKILL", env: { ...process.env, HOME: home } },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr }),
    );
  });
}

async function must(admin: Credentials, method: string, path: string, body?: unknown): Promise<Json> {
  const answer = await request(admin, method, path, body === undefined ? {} : { body });
  assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${answer.body}`);
  return json(answer);
}

const PODS = "/api/v1/namespaces/default/pods";

/** A ready pod on `node`, owned by a ReplicaSet (drain leaves unowned pods alone without --force). */
async function readyPod(admin: Credentials, name: string, node: string): Promise<void> {
  await must(admin, "POST", PODS, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      labels: { app: "web" },
      ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-rs", uid: "00000000-0000-0000-0000-000000000001", controller: true }],
    },
    spec: { nodeName: node, containers: [{ name: "c", image: "busybox:1.36" }] },
  });
  const pod = await must(admin, "GET", `${PODS}/${name}`);
  pod["status"] = { phase: "Running", conditions: [{ type: "Ready", status: "True" }] };
  await must(admin, "PUT", `${PODS}/${name}/status`, pod);
}

describe("pods/eviction and kubectl drain", { skip: !existsSync(KUBECTL) && `kubectl not found at ${KUBECTL}` }, () => {
  const server = useTestServer({ profile: ORCH_PROFILE, storageBackend: "memory", controllers: ["*", "-garbagecollector"] });

  it("drains a node: evicts while the budget allows, is refused with 429 when it is exhausted, finishes once it allows again", async () => {
    const admin = server().admin;
    const home = join(server().dataDir, "kubectl-home");
    const kubeconfig = server().server.kubeconfigPath;
    for (const node of ["n1", "n2"]) await must(admin, "POST", "/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: node } });
    await readyPod(admin, "web-1", "n1");
    await readyPod(admin, "web-2", "n1");
    await must(admin, "POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets", {
      apiVersion: "policy/v1",
      kind: "PodDisruptionBudget",
      metadata: { name: "web" },
      spec: { minAvailable: 1, selector: { matchLabels: { app: "web" } } },
    });

    // Two ready pods and minAvailable 1: one may go, the second eviction keeps being refused.
    const blocked = await kubectl(kubeconfig, home, ["drain", "n1", "--ignore-daemonsets", "--timeout=7s"]);
    assert.notEqual(blocked.code, 0, blocked.stdout);
    assert.match(blocked.stderr + blocked.stdout, /Cannot evict pod as it would violate the pod's disruption budget/);
    const left = json(await request(admin, "GET", `${PODS}?fieldSelector=spec.nodeName%3Dn1`))["items"] as Json[];
    assert.equal(left.length, 1, "exactly one pod was evicted");
    const node = json(await request(admin, "GET", "/api/v1/nodes/n1"));
    assert.equal((node["spec"] as Json)["unschedulable"], true, "drain cordoned the node");

    // A replacement becomes ready elsewhere: the budget allows one more disruption, and drain completes.
    await readyPod(admin, "web-3", "n2");
    const drained = await kubectl(kubeconfig, home, ["drain", "n1", "--ignore-daemonsets", "--timeout=30s"]);
    assert.equal(drained.code, 0, drained.stderr);
    assert.match(drained.stdout, /node\/n1 drained/);
    const remaining = json(await request(admin, "GET", `${PODS}?fieldSelector=spec.nodeName%3Dn1`))["items"] as Json[];
    assert.equal(remaining.length, 0);
  });

  it("answers the eviction API directly: 429 with the budget's numbers when exhausted, 201 and the pod gone otherwise", async () => {
    const admin = server().admin;
    // web-3 is the only ready pod left and the budget needs one: refused.
    const refused = await request(admin, "POST", `${PODS}/web-3/eviction`, {
      body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "web-3" } },
    });
    assert.equal(refused.status, 429, refused.body);
    const status = json(refused);
    assert.equal(status["reason"], "TooManyRequests");
    assert.deepEqual((status["details"] as Json)["causes"], [
      { reason: "DisruptionBudget", message: "The disruption budget web needs 1 healthy pods and has 1 currently" },
    ]);
    await must(admin, "DELETE", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/web");
    const allowed = await request(admin, "POST", `${PODS}/web-3/eviction`, {
      body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "web-3" } },
    });
    assert.equal(allowed.status, 201, allowed.body);
    assert.equal((await request(admin, "GET", `${PODS}/web-3`)).status, 404);
  });
});

describe("pods/eviction: kube's exemptions and refusals", { skip: !existsSync(KUBECTL) && `kubectl not found at ${KUBECTL}` }, () => {
  const server = useTestServer({ profile: ORCH_PROFILE, storageBackend: "memory", controllers: ["*", "-garbagecollector"] });
  const NS = "/api/v1/namespaces/ev";
  const owner = { apiVersion: "apps/v1", kind: "ReplicaSet", name: "ev-rs", uid: "00000000-0000-0000-0000-000000000003", controller: true };

  async function pod(admin: Credentials, name: string, labels: Record<string, string>, status?: Json): Promise<void> {
    await must(admin, "POST", `${NS}/pods`, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, labels, ownerReferences: [owner] },
      spec: { nodeName: "ev-node", containers: [{ name: "c", image: "busybox:1.36" }] },
    });
    if (status === undefined) return;
    const current = await must(admin, "GET", `${NS}/pods/${name}`);
    current["status"] = status;
    await must(admin, "PUT", `${NS}/pods/${name}/status`, current);
  }
  const budget = (name: string, app: string, extra: Json = {}) => ({
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name },
    spec: { minAvailable: 2, selector: { matchLabels: { app } }, ...extra },
  });
  const evict = (admin: Credentials, url: string, name: string) =>
    request(admin, "POST", `${NS}/pods/${url}/eviction`, { body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name } } });

  it("drains a node whose pods are all Pending although their budget allows no disruption (kube evicts pending pods without looking at budgets)", async () => {
    const admin = server().admin;
    await must(admin, "POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "ev" } });
    await must(admin, "POST", "/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: "ev-node" } });
    await pod(admin, "pending-1", { app: "pending" });
    await pod(admin, "pending-2", { app: "pending" });
    await must(admin, "POST", "/apis/policy/v1/namespaces/ev/poddisruptionbudgets", budget("pending", "pending"));
    const home = join(server().dataDir, "kubectl-home");
    const drained = await kubectl(server().server.kubeconfigPath, home, ["drain", "ev-node", "--ignore-daemonsets", "--timeout=20s"]);
    assert.equal(drained.code, 0, drained.stderr);
    assert.doesNotMatch(drained.stderr, /disruption budget/);
    const left = json(await request(admin, "GET", `${NS}/pods`))["items"] as Json[];
    assert.equal(left.length, 0);
  });

  it("answers an Eviction naming another pod 400, as kube checks the name first", async () => {
    const admin = server().admin;
    await pod(admin, "named", { app: "named" });
    const answer = await evict(admin, "named", "other");
    assert.equal(answer.status, 400, answer.body);
    assert.equal(json(answer)["message"], "name in URL does not match name in Eviction object");
    assert.equal((await request(admin, "GET", `${NS}/pods/named`)).status, 200, "the pod stays");
  });

  it("answers a running pod selected by two budgets with kube's 500: no reason, the message bare", async () => {
    const admin = server().admin;
    const ready = { phase: "Running", conditions: [{ type: "Ready", status: "True" }] };
    await pod(admin, "twice", { app: "twice" }, ready);
    await must(admin, "POST", "/apis/policy/v1/namespaces/ev/poddisruptionbudgets", budget("twice-a", "twice"));
    await must(admin, "POST", "/apis/policy/v1/namespaces/ev/poddisruptionbudgets", budget("twice-b", "twice"));
    const answer = await evict(admin, "twice", "twice");
    assert.equal(answer.status, 500, answer.body);
    const status = json(answer);
    assert.equal(status["message"], "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.");
    assert.equal(status["reason"], undefined);
  });

  it("evicts an unready running pod under an unmet budget only with unhealthyPodEvictionPolicy AlwaysAllow", async () => {
    const admin = server().admin;
    const unready = { phase: "Running", conditions: [{ type: "Ready", status: "False" }] };
    await pod(admin, "sick-1", { app: "sick" }, unready);
    await pod(admin, "sick-2", { app: "strict" }, unready);
    await must(admin, "POST", "/apis/policy/v1/namespaces/ev/poddisruptionbudgets", budget("sick", "sick", { unhealthyPodEvictionPolicy: "AlwaysAllow" }));
    await must(admin, "POST", "/apis/policy/v1/namespaces/ev/poddisruptionbudgets", budget("strict", "strict"));
    const refused = await evict(admin, "sick-2", "sick-2");
    assert.equal(refused.status, 429, refused.body);
    const allowed = await evict(admin, "sick-1", "sick-1");
    assert.equal(allowed.status, 201, allowed.body);
    assert.equal((await request(admin, "GET", `${NS}/pods/sick-1`)).status, 404);
  });

  it("marks the evicted pod DisruptionTarget (EvictionByEvictionAPI) before deleting it, and checks the Eviction's preconditions in kube's words", async () => {
    const admin = server().admin;
    await pod(admin, "kept", { app: "kept" });
    const held = await must(admin, "GET", `${NS}/pods/kept`);
    (held["metadata"] as Json)["finalizers"] = ["example.com/keep"];
    await must(admin, "PUT", `${NS}/pods/kept`, held);
    const uid = String((held["metadata"] as Json)["uid"]);
    const stale = await request(admin, "POST", `${NS}/pods/kept/eviction`, {
      body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "kept" }, deleteOptions: { preconditions: { uid: "not-the-uid" } } },
    });
    assert.equal(stale.status, 409, stale.body);
    assert.equal(
      json(stale)["message"],
      `Operation cannot be fulfilled on Pod "kept": the UID in the precondition (not-the-uid) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
    );
    const evicted = await request(admin, "POST", `${NS}/pods/kept/eviction`, {
      body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "kept" }, deleteOptions: { preconditions: { uid } } },
    });
    assert.equal(evicted.status, 201, evicted.body);
    // Its finalizer holds it, so what the eviction wrote can be read.
    const after = await must(admin, "GET", `${NS}/pods/kept`);
    assert.equal(typeof (after["metadata"] as Json)["deletionTimestamp"], "string");
    const conditions = ((after["status"] as Json)["conditions"] ?? []) as Json[];
    const target = conditions.find((condition) => condition["type"] === "DisruptionTarget");
    assert.deepEqual(
      { ...target, lastTransitionTime: typeof target?.["lastTransitionTime"] },
      // PodCondition's lastProbeTime is a non-pointer metav1.Time: kube writes its zero as null.
      {
        type: "DisruptionTarget",
        status: "True",
        reason: "EvictionByEvictionAPI",
        message: "Eviction API: evicting",
        lastProbeTime: null,
        lastTransitionTime: "string",
      },
    );
  });

  it("gives a new budget kube's zero counts before anything has computed them", async () => {
    const created = json(await request(server().admin, "GET", "/apis/policy/v1/namespaces/ev/poddisruptionbudgets/strict"));
    assert.deepEqual(created["status"], { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
  });
});

describe("node heartbeats: node-lease Leases in kubectl describe node", { skip: !existsSync(KUBECTL) && `kubectl not found at ${KUBECTL}` }, () => {
  // kubectl reads the lease from kube's node-lease namespace and coordination group, so this is the kubernetes profile.
  const server = useTestServer({ profile: KUBERNETES_PROFILE, storageBackend: "memory", controllers: ["*", "-garbagecollector"] });

  it("shows the node's lease holder and renew time, with the lease created by PUT as a kubelet does", async () => {
    const admin = server().admin;
    await must(admin, "POST", "/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: "n1" } });
    const renewed = "2024-05-01T10:00:00.000000Z";
    const lease = await request(admin, "PUT", `/apis/coordination.k8s.io/v1/namespaces/${KUBERNETES_PROFILE.nodeLeaseNamespace}/leases/n1`, {
      body: {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name: "n1", ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "n1", uid: "00000000-0000-0000-0000-000000000002" }] },
        spec: { holderIdentity: "n1", leaseDurationSeconds: 40, renewTime: renewed },
      },
    });
    assert.equal(lease.status, 201, lease.body);
    const described = await kubectl(server().server.kubeconfigPath, join(server().dataDir, "kubectl-home"), ["describe", "node", "n1"]);
    assert.equal(described.code, 0, described.stderr);
    assert.match(described.stdout, /Lease:\s*\n\s+HolderIdentity:\s+n1\n/);
    assert.match(described.stdout, /RenewTime:\s+Wed, 01 May 2024 10:00:00 \+0000/);
  });
});
