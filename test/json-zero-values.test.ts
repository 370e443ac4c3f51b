// Go zero values on the JSON path. kube decodes a built-in kind's body into its Go struct and writes
// that struct back: a non-pointer `omitempty` field holding "" / 0 / false / an empty list is gone,
// a pointer field's explicit zero stays, and a non-pointer struct (`resources` of a container) is
// always written. The same objects are created three ways — kubectl 1.27 `create -f` (JSON), the
// Python client (JSON) and a protobuf POST — in both profiles, and must read back identical and as
// kube shows them.
import assert from "node:assert/strict";
import https from "node:https";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { before, describe, it } from "node:test";
import { parseAllDocuments, stringify } from "yaml";
import { apiGroup, KUBERNETES_PROFILE, ORCH_PROFILE, type Profile } from "../src/api/profile.js";
import { protobufCodec } from "../src/codec/protobuf/codec.js";
import { type Credentials, json, request } from "./helpers/http.js";
import { kubectlFor } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";

type Json = Record<string, unknown>;

const FIXTURES = fileURLToPath(new URL("../../test/fixtures/real-manifests/", import.meta.url));
const NAMESPACE = "default";

const container = (name: string): Json => ({
  name,
  image: "nginx:1.25",
  env: [
    { name: "EMPTY", value: "" },
    { name: "SET", value: "x" },
  ],
  stdin: false,
  tty: false,
  workingDir: "",
  command: [],
  ports: [{ containerPort: 80, hostPort: 0, name: "", hostIP: "" }],
  volumeMounts: [{ name: "config", mountPath: "/etc/x", readOnly: false, subPath: "" }],
  securityContext: { runAsUser: 0, readOnlyRootFilesystem: false, privileged: false, allowPrivilegeEscalation: false },
  livenessProbe: { initialDelaySeconds: 0, periodSeconds: 0, httpGet: { path: "/", port: 80, host: "" } },
});

const podSpec = (): Json => ({
  automountServiceAccountToken: false,
  enableServiceLinks: false,
  terminationGracePeriodSeconds: 0,
  hostNetwork: false,
  hostPID: false,
  serviceAccountName: "",
  nodeSelector: {},
  tolerations: [],
  initContainers: [{ name: "init", image: "busybox" }],
  containers: [container("main")],
  volumes: [{ name: "config", configMap: { name: "settings", optional: false, items: [{ key: "a", path: "a" }] } }],
});

const labels = { app: "zeros" };

/** Volume sources, security contexts and scheduling fields with Go zeros (checked in sweep 13). */
const volumePodSpec = (): Json => ({
  securityContext: { fsGroup: 0, runAsNonRoot: false, supplementalGroups: [], sysctls: [] },
  dnsConfig: {
    nameservers: [],
    options: [
      { name: "ndots", value: "2" },
      { name: "single-request", value: "" },
    ],
  },
  affinity: {
    nodeAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: "k", operator: "Exists", values: [] }] } }],
    },
  },
  containers: [
    {
      name: "main",
      image: "nginx:1.25",
      securityContext: {
        runAsUser: 0,
        runAsGroup: 0,
        runAsNonRoot: false,
        seLinuxOptions: { user: "", role: "" },
        capabilities: { add: [], drop: ["ALL"] },
        seccompProfile: { type: "RuntimeDefault" },
      },
      volumeMounts: [{ name: "csi", mountPath: "/csi" }],
    },
  ],
  volumes: [
    { name: "csi", csi: { driver: "csi.example.com", fsType: "", readOnly: false, volumeAttributes: {} } },
    { name: "nfs", nfs: { server: "nfs.example.com", path: "/exports", readOnly: false } },
    { name: "host", hostPath: { path: "/var/log", type: "" } },
    { name: "scratch", emptyDir: { medium: "" } },
    { name: "claim", persistentVolumeClaim: { claimName: "data", readOnly: false } },
  ],
});

