// The Debian `python3-kubernetes` client (installed by scripts/install-test-deps.sh) against a
// running server, with the system /usr/bin/python3 and the admin kubeconfig the server writes:
// basic ConfigMap CRUD, and `watch.Watch().stream(v1.list_namespaced_config_map, …)` — which
// sends `?watch=True`, a spelling the server once answered with a list, so the watch saw nothing.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { configMap, request } from "./helpers/http.js";
import { apiGroup, ORCH_PROFILE } from "../src/api/profile.js";
import { useTestServer } from "./helpers/server.js";

const PYTHON = "/usr/bin/python3";
const NAMESPACE = "default";

/** Creates, reads, lists and deletes a ConfigMap; prints one JSON line per step. */
const CRUD_SCRIPT = `
import json, sys
from kubernetes import client, config
config.load_kube_config(config_file=sys.argv[1])
v1 = client.CoreV1Api()
namespace, name = sys.argv[2], sys.argv[3]
def say(**fields):
    print(json.dumps(fields), flush=True)
body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels={"from": "python"}), data={"greeting": "hello"})
created = v1.create_namespaced_config_map(namespace, body)
say(step="created", name=created.metadata.name, uid=created.metadata.uid, resourceVersion=created.metadata.resource_version)
got = v1.read_namespaced_config_map(name, namespace)
say(step="got", name=got.metadata.name, data=got.data, labels=got.metadata.labels)
listed = v1.list_namespaced_config_map(namespace, label_selector="from=python")
say(step="listed", names=[item.metadata.name for item in listed.items], resourceVersion=listed.metadata.resource_version)
status = v1.delete_namespaced_config_map(name, namespace)
say(step="deleted", status=status.status)
`;

/**
 * Lists, prints LISTED, then watches from the list's version and prints each event as
 * "TYPE name value" until it sees the DELETED event of the object named in argv[3].
 */
const WATCH_SCRIPT = `
import sys
from kubernetes import client, config, watch
config.load_kube_config(config_file=sys.argv[1])
v1 = client.CoreV1Api()
namespace, last = sys.argv[2], sys.argv[3]
listed = v1.list_namespaced_config_map(namespace)
print("LISTED", listed.metadata.resource_version, flush=True)
w = watch.Watch()
for event in w.stream(v1.list_namespaced_config_map, namespace, resource_version=listed.metadata.resource_version, timeout_seconds=30):
    item = event["object"]
    print(event["type"], item.metadata.name, (item.data or {}).get("value", "-"), flush=True)
    if event["type"] == "DELETED" and item.metadata.name == last:
        w.stop()
print("END", flush=True)
`;

/**
 * The workload calls of the Python client's typed APIs: a Deployment and a ReplicaSet it owns (as
 * a deployment controller would make), a watch of ReplicaSets, the scale sub-resource, the status
 * sub-resources of every workload kind (the client refuses a status without the counts kube
 * always writes: a ReplicaSet's `replicas`, a DaemonSet's four, an HPA's two, a budget's four),
 * and a Foreground delete. One JSON line per step.
 */
