import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../testing/in-process.js";
import { usageOf } from "./quota-usage.js";

describe("ResourceQuota's container constraint (in process)", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer();
    const namespace = await server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "declared" } } });
    assert.equal(namespace.status, 201, namespace.text);
    const quota = {
      apiVersion: "v1",
      kind: "ResourceQuota",
      metadata: { name: "compute" },
      spec: { hard: { "requests.cpu": "4", "limits.memory": "1Gi", pods: "10" } },
    };
    assert.equal((await server.call("POST", "/api/v1/namespaces/declared/resourcequotas", { body: quota })).status, 201);
  });
  after(() => server.stop());

  const create = (name: string, containers: readonly Record<string, unknown>[]) =>
    server.call("POST", "/api/v1/namespaces/declared/pods", { body: { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers } } });

  it("names each undeclared resource with the containers that lack it, as kube does", async () => {
    const refused = await create("mixed", [
      { name: "app", image: "i", resources: { requests: { cpu: "100m" } } },
      { name: "side", image: "i" },
      { name: "extra", image: "i", resources: { limits: { memory: "10Mi" } } },
    ]);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(
      refused.json["message"],
      'pods "mixed" is forbidden: failed quota: compute: must specify limits.memory for: app,side; requests.cpu for: extra,side',
    );
  });

  it("a pod whose pod-level sum covers a resource is still refused when one container lacks it", async () => {
    const refused = await create("partial", [
      { name: "a", image: "i", resources: { requests: { cpu: "100m" }, limits: { memory: "10Mi" } } },
      { name: "b", image: "i", resources: { limits: { memory: "10Mi" } } },
    ]);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json["message"], 'pods "partial" is forbidden: failed quota: compute: must specify requests.cpu for: b');
    const admitted = await create("complete", [{ name: "a", image: "i", resources: { requests: { cpu: "100m" }, limits: { memory: "10Mi" } } }]);
    assert.equal(admitted.status, 201, admitted.text);
  });
});

describe("ResourceQuota's usage as kube counts and writes it (in process)", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  const path = "/api/v1/namespaces/sums/resourcequotas/sums";
  before(async () => {
    server = await inProcessServer();
    const namespace = await server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "sums" } } });
    assert.equal(namespace.status, 201, namespace.text);
    // spec.hard's names out of order: kube's refusal lists them sorted.
    const quota = {
      apiVersion: "v1",
      kind: "ResourceQuota",
      metadata: { name: "sums" },
      spec: { hard: { "requests.memory": "4G", "requests.cpu": "2", "limits.memory": "8Gi", pods: "10" } },
    };
    assert.equal((await server.call("POST", "/api/v1/namespaces/sums/resourcequotas", { body: quota })).status, 201);
  });
  after(() => server.stop());

  const pod = (name: string, spec: Record<string, unknown>) =>
    server.call("POST", "/api/v1/namespaces/sums/pods", { body: { apiVersion: "v1", kind: "Pod", metadata: { name }, spec } });
  const used = async (): Promise<unknown> => {
    const quota = await server.call("GET", path);
    return (quota.json["status"] as Record<string, unknown>)["used"];
  };

  it("charges an init container's step, not its sum with the app, and writes each amount in its format", async () => {
    const created = await pod("first", {
      initContainers: [{ name: "init", image: "x", resources: { requests: { cpu: "1", memory: "1500M" }, limits: { memory: "2Gi" } } }],
      containers: [{ name: "app", image: "x", resources: { requests: { cpu: "500m", memory: "1G" }, limits: { memory: "1Gi" } } }],
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(await used(), { "requests.memory": "1500M", "requests.cpu": "1", "limits.memory": "2Gi", pods: "1" });
  });

  it("adds a sidecar's requests, and keeps the used amount's format across charges", async () => {
    const created = await pod("second", {
      initContainers: [
        { name: "proxy", image: "x", restartPolicy: "Always", resources: { requests: { cpu: "250m", memory: "500M" }, limits: { memory: "1Gi" } } },
      ],
      containers: [{ name: "app", image: "x", resources: { requests: { cpu: "250m", memory: "500M" }, limits: { memory: "1Gi" } } }],
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(await used(), { "requests.memory": "2500M", "requests.cpu": "1500m", "limits.memory": "4Gi", pods: "2" });
  });

  it("refuses an overspend naming the exceeded resources sorted, each as kube's Quantity writes it", async () => {
    const refused = await pod("third", {
      containers: [{ name: "app", image: "x", resources: { requests: { cpu: "1", memory: "2G" }, limits: { memory: "2Gi" } } }],
    });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(
      refused.json["message"],
      'pods "third" is forbidden: exceeded quota: sums, requested: requests.cpu=1,requests.memory=2G, used: requests.cpu=1500m,requests.memory=2500M, limited: requests.cpu=2,requests.memory=4G',
    );
  });
});

describe("ResourceQuota's CrossNamespacePodAffinity scope (in process)", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer();
    assert.equal((await server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "xns" } } })).status, 201);
    // kubernetes.io's way to forbid cross-namespace affinity in a namespace: a zero pod quota in that scope.
    const quota = {
      apiVersion: "v1",
      kind: "ResourceQuota",
      metadata: { name: "no-cross" },
      spec: { hard: { pods: "0" }, scopeSelector: { matchExpressions: [{ scopeName: "CrossNamespacePodAffinity", operator: "Exists" }] } },
    };
    const created = await server.call("POST", "/api/v1/namespaces/xns/resourcequotas", { body: quota });
    assert.equal(created.status, 201, created.text);
  });
  after(() => server.stop());

  const pod = (name: string, affinity?: Record<string, unknown>) =>
    server.call("POST", "/api/v1/namespaces/xns/pods", {
      body: { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers: [{ name: "c", image: "x" }], ...(affinity ? { affinity } : {}) } },
    });
  const term = (extra: Record<string, unknown>) => ({ labelSelector: { matchLabels: { app: "db" } }, topologyKey: "zone", ...extra });

  it("admits pods whose affinity stays in their namespace", async () => {
    assert.equal((await pod("plain")).status, 201);
    assert.equal((await pod("local", { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({})] } })).status, 201);
  });

  it("refuses pods with a term naming namespaces or a namespace selector, required or preferred, affinity or anti-affinity", async () => {
    const cases = [
      { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ namespaces: ["other"] })] } },
      { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: term({ namespaceSelector: {} }) }] } },
    ];
    for (const [index, affinity] of cases.entries()) {
      const refused = await pod(`cross-${index}`, affinity);
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.json["message"], `pods "cross-${index}" is forbidden: exceeded quota: no-cross, requested: pods=1, used: pods=0, limited: pods=0`);
    }
  });
});