/** Objects written with Go zero values, in kube's spelling (the orch profile renames the RBAC group). */
function ownObjects(profile: Profile): Json[] {
  const template = { metadata: { labels }, spec: podSpec() };
  return [
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "deploy" },
      spec: { replicas: 0, minReadySeconds: 0, paused: false, selector: { matchLabels: labels }, template },
    },
    { apiVersion: "v1", kind: "Pod", metadata: { name: "pod", labels }, spec: podSpec() },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "svc" },
      spec: { selector: labels, publishNotReadyAddresses: false, externalIPs: [], ports: [{ port: 80, name: "", nodePort: 0 }] },
    },
    { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "ds" }, spec: { minReadySeconds: 0, selector: { matchLabels: labels }, template } },
    {
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: { name: "cron" },
      spec: {
        schedule: "*/5 * * * *",
        suspend: false,
        jobTemplate: { spec: { backoffLimit: 0, template: { spec: { ...podSpec(), restartPolicy: "Never" } } } },
      },
    },
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" }, immutable: false, data: { a: "" } },
    { apiVersion: "v1", kind: "Pod", metadata: { name: "vols", labels }, spec: volumePodSpec() },
    {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "sts" },
      spec: {
        replicas: 0,
        serviceName: "",
        minReadySeconds: 0,
        revisionHistoryLimit: 0,
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
        volumeClaimTemplates: [],
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { ...volumePodSpec(), tolerations: [{ key: "", operator: "Exists", effect: "", value: "" }] } },
      },
    },
    {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: { name: "rs" },
      spec: { replicas: 0, minReadySeconds: 0, selector: { matchLabels: labels }, template },
    },
    {
      apiVersion: `${apiGroup(profile, "networking")}/v1`,
      kind: "Ingress",
      metadata: { name: "ing" },
      spec: {
        tls: [{ hosts: [], secretName: "" }],
        rules: [{ host: "", http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "svc", port: { number: 80, name: "" } } } }] } }],
      },
    },
    {
      apiVersion: `${apiGroup(profile, "networking")}/v1`,
      kind: "NetworkPolicy",
      metadata: { name: "np" },
      spec: {
        policyTypes: ["Ingress", "Egress"],
        ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/8", except: [] } }], ports: [{ port: 80, protocol: "TCP" }] }],
        egress: [{ to: [], ports: [] }],
      },
    },
    {
      apiVersion: `${apiGroup(profile, "rbac.authorization")}/v1`,
      kind: "RoleBinding",
      metadata: { name: "rb" },
      roleRef: { apiGroup: apiGroup(profile, "rbac.authorization"), kind: "Role", name: "reader" },
      subjects: [{ kind: "ServiceAccount", name: "default", namespace: NAMESPACE, apiGroup: "" }],
    },
  ];
}

/** Workloads of kubernetes/website's examples (test/fixtures/real-manifests). */
function fixtureObjects(): Json[] {
  const objects: Json[] = [];
  for (const file of ["website-workloads.yaml", "website-pods.yaml"]) {
    for (const document of parseAllDocuments(readFileSync(join(FIXTURES, file), "utf8"))) {
      const object = document.toJS() as Json | null;
      if (object === null || !["Deployment", "DaemonSet", "StatefulSet", "Job", "Pod"].includes(String(object["kind"]))) continue;
      const metadata = object["metadata"] as Json;
      delete metadata["namespace"];
      metadata["name"] = `fx-${objects.length}`;
      objects.push(object);
    }
  }
  return objects;
}

function pathOf(object: Json, name?: string): string {
  const apiVersion = String(object["apiVersion"]);
  const kind = String(object["kind"]).toLowerCase();
  const plural = kind.endsWith("y") ? `${kind.slice(0, -1)}ies` : kind.endsWith("s") ? `${kind}es` : `${kind}s`;
  const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return `${base}/namespaces/${NAMESPACE}/${plural}${name === undefined ? "" : `/${name}`}`;
}

function renamed(object: Json, suffix: string): Json {
  const copy = structuredClone(object);
  const metadata = copy["metadata"] as Json;
  metadata["name"] = `${String(metadata["name"])}-${suffix}`;
  return copy;
}

function postBytes(credentials: Credentials, path: string, contentType: string, body: Uint8Array): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, credentials.url);
    const headers = { "content-type": contentType, accept: "application/json", "user-agent": "json-zero-values/1.0" };
    const req = https.request(url, { method: "POST", headers, ca: credentials.ca, cert: credentials.cert, key: credentials.key }, (response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => {
        text += chunk.toString("utf8");
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(Buffer.from(body));
  });
}

/** Posts each body as JSON with the Debian python3-kubernetes client's ApiClient. */
const PYTHON_SCRIPT = `
import json, sys
from kubernetes import client, config
config.load_kube_config(config_file=sys.argv[1])
api = client.ApiClient()
for path, body in json.load(open(sys.argv[2])):
    api.call_api(path, "POST", body=body, header_params={"Content-Type": "application/json"}, response_type="object", _return_http_data_only=True)
print("done", flush=True)
`;
import { runPythonScript } from "./helpers/python.js";