const WORKLOAD_SCRIPT = `
import json, sys
from kubernetes import client, config, watch
config.load_kube_config(config_file=sys.argv[1])
apps, auto, policy = client.AppsV1Api(), client.AutoscalingV1Api(), client.PolicyV1Api()
ns = sys.argv[2]
def say(**fields):
    print(json.dumps(fields), flush=True)
labels = {"app": "py"}
selector = client.V1LabelSelector(match_labels=labels)
template = client.V1PodTemplateSpec(metadata=client.V1ObjectMeta(labels=labels), spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx")]))
d = apps.create_namespaced_deployment(ns, client.V1Deployment(metadata=client.V1ObjectMeta(name="py"), spec=client.V1DeploymentSpec(replicas=1, selector=selector, template=template)))
ref = client.V1OwnerReference(api_version="apps/v1", kind="Deployment", name="py", uid=d.metadata.uid, controller=True, block_owner_deletion=True)
rs = apps.create_namespaced_replica_set(ns, client.V1ReplicaSet(metadata=client.V1ObjectMeta(name="py-1", labels=labels, owner_references=[ref]), spec=client.V1ReplicaSetSpec(replicas=1, selector=selector, template=template)))
say(step="replicaset", replicas=rs.status.replicas)
seen = [(e["type"], e["object"].metadata.name) for e in watch.Watch().stream(apps.list_namespaced_replica_set, ns, timeout_seconds=1)]
say(step="watched", events=seen)
scale = apps.patch_namespaced_deployment_scale("py", ns, {"spec": {"replicas": 3}})
say(step="scaled", replicas=scale.spec.replicas, read=apps.read_namespaced_deployment_scale("py", ns).spec.replicas)
sts = apps.create_namespaced_stateful_set(ns, client.V1StatefulSet(metadata=client.V1ObjectMeta(name="py"), spec=client.V1StatefulSetSpec(service_name="py", selector=selector, template=template)))
ds = apps.create_namespaced_daemon_set(ns, client.V1DaemonSet(metadata=client.V1ObjectMeta(name="py"), spec=client.V1DaemonSetSpec(selector=selector, template=template)))
hpa = auto.create_namespaced_horizontal_pod_autoscaler(ns, client.V1HorizontalPodAutoscaler(metadata=client.V1ObjectMeta(name="py"), spec=client.V1HorizontalPodAutoscalerSpec(max_replicas=3, scale_target_ref=client.V1CrossVersionObjectReference(api_version="apps/v1", kind="Deployment", name="py"))))
pdb = policy.create_namespaced_pod_disruption_budget(ns, client.V1PodDisruptionBudget(metadata=client.V1ObjectMeta(name="py"), spec=client.V1PodDisruptionBudgetSpec(min_available=1, selector=selector)))
say(step="statuses",
    deployment=apps.read_namespaced_deployment_status("py", ns).spec.replicas,
    replicaset=apps.read_namespaced_replica_set_status("py-1", ns).status.replicas,
    statefulset=apps.read_namespaced_stateful_set_status("py", ns).status.replicas,
    daemonset=apps.read_namespaced_daemon_set_status("py", ns).status.number_ready,
    hpa=[auto.read_namespaced_horizontal_pod_autoscaler_status("py", ns).status.current_replicas, hpa.status.desired_replicas],
    pdb=policy.read_namespaced_pod_disruption_budget_status("py", ns).status.disruptions_allowed)
deleted = apps.delete_namespaced_deployment("py", ns, propagation_policy="Foreground")
# The typed API reads the answer as a V1Status; kube sends the Deployment being deleted (200).
say(step="deleted", kind=deleted.kind)
`;

/**
 * Deeper calls of the typed APIs, one JSON line each: a custom object patched with a dict and with
 * a list (the client's CustomObjectsApi sends merge-patch for both), a pod bound through
 * `create_namespaced_pod_binding` (kube answers a Status, which the client cannot read as the
 * V1Binding it expects: a ValueError about `target`, though the pod is bound), the pod proxy and
 * log of pods no kubelet runs, a field-selected list across namespaces, a pod status written with
 * part of a container's, `list_node()` with a node written with part of its `nodeInfo`, and
 * `delete_collection_*` with a label selector.
 */