describe("ResourceQuota charges an update what it adds (in process)", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer();
    assert.equal((await server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "grow" } } })).status, 201);
    const quota = { apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "ports" }, spec: { hard: { "services.nodeports": "1", services: "5" } } };
    assert.equal((await server.call("POST", "/api/v1/namespaces/grow/resourcequotas", { body: quota })).status, 201);
  });
  after(() => server.stop());

  const service = (name: string) => ({ apiVersion: "v1", kind: "Service", metadata: { name }, spec: { ports: [{ port: 80 }] } });
  const toNodePort = (name: string) =>
    server.call("PATCH", `/api/v1/namespaces/grow/services/${name}`, {
      body: { spec: { type: "NodePort" } },
      headers: { "content-type": "application/merge-patch+json" },
    });
  const used = async (): Promise<unknown> =>
    ((await server.call("GET", "/api/v1/namespaces/grow/resourcequotas/ports")).json["status"] as Record<string, unknown>)["used"];

  it("a Service turned NodePort is charged its node port, and refused past the quota as kube's service evaluator does", async () => {
    for (const name of ["a", "b"]) assert.equal((await server.call("POST", "/api/v1/namespaces/grow/services", { body: service(name) })).status, 201);
    const first = await toNodePort("a");
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(await used(), { "services.nodeports": "1", services: "2" });
    const second = await toNodePort("b");
    assert.equal(second.status, 403, second.text);
    assert.equal(
      second.json["message"],
      'services "b" is forbidden: exceeded quota: ports, requested: services.nodeports=1, used: services.nodeports=1, limited: services.nodeports=1',
    );
    // An update adding nothing (a label) is not charged.
    const labelled = await server.call("PATCH", "/api/v1/namespaces/grow/services/a", {
      body: { metadata: { labels: { x: "y" } } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(labelled.status, 200, labelled.text);
    assert.deepEqual(await used(), { "services.nodeports": "1", services: "2" });
  });
});

describe("ResourceQuota's per-storage-class names (in process)", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  const perClass = (name: string) => `gold.storageclass.storage.orch.io/${name}`;
  before(async () => {
    server = await inProcessServer();
    assert.equal(
      (await server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "classes" } } })).status,
      201,
    );
    // kubernetes.io's storage resource quota: a budget per storage class, beside the namespace's.
    const quota = {
      apiVersion: "v1",
      kind: "ResourceQuota",
      metadata: { name: "storage" },
      spec: { hard: { "requests.storage": "10Gi", [perClass("requests.storage")]: "3Gi", [perClass("persistentvolumeclaims")]: "2" } },
    };
    const created = await server.call("POST", "/api/v1/namespaces/classes/resourcequotas", { body: quota });
    assert.equal(created.status, 201, created.text);
  });
  after(() => server.stop());

  const claim = (name: string, size: string, storageClassName?: string) =>
    server.call("POST", "/api/v1/namespaces/classes/persistentvolumeclaims", {
      body: {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { name },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: size } }, ...(storageClassName === undefined ? {} : { storageClassName }) },
      },
    });

  it("charges a claim of the class to its class's names too, and refuses one past them", async () => {
    assert.equal((await claim("a", "2Gi", "gold")).status, 201);
    assert.equal((await claim("b", "4Gi", "silver")).status, 201);
    const refused = await claim("c", "2Gi", "gold");
    assert.equal(refused.status, 403, refused.text);
    assert.equal(
      refused.json["message"],
      `persistentvolumeclaims "c" is forbidden: exceeded quota: storage, requested: ${perClass("requests.storage")}=2Gi, used: ${perClass("requests.storage")}=2Gi, limited: ${perClass("requests.storage")}=3Gi`,
    );
    const quota = await server.call("GET", "/api/v1/namespaces/classes/resourcequotas/storage");
    assert.deepEqual((quota.json["status"] as Record<string, unknown>)["used"], {
      "requests.storage": "6Gi",
      [perClass("requests.storage")]: "2Gi",
      [perClass("persistentvolumeclaims")]: "1",
    });
  });
});