function runPython(kubeconfig: string, file: string): Promise<{ code: number | null; output: string }> {
  return runPythonScript(PYTHON_SCRIPT, [kubeconfig, file]);
}

/** What must agree between the three copies: the object without its identity, status and allocations. */
function comparable(object: Json): Json {
  const metadata = object["metadata"] as Json;
  const name = String(metadata["name"]);
  const uid = String(metadata["uid"]);
  const copy = structuredClone(object);
  delete copy["status"];
  const meta = copy["metadata"] as Json;
  for (const key of ["name", "uid", "resourceVersion", "creationTimestamp", "managedFields", "annotations"]) delete meta[key];
  const spec = copy["spec"] as Json | undefined;
  if (spec !== undefined && copy["kind"] === "Service") for (const key of ["clusterIP", "clusterIPs"]) delete spec[key];
  // The service-account token volume has a random suffix; a Job's selector names its uid.
  const base = name.replace(/-(j|py|pb)$/, "");
  return JSON.parse(
    JSON.stringify(copy)
      .replaceAll(uid, "UID")
      .replaceAll(name, base)
      .replace(/-api-access-[a-z0-9]{5}/g, "-api-access-XXXXX"),
  ) as Json;
}

const containersOf = (spec: Json): Json[] => [...((spec["initContainers"] as Json[] | undefined) ?? []), ...(spec["containers"] as Json[])];

/** The fields checked against kube 1.30's Go types (see docs/parity-sweep-2026-11-27.md, sweep 12). */
function checkPodSpec(spec: Json, where: string): void {
  assert.equal(spec["automountServiceAccountToken"], false, `${where}: *bool false kept`);
  assert.equal(spec["enableServiceLinks"], false, `${where}: *bool false kept`);
  assert.equal(spec["terminationGracePeriodSeconds"], 0, `${where}: *int64 0 kept`);
  // A pod's tolerations and service account are admission's (as in kube); a template's are as sent.
  for (const gone of ["hostNetwork", "hostPID", "nodeSelector", ...(where.startsWith("pod-") ? [] : ["tolerations", "serviceAccountName"])]) {
    assert.equal(spec[gone], undefined, `${where}: ${gone} omitted`);
  }
  for (const each of containersOf(spec)) {
    // A pod's requests may come from a LimitRange's defaults (admission); a template's are as sent.
    if (where.startsWith("pod-")) assert.equal(typeof each["resources"], "object", `${where}: resources on ${String(each["name"])}`);
    else assert.deepEqual(each["resources"], {}, `${where}: resources {} on ${String(each["name"])}`);
  }
  const main = (spec["containers"] as Json[])[0] as Json;
  assert.deepEqual(main["env"], [{ name: "EMPTY" }, { name: "SET", value: "x" }], `${where}: env value "" omitted`);
  for (const gone of ["stdin", "tty", "workingDir", "command"]) assert.equal(main[gone], undefined, `${where}: ${gone} omitted`);
  assert.deepEqual(main["ports"], [{ containerPort: 80, protocol: "TCP" }], `${where}: port zeros omitted`);
  assert.deepEqual(main["volumeMounts"], [{ name: "config", mountPath: "/etc/x" }], `${where}: mount zeros omitted`);
  assert.deepEqual(
    main["securityContext"],
    { runAsUser: 0, readOnlyRootFilesystem: false, privileged: false, allowPrivilegeEscalation: false },
    `${where}: pointers kept`,
  );
  const probe = main["livenessProbe"] as Json;
  assert.equal(probe["initialDelaySeconds"], undefined, `${where}: initialDelaySeconds 0 omitted`);
  assert.equal(probe["periodSeconds"], 10, `${where}: periodSeconds 0 defaulted as Go's zero`);
  assert.deepEqual(probe["httpGet"], { path: "/", port: 80, scheme: "HTTP" }, `${where}: host "" omitted`);
  const volume = (spec["volumes"] as Json[])[0] as Json;
  assert.deepEqual(
    volume["configMap"],
    { name: "settings", optional: false, items: [{ key: "a", path: "a" }], defaultMode: 420 },
    `${where}: optional false kept`,
  );
}