const DEEP_SCRIPT = `
import json, sys, time
from kubernetes import client, config
from kubernetes.client.rest import ApiException
config.load_kube_config(config_file=sys.argv[1])
v1, custom = client.CoreV1Api(), client.CustomObjectsApi()
ns, apiextensions = sys.argv[2], sys.argv[3]
def say(**fields):
    print(json.dumps(fields), flush=True)
def failure(call):
    try:
        call()
        return None
    except ApiException as e:
        return [e.status, json.loads(e.body)["message"]]
schema = {"type": "object", "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}
custom.create_cluster_custom_object(apiextensions, "v1", "customresourcedefinitions", {
    "apiVersion": apiextensions + "/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "gadgets.deep.example.com"},
    "spec": {"group": "deep.example.com", "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}]}})
for _ in range(250):
    crd = custom.get_cluster_custom_object(apiextensions, "v1", "customresourcedefinitions", "gadgets.deep.example.com")
    if any(c["type"] == "Established" and c["status"] == "True" for c in crd.get("status", {}).get("conditions", [])):
        break
    time.sleep(0.02)
args = ("deep.example.com", "v1", ns, "gadgets")
custom.create_namespaced_custom_object(*args, {"apiVersion": "deep.example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"a": 1}})
merged = custom.patch_namespaced_custom_object(*args, "g", {"spec": {"b": 2}})
say(step="merged", spec=merged["spec"])
say(step="list-as-merge-patch", error=failure(lambda: custom.patch_namespaced_custom_object(*args, "g", [{"op": "add", "path": "/spec/c", "value": 3}])))
for name in ("deep-pending", "deep-bound"):
    v1.create_namespaced_pod(ns, {"metadata": {"name": name, "labels": {"deep": "yes"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
try:
    v1.create_namespaced_pod_binding("deep-bound", ns, client.V1Binding(metadata=client.V1ObjectMeta(name="deep-bound"), target=client.V1ObjectReference(kind="Node", name="deep-node")))
    binding = "read"
except ValueError as e:
    binding = str(e)
say(step="bound", error=binding, node=v1.read_namespaced_pod("deep-bound", ns).spec.node_name)
say(step="proxy", pending=failure(lambda: v1.connect_get_namespaced_pod_proxy("deep-pending", ns)), bound=failure(lambda: v1.connect_get_namespaced_pod_proxy_with_path("deep-bound", ns, "healthz")))
say(step="log", text=v1.read_namespaced_pod_log("deep-pending", ns), bound=failure(lambda: v1.read_namespaced_pod_log("deep-bound", ns)))
say(step="selected", names=[p.metadata.name for p in v1.list_pod_for_all_namespaces(field_selector="spec.nodeName=deep-node").items])
v1.patch_namespaced_pod_status("deep-bound", ns, {"status": {"phase": "Running", "containerStatuses": [{"name": "c", "ready": True}]}})
running = v1.read_namespaced_pod("deep-bound", ns).status.container_statuses[0]
say(step="container-status", ready=running.ready, image=running.image, restarts=running.restart_count)
v1.create_node({"metadata": {"name": "deep-partial"}, "status": {"nodeInfo": {"kubeletVersion": "v1.30.0"}}})
node = [n for n in v1.list_node().items if n.metadata.name == "deep-partial"][0]
say(step="node", kubelet=node.status.node_info.kubelet_version, architecture=node.status.node_info.architecture, port=node.status.daemon_endpoints.kubelet_endpoint.port)
deleted = v1.delete_collection_namespaced_pod(ns, label_selector="deep=yes", _preload_content=False)
say(step="collection", kind=json.loads(deleted.data)["kind"], left=[p.metadata.name for p in v1.list_namespaced_pod(ns, label_selector="deep=yes").items])
`;

interface PythonRun {
  readonly child: ChildProcess;
  /** Everything printed on stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (killed after `timeoutMs`). */
  readonly exited: Promise<number | null>;
}

