import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ago, cells, KEY_DOMAIN, object, tableKeys, type RowCase } from "./_testing.js";

const containers = [
  { name: "web", image: "nginx:1.25" },
  { name: "log", image: "busybox:1.36" },
];
const running = { running: { startedAt: ago(50) } };

/** Core kinds: a sample object and its whole row (the `-o wide` cells last, as kube orders them). */
const CASES: readonly RowCase[] = [
  {
    group: "",
    kind: "Pod",
    title: "a running pod: ready containers, restarts with the time since the last, IP, node, readiness gates",
    object: object("web", {
      spec: { containers, nodeName: "node-1", readinessGates: [{ conditionType: "example.com/gate" }] },
      status: {
        phase: "Running",
        podIP: "10.0.0.5",
        podIPs: [{ ip: "10.0.0.5" }, { ip: "fd00::5" }],
        conditions: [
          { type: "Ready", status: "True" },
          { type: "example.com/gate", status: "True" },
        ],
        containerStatuses: [
          { name: "web", ready: true, restartCount: 2, state: running, lastState: { terminated: { exitCode: 1, finishedAt: ago(5) } } },
          { name: "log", ready: true, restartCount: 0, state: running },
        ],
      },
    }),
    cells: ["web", "2/2", "Running", "2 (5m ago)", "60m", "10.0.0.5", "node-1", "<none>", "1/1"],
  },
  {
    group: "",
    kind: "Pod",
    title: "a pod waiting for its first init container",
    object: object("init", {
      spec: { initContainers: [{ name: "setup", image: "busybox" }], containers: [containers[0]], readinessGates: [{ conditionType: "example.com/gate" }] },
      status: {
        phase: "Pending",
        initContainerStatuses: [{ name: "setup", ready: false, restartCount: 0, state: { waiting: { reason: "PodInitializing" } } }],
      },
    }),
    cells: ["init", "0/1", "Init:0/1", "0", "60m", "<none>", "<none>", "<none>", "0/1"],
  },
  {
    group: "",
    kind: "Pod",
    title: "a failed init container shows its reason",
    object: object("init-failed", {
      spec: { initContainers: [{ name: "setup", image: "busybox" }], containers: [containers[0]] },
      status: {
        phase: "Pending",
        initContainerStatuses: [
          { name: "setup", restartCount: 3, state: { terminated: { exitCode: 2 } }, lastState: { terminated: { exitCode: 2, finishedAt: ago(1) } } },
        ],
      },
    }),
    cells: ["init-failed", "0/1", "Init:ExitCode:2", "3 (60s ago)", "60m", "<none>", "<none>", "<none>", "<none>"],
  },
  {
    group: "",
    kind: "Pod",
    title: "a crash-looping container: its waiting reason, on a nominated node",
    object: object("crash", {
      spec: { containers: [containers[0]] },
      status: {
        phase: "Running",
        nominatedNodeName: "node-2",
        containerStatuses: [
          {
            name: "web",
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: "CrashLoopBackOff" } },
            lastState: { terminated: { exitCode: 1, finishedAt: ago(2) } },
          },
        ],
      },
    }),
    cells: ["crash", "0/1", "CrashLoopBackOff", "3 (2m ago)", "60m", "<none>", "<none>", "node-2", "<none>"],
  },
  {
    group: "",
    kind: "Pod",
    title: "a sidecar counts as a container; a deleted running pod is Terminating",
    object: object("sidecar", {
      metadata: { deletionTimestamp: ago(0) },
      spec: { initContainers: [{ name: "proxy", image: "envoy", restartPolicy: "Always" }], containers: [containers[0]] },
      status: {
        phase: "Running",
        podIP: "10.0.0.6",
        conditions: [{ type: "Initialized", status: "True" }],
        initContainerStatuses: [{ name: "proxy", started: true, ready: true, restartCount: 1, state: running }],
        containerStatuses: [{ name: "web", ready: true, restartCount: 0, state: running }],
      },
    }),
    cells: ["sidecar", "2/2", "Terminating", "1", "60m", "10.0.0.6", "<none>", "<none>", "<none>"],
  },
  {
    group: "",
    kind: "Pod",
    title: "a completed pod shows its container's reason",
    object: object("done", {
      spec: { containers: [containers[0]] },
      status: {
        phase: "Succeeded",
        containerStatuses: [{ name: "web", ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: "Completed" } } }],
      },
    }),
    cells: ["done", "0/1", "Completed", "0", "60m", "<none>", "<none>", "<none>", "<none>"],
  },
  {
    group: "",
    kind: "PodTemplate",
    title: "containers, images and the pods' labels",
    object: object("template", { template: { metadata: { labels: { tier: "fe", app: "web" } }, spec: { containers } } }),
    cells: ["template", "web,log", "nginx:1.25,busybox:1.36", "app=web,tier=fe"],
  },
  {
    group: "",
    kind: "ReplicationController",
    title: "desired, current and ready pods; template and selector when wide",
    object: object("rc", { spec: { replicas: 3, selector: { app: "web" }, template: { spec: { containers } } }, status: { replicas: 3, readyReplicas: 2 } }),
    cells: ["rc", 3, 3, 2, "60m", "web,log", "nginx:1.25,busybox:1.36", "app=web"],
  },
  { group: "", kind: "Namespace", title: "the phase", object: object("default", { status: { phase: "Active" } }), cells: ["default", "Active", "60m"] },
  {
    group: "",
    kind: "ConfigMap",
    title: "data and binary data entries",
    object: object("config", { data: { a: "1", b: "2" }, binaryData: { c: "AA==" } }),
    cells: ["config", 3, "60m"],
  },
  {
    group: "",
    kind: "Secret",
    title: "type and data entries",
    object: object("secret", { type: "Opaque", data: { password: "cGFzcw==" } }),
    cells: ["secret", "Opaque", 1, "60m"],
  },
  {
    group: "",
    kind: "ServiceAccount",
    title: "listed secrets",
    object: object("builder", { secrets: [{ name: "builder-token" }] }),
    cells: ["builder", 1, "60m"],
  },
  {
    group: "",
    kind: "Service",
    title: "a ClusterIP service: first cluster IP, ports, selector",
    object: object("web", {
      spec: {
        type: "ClusterIP",
        clusterIP: "10.96.0.10",
        clusterIPs: ["10.96.0.10", "fd00::10"],
        selector: { app: "web" },
        ports: [
          { port: 80, protocol: "TCP" },
          { port: 53, protocol: "UDP" },
        ],
      },
    }),
    cells: ["web", "ClusterIP", "10.96.0.10", "<none>", "80/TCP,53/UDP", "60m", "app=web"],
  },
  {
    group: "",
    kind: "Service",
    title: "a LoadBalancer still waiting for an address",
    object: object("lb", { spec: { type: "LoadBalancer", clusterIPs: ["10.96.0.11"], ports: [{ port: 80, nodePort: 30080, protocol: "TCP" }] } }),
    cells: ["lb", "LoadBalancer", "10.96.0.11", "<pending>", "80:30080/TCP", "60m", "<none>"],
  },
  {
    group: "",
    kind: "Service",
    title: "a LoadBalancer's addresses (sorted, unique) before its external IPs",
    object: object("lb2", {
      spec: { type: "LoadBalancer", clusterIPs: ["10.96.0.12"], externalIPs: ["198.51.100.1"], ports: [{ port: 443, nodePort: 30443, protocol: "TCP" }] },
      status: { loadBalancer: { ingress: [{ ip: "203.0.113.9" }, { hostname: "lb.example.com" }, { ip: "203.0.113.9" }] } },
    }),
    cells: ["lb2", "LoadBalancer", "10.96.0.12", "203.0.113.9,lb.example.com,198.51.100.1", "443:30443/TCP", "60m", "<none>"],
  },
  {
    group: "",
    kind: "Service",
    title: "an ExternalName service",
    object: object("db", { spec: { type: "ExternalName", externalName: "db.example.com" } }),
    cells: ["db", "ExternalName", "<none>", "db.example.com", "<none>", "60m", "<none>"],
  },
  {
    group: "",
    kind: "Node",
    title: "a cordoned control-plane node with its addresses and system info",
    object: object("node-1", {
      metadata: { labels: { [`node-role.${KEY_DOMAIN}/control-plane`]: "", [`${KEY_DOMAIN}/role`]: "etcd", [`node-role.${KEY_DOMAIN}/`]: "" } },
      spec: { unschedulable: true },
      status: {
        conditions: [
          { type: "MemoryPressure", status: "False" },
          { type: "Ready", status: "True" },
        ],
        addresses: [
          { type: "Hostname", address: "node-1" },
          { type: "InternalIP", address: "10.0.0.1" },
        ],
        nodeInfo: { kubeletVersion: "v1.30.0", osImage: "Debian GNU/Linux 12", kernelVersion: "6.1.0", containerRuntimeVersion: "containerd://1.7.0" },
      },
    }),
    cells: [
      "node-1",
      "Ready,SchedulingDisabled",
      "control-plane,etcd",
      "60m",
      "v1.30.0",
      "10.0.0.1",
      "<none>",
      "Debian GNU/Linux 12",
      "6.1.0",
      "containerd://1.7.0",
    ],
  },
  {
    group: "",
    kind: "Node",
    title: "a node that never reported",
    object: object("node-2", { status: { addresses: [{ type: "ExternalIP", address: "203.0.113.2" }] } }),
    cells: ["node-2", "Unknown", "<none>", "60m", "", "<none>", "203.0.113.2", "<unknown>", "<unknown>", "<unknown>"],
  },
  {
    group: "",
    kind: "Event",
    title: "a repeated event: last and first seen, object, sub-object, source, trimmed message, count",
    object: object("web.17a", {
      involvedObject: { kind: "Pod", name: "web", namespace: "default", fieldPath: "spec.containers{web}" },
      type: "Normal",
      reason: "Started",
      message: " Started container web\n",
      source: { component: "kubelet", host: "node-1" },
      firstTimestamp: ago(60),
      lastTimestamp: ago(10),
      count: 3,
    }),
    cells: ["10m", "Normal", "Started", "pod/web", "spec.containers{web}", "kubelet, node-1", "Started container web", "60m", 3, "web.17a"],
  },
  {
    group: "",
    kind: "Event",
    title: "a series: its last observation and count; the reporting controller as source",
    object: object("node.17b", {
      involvedObject: { kind: "Node" },
      type: "Warning",
      reason: "Rebooted",
      message: "rebooted",
      eventTime: "2024-05-01T11:30:00.000000Z",
      series: { count: 4, lastObservedTime: "2024-05-01T11:59:00.000000Z" },
      reportingComponent: "kubelet",
      reportingInstance: "node-2",
    }),
    cells: ["60s", "Warning", "Rebooted", "node", "", "kubelet, node-2", "rebooted", "30m", 4, "node.17b"],
  },
  {
    group: "",
    kind: "Endpoints",
    title: "address:port pairs, port by port, three at most",
    object: object("web", { subsets: [{ addresses: [{ ip: "10.0.0.1" }, { ip: "fd00::2" }], ports: [{ port: 80 }, { port: 443 }] }] }),
    cells: ["web", "10.0.0.1:80,[fd00::2]:80,10.0.0.1:443 + 1 more...", "60m"],
  },
  { group: "", kind: "Endpoints", title: "no subsets", object: object("empty"), cells: ["empty", "<none>", "60m"] },
  {
    group: "",
    kind: "ResourceQuota",
    title: "used/hard per resource, sorted; limits apart",
    object: object("quota", { status: { hard: { "requests.cpu": "1", pods: "10", "limits.memory": "2Gi" }, used: { pods: "3", "requests.cpu": "500m" } } }),
    cells: ["quota", "60m", "pods: 3/10, requests.cpu: 500m/1", "limits.memory: 0/2Gi"],
  },
  {
    group: "",
    kind: "PersistentVolume",
    title: "a bound volume: size, short access modes in a fixed order, claim, class",
    object: object("pv-1", {
      spec: {
        capacity: { storage: "10Gi" },
        accessModes: ["ReadWriteMany", "ReadWriteOnce"],
        persistentVolumeReclaimPolicy: "Retain",
        claimRef: { namespace: "default", name: "data" },
        storageClassName: "fast",
        volumeMode: "Filesystem",
      },
      status: { phase: "Bound" },
    }),
    cells: ["pv-1", "10Gi", "RWO,RWX", "Retain", "Bound", "default/data", "fast", "<unset>", "", "60m", "Filesystem"],
  },
  {
    group: "",
    kind: "PersistentVolume",
    title: "a released volume being deleted, class from the beta annotation",
    object: object("pv-2", {
      metadata: { deletionTimestamp: ago(0), annotations: { [`volume.beta.${KEY_DOMAIN}/storage-class`]: "legacy" } },
      spec: {
        capacity: { storage: "1Gi" },
        accessModes: ["ReadWriteOncePod"],
        persistentVolumeReclaimPolicy: "Delete",
        storageClassName: "fast",
        volumeAttributesClassName: "gold",
      },
      status: { phase: "Released", reason: "ClaimDeleted" },
    }),
    cells: ["pv-2", "1Gi", "RWOP", "Delete", "Terminating", "", "legacy", "gold", "ClaimDeleted", "60m", "<unset>"],
  },
  {
    group: "",
    kind: "PersistentVolumeClaim",
    title: "a pending claim shows no size or modes yet",
    object: object("data", {
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, storageClassName: "standard" },
      status: { phase: "Pending" },
    }),
    cells: ["data", "Pending", "", "", "", "standard", "<unset>", "60m", "<unset>"],
  },
  {
    group: "",
    kind: "PersistentVolumeClaim",
    title: "a bound claim shows its volume's size and modes",
    object: object("bound", {
      spec: {
        accessModes: ["ReadWriteOnce"],
        resources: { requests: { storage: "1Gi" } },
        volumeName: "pv-1",
        volumeAttributesClassName: "gold",
        volumeMode: "Block",
      },
      status: { phase: "Bound", capacity: { storage: "2Gi" }, accessModes: ["ReadWriteOnce", "ReadOnlyMany"] },
    }),
    cells: ["bound", "Bound", "pv-1", "2Gi", "RWO,ROX", "", "gold", "60m", "Block"],
  },
  {
    group: "",
    kind: "ComponentStatus",
    title: "the Healthy condition",
    object: object("etcd-0", { conditions: [{ type: "Healthy", status: "False", message: "", error: "connection refused" }] }),
    cells: ["etcd-0", "Unhealthy", "", "connection refused"],
  },
];

describe("core tables: every cell of a row, wide ones included", () => {
  it("every core kind with a table has a case", () => {
    const covered = new Set(CASES.map((testCase) => `${testCase.group}/${testCase.kind}`));
    assert.deepEqual(
      tableKeys((group) => group === "").filter((key) => !covered.has(key)),
      [],
    );
  });

  for (const testCase of CASES) {
    it(`${testCase.kind}: ${testCase.title}`, () => {
      assert.deepEqual(cells(testCase.group, testCase.kind, testCase.object), testCase.cells);
    });
  }
});