/** Volume sources, security contexts and scheduling fields (sweep 13). */
function checkVolumePodSpec(spec: Json, where: string): void {
  assert.deepEqual(
    spec["volumes"],
    [
      { name: "csi", csi: { driver: "csi.example.com", fsType: "", readOnly: false } },
      { name: "nfs", nfs: { server: "nfs.example.com", path: "/exports" } },
      { name: "host", hostPath: { path: "/var/log", type: "" } },
      { name: "scratch", emptyDir: {} },
      { name: "claim", persistentVolumeClaim: { claimName: "data" } },
      ...((spec["volumes"] as Json[]).length > 5 ? (spec["volumes"] as Json[]).slice(5) : []),
    ],
    `${where}: csi's *string fsType "" and *bool readOnly false kept, readOnly/medium/type zeros as kube shows them`,
  );
  const podContext = spec["securityContext"] as Json;
  assert.equal(podContext["fsGroup"], 0, `${where}: *int64 fsGroup 0 kept`);
  assert.equal(podContext["runAsNonRoot"], false, `${where}: *bool runAsNonRoot kept`);
  for (const gone of ["supplementalGroups", "sysctls"]) assert.equal(podContext[gone], undefined, `${where}: ${gone} [] omitted`);
  assert.deepEqual(
    spec["dnsConfig"],
    {
      options: [
        { name: "ndots", value: "2" },
        { name: "single-request", value: "" },
      ],
    },
    `${where}: *string option value "" kept, nameservers [] omitted`,
  );
  const preferred = (((spec["affinity"] as Json)["nodeAffinity"] as Json)["preferredDuringSchedulingIgnoredDuringExecution"] as Json[])[0] as Json;
  assert.deepEqual(preferred, { weight: 1, preference: { matchExpressions: [{ key: "k", operator: "Exists" }] } }, `${where}: values [] omitted`);
  const main = (spec["containers"] as Json[])[0] as Json;
  assert.deepEqual(
    main["securityContext"],
    { runAsUser: 0, runAsGroup: 0, runAsNonRoot: false, seLinuxOptions: {}, capabilities: { drop: ["ALL"] }, seccompProfile: { type: "RuntimeDefault" } },
    `${where}: pointers kept, seLinuxOptions strings and capabilities.add [] omitted`,
  );
}

function checkKubeShape(object: Json): void {
  const kind = String(object["kind"]);
  const name = String((object["metadata"] as Json)["name"]);
  const spec = object["spec"] as Json | undefined;
  switch (kind) {
    case "Deployment": {
      const deploymentSpec = spec as Json;
      assert.equal(deploymentSpec["replicas"], 0, `${name}: replicas 0 kept`);
      for (const gone of ["minReadySeconds", "paused"]) assert.equal(deploymentSpec[gone], undefined, `${name}: ${gone} omitted`);
      checkPodSpec((deploymentSpec["template"] as Json)["spec"] as Json, name);
      return;
    }
    case "DaemonSet":
      assert.equal((spec as Json)["minReadySeconds"], undefined, `${name}: minReadySeconds omitted`);
      checkPodSpec(((spec as Json)["template"] as Json)["spec"] as Json, name);
      return;
    case "Pod":
      if (name.startsWith("vols-")) checkVolumePodSpec(spec as Json, name);
      else checkPodSpec(spec as Json, name);
      return;
    case "CronJob": {
      assert.equal((spec as Json)["suspend"], false, `${name}: *bool suspend kept`);
      const jobSpec = ((spec as Json)["jobTemplate"] as Json)["spec"] as Json;
      assert.equal(jobSpec["backoffLimit"], 0, `${name}: *int32 backoffLimit kept`);
      return;
    }
    case "Service": {
      const serviceSpec = spec as Json;
      for (const gone of ["publishNotReadyAddresses", "externalIPs"]) assert.equal(serviceSpec[gone], undefined, `${name}: ${gone} omitted`);
      assert.deepEqual(serviceSpec["ports"], [{ port: 80, protocol: "TCP", targetPort: 80 }], `${name}: port zeros omitted`);
      return;
    }
    case "ConfigMap":
      assert.equal(object["immutable"], false, `${name}: *bool immutable kept`);
      assert.deepEqual(object["data"], { a: "" }, `${name}: map values are not fields`);
      return;
    case "StatefulSet": {
      const setSpec = spec as Json;
      assert.equal(setSpec["replicas"], 0, `${name}: *int32 replicas kept`);
      assert.equal(setSpec["revisionHistoryLimit"], 0, `${name}: *int32 revisionHistoryLimit kept`);
      assert.equal(setSpec["serviceName"], "", `${name}: serviceName (no omitempty in 1.30) kept`);
      for (const gone of ["minReadySeconds", "volumeClaimTemplates"]) assert.equal(setSpec[gone], undefined, `${name}: ${gone} omitted`);
      assert.deepEqual(setSpec["updateStrategy"], { type: "RollingUpdate", rollingUpdate: { partition: 0 } }, `${name}: *int32 partition kept`);
      const podSpec = (setSpec["template"] as Json)["spec"] as Json;
      checkVolumePodSpec(podSpec, name);
      assert.deepEqual(podSpec["tolerations"], [{ operator: "Exists" }], `${name}: toleration key/effect/value "" omitted`);
      return;
    }
    case "ReplicaSet":
      assert.equal((spec as Json)["replicas"], 0, `${name}: *int32 replicas kept`);
      assert.equal((spec as Json)["minReadySeconds"], undefined, `${name}: minReadySeconds omitted`);
      checkPodSpec(((spec as Json)["template"] as Json)["spec"] as Json, name);
      return;
    case "Ingress":
      assert.deepEqual(
        spec,
        {
          tls: [{}],
          rules: [{ http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "svc", port: { number: 80 } } } }] } }],
        },
        `${name}: tls hosts/secretName, rule host and port name zeros omitted`,
      );
      return;
    case "NetworkPolicy":
      assert.deepEqual(
        spec,
        {
          podSelector: {},
          policyTypes: ["Ingress", "Egress"],
          ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/8" } }], ports: [{ port: 80, protocol: "TCP" }] }],
          egress: [{}],
        },
        `${name}: podSelector written (a non-pointer struct), empty lists omitted`,
      );
      return;
    case "RoleBinding":
      assert.deepEqual(object["subjects"], [{ kind: "ServiceAccount", name: "default", namespace: NAMESPACE }], `${name}: subject apiGroup "" omitted`);
      return;
  }
}

