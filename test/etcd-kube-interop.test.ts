// Interoperability with kube-apiserver's etcd data (--compat kubernetes on --storage-backend etcd3):
// objects written into etcd exactly as kube-apiserver stores them (keys under /registry in kube's
// layout, built-in kinds in the protobuf envelope, custom resources as JSON; the bytes built here by
// hand from the protobuf wire format, not by the server's codec) are served through the API and
// kubectl; and objects created through the server are found at kube's keys in kube's encoding.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../src/api/profile.js";
import { startServer, type RunningServer } from "../src/cli/start.js";
import { EtcdClient } from "../src/storage/etcd/etcd-client.js";
import { type EtcdCluster, startEtcdCluster } from "../src/storage/etcd/etcd-member.js";
import { type Credentials, json, request } from "./helpers/http.js";
import { kubectlFor, type KubectlResult } from "./helpers/kubectl.js";
import { bytesOf, decode, envelope, type Field, mapEntries, mapOf, message, stringOf } from "./helpers/proto-wire.js";
import { makeTempDir, removeDir } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

const CREATED = 1_700_000_000; // 2023-11-14T22:13:20Z
const CREATED_TEXT = "2023-11-14T22:13:20Z";

/** meta.v1.ObjectMeta as kube writes it to etcd (no resourceVersion: the revision is the version). */
function objectMeta(name: string, namespace: string, uid: string, extra: readonly Field[] = []): Field {
  const fields: Field[] = [[1, name]];
  if (namespace !== "") fields.push([3, namespace]);
  fields.push([5, uid], [8, [[1, CREATED]]], ...extra);
  return [1, fields];
}

/** A managedFields entry (meta.v1.ManagedFieldsEntry) with its FieldsV1 JSON. */
function managedEntry(manager: string, fieldsV1: unknown): Field {
  return [
    17,
    [
      [1, manager],
      [2, "Update"],
      [3, "v1"],
      [4, [[1, CREATED]]],
      [6, "FieldsV1"],
      [7, [[1, JSON.stringify(fieldsV1)]]],
    ],
  ];
}

/** kube-apiserver's stored bytes for a few built-in objects in namespace `interop`, by key. */
function kubeWrittenObjects(): Map<string, Buffer> {
  const objects = new Map<string, Buffer>();
  objects.set(
    "/registry/namespaces/interop",
    envelope(
      "v1",
      "Namespace",
      message([
        objectMeta("interop", "", "11111111-0000-4000-8000-000000000001", mapEntries(11, { "kubernetes.io/metadata.name": "interop" })),
        [2, [[1, "kubernetes"]]],
        [3, [[1, "Active"]]],
      ]),
    ),
  );
  objects.set(
    "/registry/configmaps/interop/kube-cm",
    envelope(
      "v1",
      "ConfigMap",
      message([
        objectMeta("kube-cm", "interop", "11111111-0000-4000-8000-000000000002", [
          ...mapEntries(11, { app: "legacy" }),
          managedEntry("kubectl-create", { "f:data": { ".": {}, "f:mode": {} } }),
        ]),
        ...mapEntries(2, { mode: "fast", "greeting.txt": "hello" }),
      ]),
    ),
  );
  objects.set(
    "/registry/secrets/interop/kube-secret",
    envelope(
      "v1",
      "Secret",
      message([
        objectMeta("kube-secret", "interop", "11111111-0000-4000-8000-000000000003"),
        ...mapEntries(2, { password: Buffer.from("hunter2") }),
        [3, "Opaque"],
      ]),
    ),
  );
  const container: Field = [
    2,
    [
      [1, "web"],
      [2, "nginx:1.25"],
      [13, "/dev/termination-log"],
      [14, "IfNotPresent"],
      [20, "File"],
    ],
  ];
  objects.set(
    "/registry/pods/interop/kube-pod",
    envelope(
      "v1",
      "Pod",
      message([
        objectMeta("kube-pod", "interop", "11111111-0000-4000-8000-000000000004", mapEntries(11, { app: "web" })),
        [2, [container, [3, "Always"], [4, 30], [6, "ClusterFirst"]]],
        [3, [[1, "Pending"]]],
      ]),
    ),
  );
  objects.set(
    "/registry/deployments/interop/kube-deploy",
    envelope(
      "apps/v1",
      "Deployment",
      message([
        objectMeta("kube-deploy", "interop", "11111111-0000-4000-8000-000000000005", [[7, 1]]),
        [
          2,
          [
            [1, 3],
            [2, mapEntries(1, { app: "web" })],
            [
              3,
              [
                [1, mapEntries(11, { app: "web" })],
                [2, [container]],
              ],
            ],
            [4, [[1, "RollingUpdate"]]],
            [6, 10],
            [9, 600],
          ],
        ],
      ]),
    ),
  );
  return objects;
}