describe("ResourceQuota's usage of pods and claims, as kube's evaluators count them", () => {
  const pod = (metadata: Record<string, unknown>, status?: Record<string, unknown>) => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", ...metadata },
    spec: { containers: [{ name: "c", image: "i", resources: { requests: { cpu: "1" } } }] },
    ...(status === undefined ? {} : { status }),
  });
  const charged = { "count/pods": 1, pods: 1, cpu: 1, "requests.cpu": 1 };

  it("charges a running pod, and only the object count of a terminal one", () => {
    assert.deepEqual(usageOf("", "pods", pod({}, { phase: "Running" })), charged);
    assert.deepEqual(usageOf("", "pods", pod({}, { phase: "Succeeded" })), { "count/pods": 1 });
    assert.deepEqual(usageOf("", "pods", pod({}, { phase: "Failed" })), { "count/pods": 1 });
  });

  it("stops charging a pod stuck terminating once its grace period has passed", () => {
    const deleting = pod({ deletionTimestamp: "2026-01-01T00:00:00Z", deletionGracePeriodSeconds: 30 });
    const at = (time: string) => usageOf("", "pods", deleting, undefined, undefined, Date.parse(time));
    assert.deepEqual(at("2026-01-01T00:00:29Z"), charged);
    assert.deepEqual(at("2026-01-01T00:00:30Z"), charged);
    assert.deepEqual(at("2026-01-01T00:00:31Z"), { "count/pods": 1 });
    // Without a grace period kube has nothing to compare: still charged.
    assert.deepEqual(
      usageOf("", "pods", pod({ deletionTimestamp: "2026-01-01T00:00:00Z" }), undefined, undefined, Date.parse("2027-01-01T00:00:00Z")),
      charged,
    );
  });

  it("reads a claim's class from the beta annotation before spec.storageClassName", () => {
    const claim = {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "c", annotations: { "volume.beta.orch.io/storage-class": "gold" } },
      spec: { storageClassName: "silver", resources: { requests: { storage: "1Gi" } } },
    };
    assert.deepEqual(usageOf("", "persistentvolumeclaims", claim), {
      "count/persistentvolumeclaims": 1,
      persistentvolumeclaims: 1,
      "gold.storageclass.storage.orch.io/persistentvolumeclaims": 1,
      "requests.storage": 1024 ** 3,
      "gold.storageclass.storage.orch.io/requests.storage": 1024 ** 3,
    });
  });
});