for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
  describe(`Go zero values of objects created as JSON and as protobuf (${profile.name} profile)`, () => {
    const server = useTestServer(profile === KUBERNETES_PROFILE ? { profile } : {});
    const codec = protobufCodec(profile);
    const own = ownObjects(profile);
    const objects = [...own, ...(profile === KUBERNETES_PROFILE ? fixtureObjects() : [])];

    before(async () => {
      const { dataDir, admin } = server();
      const kubectl = kubectlFor(server().server.kubeconfigPath, `${dataDir}/kubectl-1.27`, "1.27");
      const manifest = join(dataDir, "zeros.yaml");
      writeFileSync(manifest, objects.map((object) => stringify(renamed(object, "j"))).join("---\n"));
      const created = await kubectl(["create", "-n", NAMESPACE, "-f", manifest]);
      assert.equal(created.code, 0, created.stderr);

      const bodies = join(dataDir, "zeros.json");
      writeFileSync(bodies, JSON.stringify(objects.map((object) => [pathOf(object), renamed(object, "py")])));
      const python = await runPython(server().server.kubeconfigPath, bodies);
      assert.match(python.output, /done/, python.output);

      for (const object of objects) {
        const answer = await postBytes(admin, pathOf(object), profile.protobufMediaType, codec.encode(renamed(object, "pb")));
        assert.equal(answer.status, 201, answer.text);
      }
    });

    it("kubectl 1.27 (JSON), the Python client (JSON) and protobuf store the same object", async () => {
      for (const object of objects) {
        const name = String((object["metadata"] as Json)["name"]);
        const [viaKubectl, viaPython, viaProtobuf] = await Promise.all(
          ["j", "py", "pb"].map(async (suffix) => json(await request(server().admin, "GET", pathOf(object, `${name}-${suffix}`)))),
        );
        assert.deepEqual(comparable(viaPython as Json), comparable(viaKubectl as Json), `${name}: python vs kubectl`);
        assert.deepEqual(comparable(viaProtobuf as Json), comparable(viaKubectl as Json), `${name}: protobuf vs kubectl`);
      }
    });

    it("zero values read back as kube shows them: non-pointer omitempty zeros gone, pointer zeros kept, resources: {}", async () => {
      for (const object of own) {
        const name = String((object["metadata"] as Json)["name"]);
        for (const suffix of ["j", "py", "pb"]) checkKubeShape(json(await request(server().admin, "GET", pathOf(object, `${name}-${suffix}`))));
      }
    });
  });
}