function runPython(script: string, args: readonly string[], timeoutMs = 60_000): PythonRun {
  // The system interpreter with Debian's dist-packages: no user site, no PYTHONPATH from outside.
  const env = { PATH: "/usr/bin:/bin", HOME: process.env["HOME"] ?? "/tmp", PYTHONNOUSERSITE: "1" };
  const child = spawn(PYTHON, ["-c", script, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const exited = new Promise<number | null>((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve(code);
    }),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function waitForOutput(run: PythonRun, pattern: RegExp, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(run.stdout())) {
    if (run.child.exitCode !== null) throw new Error(`python exited (${run.child.exitCode}) before printing ${pattern}:\n${run.stdout()}\n${run.stderr()}`);
    if (Date.now() > deadline) throw new Error(`python did not print ${pattern} in time:\n${run.stdout()}\n${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the Debian python3-kubernetes client", () => {
  const server = useTestServer();
  const running: PythonRun[] = [];

  before(() => {
    assert.ok(existsSync(PYTHON), `${PYTHON} is missing`);
  });
  after(async () => {
    for (const run of running) if (run.child.exitCode === null) run.child.kill("SIGKILL");
    await Promise.all(running.map((run) => run.exited));
  });

  function python(script: string, args: readonly string[]): PythonRun {
    const run = runPython(script, args);
    running.push(run);
    return run;
  }

  /** The script's JSON lines, once it exited 0. */
  async function jsonSteps(run: PythonRun): Promise<Record<string, unknown>[]> {
    const code = await run.exited;
    assert.equal(code, 0, `python failed:\n${run.stdout()}\n${run.stderr()}`);
    return run
      .stdout()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  it("creates, gets, lists and deletes a ConfigMap", async () => {
    const { server: running, admin } = server();
    const run = python(CRUD_SCRIPT, [running.kubeconfigPath, NAMESPACE, "from-python"]);
    const steps = await jsonSteps(run);
    assert.deepEqual(
      steps.map((step) => step["step"]),
      ["created", "got", "listed", "deleted"],
    );
    const [created, got, listed, deleted] = steps;
    assert.equal(created?.["name"], "from-python");
    assert.match(String(created?.["uid"]), /^[0-9a-f-]{36}$/);
    assert.match(String(created?.["resourceVersion"]), /^\d+$/);
    assert.deepEqual(got?.["data"], { greeting: "hello" });
    assert.deepEqual(got?.["labels"], { from: "python" });
    assert.deepEqual(listed?.["names"], ["from-python"]);
    assert.equal(deleted?.["status"], "Success");
    const gone = await request(admin, "GET", `/api/v1/namespaces/${NAMESPACE}/configmaps/from-python`);
    assert.equal(gone.status, 404);
  });

  it("workloads: a Deployment and its ReplicaSet watched, scaled, every kind's status read, a Foreground delete", async () => {
    const { server: running, admin } = server();
    const run = python(WORKLOAD_SCRIPT, [running.kubeconfigPath, NAMESPACE]);
    const steps = await jsonSteps(run);
    assert.deepEqual(steps, [
      { step: "replicaset", replicas: 0 },
      { step: "watched", events: [["ADDED", "py-1"]] },
      { step: "scaled", replicas: 3, read: 3 },
      { step: "statuses", deployment: 3, replicaset: 0, statefulset: 0, daemonset: 0, hpa: [0, 0], pdb: 0 },
      { step: "deleted", kind: "Deployment" },
    ]);
    // The garbage collector removes the ReplicaSet, then the Deployment.
    const gone = async (path: string) => (await request(admin, "GET", path)).status === 404;
    const deadline = Date.now() + 20_000;
    while (!(await gone(`/apis/apps/v1/namespaces/${NAMESPACE}/deployments/py`))) {
      assert.ok(Date.now() < deadline, "the foreground deletion finished");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(await gone(`/apis/apps/v1/namespaces/${NAMESPACE}/replicasets/py-1`));
  });

  it("deeper typed calls: custom-object patches, pod binding, pod proxy and log without a kubelet, collection deletes, field selectors", async () => {
    const { server: running } = server();
    const run = python(DEEP_SCRIPT, [running.kubeconfigPath, NAMESPACE, apiGroup(ORCH_PROFILE, "apiextensions")]);
    const steps = await jsonSteps(run);
    assert.deepEqual(steps, [
      { step: "merged", spec: { a: 1, b: 2 } },
      // kube decodes a merge patch into a map before it merges (field validation's default, Warn).
      {
        step: "list-as-merge-patch",
        error: [400, "error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}"],
      },
      { step: "bound", error: "Invalid value for `target`, must not be `None`", node: "deep-node" },
      // The pod proxy dials the pod's own address: none yet, scheduled or not.
      { step: "proxy", pending: [400, "address not allowed"], bound: [400, "address not allowed"] },
      { step: "log", text: "", bound: [404, 'nodes "deep-node" not found'] },
      { step: "selected", names: ["deep-bound"] },
      // A container status written with part of its fields reads as kube's (image "", restartCount 0…).
      { step: "container-status", ready: true, image: "", restarts: 0 },
      // A node written with part of nodeInfo reads as kube's, every field present: list_node() does not raise.
      { step: "node", kubelet: "v1.30.0", architecture: "", port: 0 },
      { step: "collection", kind: "PodList", left: [] },
    ]);
  });

  it("watch.Watch().stream(list_namespaced_config_map) sees ADDED, MODIFIED and DELETED", async () => {
    const { server: running, admin } = server();
    const base = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
    assert.equal((await request(admin, "POST", base, { body: configMap("before-watch", { value: "old" }) })).status, 201);
    const run = python(WATCH_SCRIPT, [running.kubeconfigPath, NAMESPACE, "watched"]);
    await waitForOutput(run, /^LISTED \d+$/m);
    assert.equal((await request(admin, "POST", base, { body: configMap("watched", { value: "one" }) })).status, 201);
    const patched = await request(admin, "PATCH", `${base}/watched`, {
      body: { data: { value: "two" } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(patched.status, 200);
    assert.equal((await request(admin, "DELETE", `${base}/watched`)).status, 200);
    const code = await run.exited;
    assert.equal(code, 0, `python failed:\n${run.stdout()}\n${run.stderr()}`);
    const events = run
      .stdout()
      .trim()
      .split("\n")
      .filter((line) => !line.startsWith("LISTED"));
    // Objects that existed before the list are not replayed: the watch starts at its version.
    assert.deepEqual(events, ["ADDED watched one", "MODIFIED watched two", "DELETED watched two", "END"]);
  });
});