/** A CRD as kube-apiserver stores it: v1beta1 JSON, per-version fields hoisted to the spec. */
const KUBE_CRD = {
  kind: "CustomResourceDefinition",
  apiVersion: "apiextensions.k8s.io/v1beta1",
  metadata: { name: "widgets.kube.example.com", uid: "11111111-0000-4000-8000-000000000007", generation: 1, creationTimestamp: CREATED_TEXT },
  spec: {
    group: "kube.example.com",
    version: "v1",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    scope: "Namespaced",
    validation: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { size: { type: "string" } } } } } },
    subresources: { status: {} },
    versions: [{ name: "v1", served: true, storage: true }],
    additionalPrinterColumns: [{ name: "Size", type: "string", JSONPath: ".spec.size" }],
    conversion: { strategy: "None" },
    preserveUnknownFields: false,
  },
  status: {
    conditions: [
      { type: "NamesAccepted", status: "True", lastTransitionTime: CREATED_TEXT, reason: "NoConflicts", message: "no conflicts found" },
      {
        type: "Established",
        status: "True",
        lastTransitionTime: CREATED_TEXT,
        reason: "InitialNamesAccepted",
        message: "the initial names have been accepted",
      },
    ],
    acceptedNames: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    storedVersions: ["v1"],
  },
};

const CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "crontabs.stable.example.com" },
  spec: {
    group: "stable.example.com",
    scope: "Namespaced",
    names: { plural: "crontabs", singular: "crontab", kind: "CronTab", listKind: "CronTabList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { cronSpec: { type: "string" } } } } } },
      },
    ],
  },
};

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

describe("etcd interop with kube-apiserver's storage (--compat kubernetes)", { timeout: 180_000 }, () => {
  let etcd: EtcdCluster;
  let client: EtcdClient;
  let server: RunningServer;
  let admin: Credentials;
  const dataDir = makeTempDir("orch-interop-");

  const put = async (key: string, value: Uint8Array): Promise<void> => {
    await client.txn({ compare: [], success: [{ requestPut: { key: Buffer.from(key), value } }], failure: [] }, key);
  };
  const getRaw = async (key: string): Promise<Buffer | undefined> => {
    const response = await client.range({ key: Buffer.from(key) }, key);
    const value = response.kvs[0]?.value;
    return value === undefined ? undefined : Buffer.from(value);
  };

  before(async () => {
    etcd = await startEtcdCluster();
    client = new EtcdClient({ endpoints: etcd.endpoints });
    // kube-apiserver wrote these before this server ever started.
    for (const [key, value] of kubeWrittenObjects()) await put(key, value);
    await put(`/registry/apiextensions.k8s.io/customresourcedefinitions/${KUBE_CRD.metadata.name}`, Buffer.from(JSON.stringify(KUBE_CRD)));
    const widget = {
      apiVersion: "kube.example.com/v1",
      kind: "Widget",
      metadata: { name: "w1", namespace: "interop", uid: "11111111-0000-4000-8000-000000000008", creationTimestamp: CREATED_TEXT, generation: 1 },
      spec: { size: "large" },
    };
    // As kube-apiserver writes a custom resource: JSON and a newline (the start-up load's check of stored values allows it).
    await put("/registry/kube.example.com/widgets/interop/w1", Buffer.from(`${JSON.stringify(widget)}\n`));
    server = await startServer({
      storageBackend: "etcd3",
      etcdServers: etcd.endpoints,
      profile: KUBERNETES_PROFILE,
      dataDir,
      securePort: 0,
      compactionIntervalMs: 0,
    });
    admin = { url: server.url, ca: server.caCertificate, cert: server.adminCertificate, key: server.adminKey };
  });

  after(async () => {
    await server?.stop();
    client?.close();
    await etcd?.stop();
    removeDir(dataDir);
  });

  it("serves the objects kube-apiserver stored (protobuf envelopes under /registry) through the API", async () => {
    const configMap = json(await request(admin, "GET", "/api/v1/namespaces/interop/configmaps/kube-cm")) as {
      metadata: {
        uid: string;
        creationTimestamp: string;
        labels: Record<string, string>;
        resourceVersion: string;
        managedFields: { manager: string; fieldsV1: unknown }[];
      };
      data: Record<string, string>;
    };
    assert.equal(configMap.metadata.uid, "11111111-0000-4000-8000-000000000002");
    assert.equal(configMap.metadata.creationTimestamp, CREATED_TEXT);
    assert.deepEqual(configMap.metadata.labels, { app: "legacy" });
    assert.deepEqual(configMap.data, { mode: "fast", "greeting.txt": "hello" });
    assert.deepEqual(
      configMap.metadata.managedFields.map((entry) => [entry.manager, entry.fieldsV1]),
      [["kubectl-create", { "f:data": { ".": {}, "f:mode": {} } }]],
    );
    // resourceVersion is the key's etcd mod revision.
    const { kvs } = await client.range({ key: Buffer.from("/registry/configmaps/interop/kube-cm") }, "");
    assert.equal(configMap.metadata.resourceVersion, String(kvs[0]?.modRevision));

    const secret = json(await request(admin, "GET", "/api/v1/namespaces/interop/secrets/kube-secret")) as { data: Record<string, string>; type: string };
    assert.deepEqual(secret.data, { password: Buffer.from("hunter2").toString("base64") });
    assert.equal(secret.type, "Opaque");

    const deployment = json(await request(admin, "GET", "/apis/apps/v1/namespaces/interop/deployments/kube-deploy")) as {
      metadata: { uid: string };
      spec: { replicas: number; selector: { matchLabels: Record<string, string> }; template: { spec: { containers: { image: string }[] } } };
    };
    assert.equal(deployment.metadata.uid, "11111111-0000-4000-8000-000000000005");
    assert.equal(deployment.spec.replicas, 3);
    assert.deepEqual(deployment.spec.selector.matchLabels, { app: "web" });
    assert.equal(deployment.spec.template.spec.containers[0]?.image, "nginx:1.25");

    const namespace = json(await request(admin, "GET", "/api/v1/namespaces/interop")) as { metadata: { uid: string }; status: { phase: string } };
    assert.equal(namespace.metadata.uid, "11111111-0000-4000-8000-000000000001");
    assert.equal(namespace.status.phase, "Active");
  });

  it("kubectl reads kube-apiserver's pods and lists its config maps", async () => {
    const kubectl = kubectlFor(server.kubeconfigPath, dataDir);
    const pod = JSON.parse(ok(await kubectl(["get", "pod", "kube-pod", "-n", "interop", "-o", "json"]))) as {
      metadata: { uid: string; labels: Record<string, string> };
      spec: { containers: { name: string; image: string }[]; restartPolicy: string };
      status: { phase: string };
    };
    assert.equal(pod.metadata.uid, "11111111-0000-4000-8000-000000000004");
    assert.deepEqual(pod.metadata.labels, { app: "web" });
    assert.deepEqual(
      pod.spec.containers.map((container) => [container.name, container.image]),
      [["web", "nginx:1.25"]],
    );
    assert.equal(pod.spec.restartPolicy, "Always");
    assert.equal(pod.status.phase, "Pending");
    assert.match(ok(await kubectl(["get", "configmaps", "-n", "interop", "-o", "name"])), /configmap\/kube-cm/);
  });

  it("writes built-in kinds at kube's keys in the protobuf envelope, readable without the server's codec", async () => {
    const created = await request(admin, "POST", "/api/v1/namespaces/interop/configmaps", {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "orch-cm", labels: { made: "orch" } }, data: { color: "blue" } },
    });
    assert.equal(created.status, 201, created.body);
    const uid = (json(created) as { metadata: { uid: string } }).metadata.uid;
    const stored = await getRaw("/registry/configmaps/interop/orch-cm");
    assert.ok(stored !== undefined, "the config map is at /registry/configmaps/interop/orch-cm");
    assert.equal(stored.subarray(0, 4).toString("latin1"), "k8s\0");
    const unknown = decode(stored.subarray(4));
    const typeMeta = decode(bytesOf(unknown, 1));
    assert.deepEqual([stringOf(typeMeta, 1), stringOf(typeMeta, 2)], ["v1", "ConfigMap"]);
    const configMap = decode(bytesOf(unknown, 2));
    const metadata = decode(bytesOf(configMap, 1));
    assert.equal(stringOf(metadata, 1), "orch-cm");
    assert.equal(stringOf(metadata, 3), "interop");
    assert.equal(stringOf(metadata, 5), uid);
    assert.equal(metadata.has(6), false, "no resourceVersion is stored");
    assert.deepEqual(mapOf(metadata, 11), { made: "orch" });
    assert.deepEqual(mapOf(configMap, 2), { color: "blue" });
  });

  it("keys every kind where kube does, with the storage version kube uses", async () => {
    const writes: [path: string, body: Record<string, unknown>, key: string, apiVersion: string, kind: string][] = [
      [
        "/apis/apps/v1/namespaces/interop/deployments",
        {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: "orch-deploy" },
          spec: {
            replicas: 2,
            selector: { matchLabels: { app: "o" } },
            template: { metadata: { labels: { app: "o" } }, spec: { containers: [{ name: "c", image: "busybox" }] } },
          },
        },
        "/registry/deployments/interop/orch-deploy",
        "apps/v1",
        "Deployment",
      ],
      [
        "/api/v1/namespaces/interop/services",
        { apiVersion: "v1", kind: "Service", metadata: { name: "orch-svc" }, spec: { selector: { app: "web" }, ports: [{ port: 80 }] } },
        "/registry/services/specs/interop/orch-svc",
        "v1",
        "Service",
      ],
      [
        "/apis/coordination.k8s.io/v1/namespaces/interop/leases",
        { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "orch-lease" }, spec: { holderIdentity: "a" } },
        "/registry/leases/interop/orch-lease",
        "coordination.k8s.io/v1",
        "Lease",
      ],
      [
        "/apis/networking.k8s.io/v1/namespaces/interop/ingresses",
        {
          apiVersion: "networking.k8s.io/v1",
          kind: "Ingress",
          metadata: { name: "orch-ingress" },
          spec: { defaultBackend: { service: { name: "orch-svc", port: { number: 80 } } } },
        },
        "/registry/ingress/interop/orch-ingress",
        "networking.k8s.io/v1",
        "Ingress",
      ],
      [
        "/apis/events.k8s.io/v1/namespaces/interop/events",
        {
          apiVersion: "events.k8s.io/v1",
          kind: "Event",
          metadata: { name: "orch-event" },
          eventTime: "2024-01-01T00:00:00.000000Z",
          reportingController: "test/interop",
          reportingInstance: "i",
          action: "Test",
          reason: "Tested",
          type: "Normal",
          regarding: { kind: "Pod", namespace: "interop", name: "kube-pod" },
        },
        "/registry/events/interop/orch-event",
        "v1",
        "Event",
      ],
      ["/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: "orch-node" } }, "/registry/minions/orch-node", "v1", "Node"],
    ];
    for (const [path, body, key, apiVersion, kind] of writes) {
      const created = await request(admin, "POST", path, { body });
      assert.equal(created.status, 201, `${path}: ${created.body}`);
      const stored = await getRaw(key);
      assert.ok(stored !== undefined, `${kind} is at ${key}`);
      assert.equal(stored.subarray(0, 4).toString("latin1"), "k8s\0", `${key} is in the protobuf envelope`);
      const typeMeta = decode(bytesOf(decode(stored.subarray(4)), 1));
      assert.deepEqual([stringOf(typeMeta, 1), stringOf(typeMeta, 2)], [apiVersion, kind], key);
    }
    // The Endpoints the endpoints controller writes for the Service: services/endpoints.
    await waitFor(async () => (await getRaw("/registry/services/endpoints/interop/orch-svc")) !== undefined, {
      what: "the service's Endpoints at /registry/services/endpoints/interop/orch-svc",
      timeoutMs: 20_000,
    });
  });

  it("stores custom resources and their definition as JSON at /registry/<group>/<plural>/…, and reads a custom resource kube wrote", async () => {
    const created = await request(admin, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { body: CRD });
    assert.equal(created.status, 201, created.body);
    const crd = await getRaw("/registry/apiextensions.k8s.io/customresourcedefinitions/crontabs.stable.example.com");
    assert.ok(crd !== undefined);
    assert.equal((JSON.parse(crd.toString("utf8")) as { kind: string }).kind, "CustomResourceDefinition");
    await waitFor(async () => (await request(admin, "GET", "/apis/stable.example.com/v1/namespaces/interop/crontabs")).status === 200, {
      what: "the CronTab resource to be served",
      timeoutMs: 20_000,
    });

    // Through the server: JSON at the group-keyed path.
    const made = await request(admin, "POST", "/apis/stable.example.com/v1/namespaces/interop/crontabs", {
      body: { apiVersion: "stable.example.com/v1", kind: "CronTab", metadata: { name: "orch-cron" }, spec: { cronSpec: "* * * * */5" } },
    });
    assert.equal(made.status, 201, made.body);
    const stored = await getRaw("/registry/stable.example.com/crontabs/interop/orch-cron");
    assert.ok(stored !== undefined);
    const object = JSON.parse(stored.toString("utf8")) as { apiVersion: string; spec: unknown; metadata: Record<string, unknown> };
    assert.equal(object.apiVersion, "stable.example.com/v1");
    assert.deepEqual(object.spec, { cronSpec: "* * * * */5" });
    assert.equal(object.metadata["resourceVersion"], undefined);

    // As kube-apiserver writes one (JSON, no resourceVersion), while the server runs: its watch sees it.
    const kubeCron = {
      apiVersion: "stable.example.com/v1",
      kind: "CronTab",
      metadata: { name: "kube-cron", namespace: "interop", uid: "11111111-0000-4000-8000-000000000006", creationTimestamp: CREATED_TEXT, generation: 1 },
      spec: { cronSpec: "0 * * * *" },
    };
    await put("/registry/stable.example.com/crontabs/interop/kube-cron", Buffer.from(`${JSON.stringify(kubeCron)}\n`));
    await waitFor(async () => (await request(admin, "GET", "/apis/stable.example.com/v1/namespaces/interop/crontabs/kube-cron")).status === 200, {
      what: "the kube-written CronTab through the API",
      timeoutMs: 20_000,
    });
    const read = json(await request(admin, "GET", "/apis/stable.example.com/v1/namespaces/interop/crontabs/kube-cron")) as {
      metadata: { uid: string };
      spec: unknown;
    };
    assert.equal(read.metadata.uid, kubeCron.metadata.uid);
    assert.deepEqual(read.spec, kubeCron.spec);
  });

  it("reads the CRDs kube-apiserver stored as v1beta1 JSON as v1, and serves their custom resources", async () => {
    const crd = json(await request(admin, "GET", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${KUBE_CRD.metadata.name}`)) as {
      apiVersion: string;
      metadata: { uid: string };
      spec: {
        versions: { name: string; schema?: unknown; subresources?: unknown; additionalPrinterColumns?: unknown }[];
        version?: string;
        validation?: unknown;
      };
    };
    assert.equal(crd.apiVersion, "apiextensions.k8s.io/v1");
    assert.equal(crd.metadata.uid, KUBE_CRD.metadata.uid);
    assert.equal(crd.spec.version, undefined);
    assert.equal(crd.spec.validation, undefined);
    assert.deepEqual(crd.spec.versions[0]?.schema, KUBE_CRD.spec.validation);
    assert.deepEqual(crd.spec.versions[0]?.subresources, { status: {} });
    assert.deepEqual(crd.spec.versions[0]?.additionalPrinterColumns, [{ name: "Size", type: "string", jsonPath: ".spec.size" }]);
    await waitFor(async () => (await request(admin, "GET", "/apis/kube.example.com/v1/namespaces/interop/widgets/w1")).status === 200, {
      what: "kube's Widget through the API",
      timeoutMs: 20_000,
    });
    const widget = json(await request(admin, "GET", "/apis/kube.example.com/v1/namespaces/interop/widgets/w1")) as { metadata: { uid: string }; spec: unknown };
    assert.equal(widget.metadata.uid, "11111111-0000-4000-8000-000000000008");
    assert.deepEqual(widget.spec, { size: "large" });
  });
});
