// Resource quantities read back as kube-apiserver 1.30 answers them: kube decodes every quantity of a
// built-in kind into apimachinery's Quantity and writes it back with Quantity's own serialization
// ("0.5" → "500m", "1.5Gi" → "1536Mi", "1024Mi" → "1Gi", canonical text kept as written), on every
// write path: create, apply (client-side and server-side), each patch type and replace, with the
// oldest and newest kubectl (the newest sends protobuf for some writes) and the Python client, in both
// profiles. Custom resources are kept as written (kube stores them as unstructured JSON).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import https from "node:https";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { apiGroup, KUBERNETES_PROFILE, ORCH_PROFILE } from "../src/api/profile.js";
import { protobufCodec } from "../src/codec/protobuf/codec.js";
import { type Credentials, request } from "./helpers/http.js";
import { type Kubectl, kubectlFor, resolveKubectl } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";

async function ok(kubectl: Kubectl, args: readonly string[]): Promise<string> {
  const result = await kubectl(args, { timeoutMs: 60_000 });
  assert.equal(result.code, 0, `kubectl ${args.join(" ")}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

function python(script: string, args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { PATH: "/usr/bin:/bin", HOME: process.env["HOME"] ?? "/tmp", PYTHONNOUSERSITE: "1" };
  const child = spawn("/usr/bin/python3", ["-c", script, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** A POST of a protobuf body, answered in JSON. */
function postProtobuf(credentials: Credentials, path: string, body: Uint8Array): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = { "content-type": "application/vnd.kubernetes.protobuf", accept: "application/json" };
    const req = https.request(
      new URL(path, credentials.url),
      { method: "POST", headers, ca: credentials.ca, cert: credentials.cert, key: credentials.key },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        response.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(Buffer.from(body));
  });
}

const PYTHON_SCRIPT = `
import json, sys
from kubernetes import client, config
config.load_kube_config(config_file=sys.argv[1])
v1 = client.CoreV1Api()
body = client.V1ResourceQuota(metadata=client.V1ObjectMeta(name="from-python"), spec=client.V1ResourceQuotaSpec(hard={"cpu": "0.5", "memory": "1.5Gi", "pods": "1000"}))
created = v1.create_namespaced_resource_quota(sys.argv[2], body)
got = v1.read_namespaced_resource_quota("from-python", sys.argv[2])
patched = v1.patch_namespaced_resource_quota("from-python", sys.argv[2], {"spec": {"hard": {"cpu": "2.0"}}})
print(json.dumps({"created": created.spec.hard, "got": got.spec.hard, "patched": patched.spec.hard}))
`;

const POD = (name: string): string => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  containers:
  - name: app
    image: busybox
    resources:
      requests: {cpu: "0.5", memory: "1.5Gi"}
      limits: {cpu: "1.0", memory: "2048Mi"}
    volumeMounts: [{name: scratch, mountPath: /scratch}]
  volumes:
  - name: scratch
    emptyDir: {sizeLimit: "2048Ki"}
`;

const QUOTA = (cpu: string): string => `apiVersion: v1
kind: ResourceQuota
metadata:
  name: compute
spec:
  hard: {cpu: "${cpu}", memory: "1000M", pods: "10"}
`;

const LIMITS = `apiVersion: v1
kind: LimitRange
metadata:
  name: defaults
spec:
  limits:
  - type: Container
    default: {cpu: "0.2", memory: "2048Ki"}
    defaultRequest: {cpu: "0.1", memory: "1024Ki"}
    maxLimitRequestRatio: {cpu: "10.0"}
`;

const PVC = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: "1000M"}}
`;

for (const profile of [KUBERNETES_PROFILE, ORCH_PROFILE]) {
  describe(`quantities read back in kube's canonical form (${profile.name} profile)`, () => {
    const server = useTestServer({ profile });

    async function namespace(name: string): Promise<void> {
      const created = await request(server().admin, "POST", "/api/v1/namespaces", { body: { metadata: { name } } });
      assert.equal(created.status, 201, created.body);
    }

    function files(name: string): string {
      const dir = join(server().dataDir, "manifests", name);
      mkdirSync(dir, { recursive: true });
      return dir;
    }

    for (const version of ["oldest", "newest"] as const) {
      const release = resolveKubectl(version).version;
      it(`kubectl ${release}: create, apply, apply --server-side, patch (json, merge, strategic) and replace`, async () => {
        const kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, version);
        const ns = `quantities-${release.replace(".", "-")}`;
        await namespace(ns);
        const dir = files(ns);
        const get = (kind: string, name: string, path: string): Promise<string> => ok(kubectl, ["get", kind, name, "-n", ns, "-o", `jsonpath=${path}`]);

        // create -f: a pod's requests, limits and emptyDir size.
        writeFileSync(join(dir, "pod.yaml"), POD("app"));
        await ok(kubectl, ["create", "-n", ns, "-f", join(dir, "pod.yaml")]);
        assert.equal(await get("pod", "app", "{.spec.containers[0].resources.requests.cpu} {.spec.containers[0].resources.requests.memory}"), "500m 1536Mi");
        assert.equal(await get("pod", "app", "{.spec.containers[0].resources.limits.cpu} {.spec.containers[0].resources.limits.memory}"), "1 2Gi");
        assert.equal(await get("pod", "app", "{.spec.volumes[0].emptyDir.sizeLimit}"), "2Mi");

        // apply (client-side): LimitRange limits; then the LimitRanger's defaults on a pod without resources.
        writeFileSync(join(dir, "limits.yaml"), LIMITS);
        await ok(kubectl, ["apply", "-n", ns, "-f", join(dir, "limits.yaml")]);
        assert.equal(
          await get(
            "limitrange",
            "defaults",
            "{.spec.limits[0].default.cpu} {.spec.limits[0].default.memory} {.spec.limits[0].defaultRequest.cpu} {.spec.limits[0].defaultRequest.memory} {.spec.limits[0].maxLimitRequestRatio.cpu}",
          ),
          "200m 2Mi 100m 1Mi 10",
        );
        await ok(kubectl, ["run", "bare", "-n", ns, "--image=busybox", "--restart=Never"]);
        assert.equal(
          await get(
            "pod",
            "bare",
            "{.spec.containers[0].resources.requests.cpu} {.spec.containers[0].resources.requests.memory} {.spec.containers[0].resources.limits.cpu} {.spec.containers[0].resources.limits.memory}",
          ),
          "100m 1Mi 200m 2Mi",
        );
        // Applying the same text again changes nothing (the stored canonical text is what the text means).
        const limitVersion = await get("limitrange", "defaults", "{.metadata.resourceVersion}");
        await ok(kubectl, ["apply", "-n", ns, "-f", join(dir, "limits.yaml")]);
        assert.equal(await get("limitrange", "defaults", "{.metadata.resourceVersion}"), limitVersion);

        // apply --server-side: a quota; a second apply of "0.5" over the stored "500m" is a no-op.
        writeFileSync(join(dir, "quota.yaml"), QUOTA("0.5"));
        await ok(kubectl, ["apply", "--server-side", "-n", ns, "-f", join(dir, "quota.yaml")]);
        assert.equal(await get("resourcequota", "compute", "{.spec.hard.cpu} {.spec.hard.memory} {.spec.hard.pods}"), "500m 1G 10");
        // The quota controller writes status.used once: read the version after it did.
        for (let attempt = 0; (await get("resourcequota", "compute", "{.status.used.pods}")) === "" && attempt < 100; attempt++)
          await new Promise((resolve) => setTimeout(resolve, 100));
        assert.equal(await get("resourcequota", "compute", "{.status.hard.cpu} {.status.used.pods} {.status.used.cpu}"), "500m 2 600m");
        const quotaVersion = await get("resourcequota", "compute", "{.metadata.resourceVersion}");
        // A second later, so that a refreshed managedFields time would show as a change.
        await new Promise((resolve) => setTimeout(resolve, 1100));
        const again = await ok(kubectl, ["apply", "--server-side", "-n", ns, "-f", join(dir, "quota.yaml")]);
        assert.match(again, /serverside-applied|unchanged/);
        assert.equal(await get("resourcequota", "compute", "{.metadata.resourceVersion}"), quotaVersion);
        assert.equal(await get("resourcequota", "compute", "{.spec.hard.cpu}"), "500m");

        // patch, each type.
        await ok(kubectl, ["patch", "resourcequota", "compute", "-n", ns, "--type=json", "-p", '[{"op":"replace","path":"/spec/hard/pods","value":"1000"}]']);
        assert.equal(await get("resourcequota", "compute", "{.spec.hard.pods}"), "1k");
        await ok(kubectl, ["patch", "resourcequota", "compute", "-n", ns, "--type=merge", "-p", '{"spec":{"hard":{"memory":"1024Mi"}}}']);
        assert.equal(await get("resourcequota", "compute", "{.spec.hard.memory}"), "1Gi");
        await ok(kubectl, ["patch", "resourcequota", "compute", "-n", ns, "--type=strategic", "-p", '{"spec":{"hard":{"cpu":"2.0"}}}']);
        assert.equal(await get("resourcequota", "compute", "{.spec.hard.cpu}"), "2");

        // replace -f: a PVC's request.
        writeFileSync(join(dir, "pvc.yaml"), PVC);
        await ok(kubectl, ["create", "-n", ns, "-f", join(dir, "pvc.yaml")]);
        assert.equal(await get("pvc", "data", "{.spec.resources.requests.storage}"), "1G");
        writeFileSync(join(dir, "quota.yaml"), QUOTA("0.25"));
        await ok(kubectl, ["replace", "-n", ns, "-f", join(dir, "quota.yaml")]);
        assert.equal(await get("resourcequota", "compute", "{.spec.hard.cpu} {.spec.hard.memory}"), "250m 1G");

        // Readers still read them: describe quota and limitrange.
        const quota = await ok(kubectl, ["describe", "resourcequota", "compute", "-n", ns]);
        assert.match(quota, /cpu\s+\S+\s+250m/);
        const limits = await ok(kubectl, ["describe", "limitrange", "defaults", "-n", ns]);
        assert.match(limits, /Container\s+cpu\s+-\s+-\s+100m\s+200m\s+10/);
      });
    }

    it("an invalid quantity is still refused with kube's message", async () => {
      const ns = "quantities-invalid";
      await namespace(ns);
      const created = await request(server().admin, "POST", `/api/v1/namespaces/${ns}/resourcequotas`, {
        body: { apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "bad" }, spec: { hard: { cpu: "1.2.3" } } },
      });
      // kube's decoder refuses it: 400, the parser's error after the kind's "cannot be handled".
      assert.equal(created.status, 400, created.body);
      assert.match(
        created.body,
        /ResourceQuota in version \\"v1\\" cannot be handled as a ResourceQuota: quantities must match the regular expression '\^\(\[\+-\]\?\[0-9\.\]\+\)\(\[eEinumkKMGTP\]\*\[-\+\]\?\[0-9\]\*\)\$'/,
      );
      const suffix = await request(server().admin, "POST", `/api/v1/namespaces/${ns}/resourcequotas`, {
        body: { apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "bad" }, spec: { hard: { cpu: "1i" } } },
      });
      assert.equal(suffix.status, 400, suffix.body);
      assert.match(suffix.body, /cannot be handled as a ResourceQuota: unable to parse quantity's suffix/);
      // Surrounding whitespace is trimmed by kube's decoding: accepted, stored canonical.
      const spaced = await request(server().admin, "POST", `/api/v1/namespaces/${ns}/resourcequotas`, {
        body: { apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "spaced" }, spec: { hard: { cpu: " 0.5 " } } },
      });
      assert.equal(spaced.status, 201, spaced.body);
      assert.equal((JSON.parse(spaced.body) as { spec: { hard: Record<string, string> } }).spec.hard["cpu"], "500m");
    });

    it("a protobuf body's quantities are stored canonical too", async () => {
      const ns = "quantities-protobuf";
      await namespace(ns);
      const codec = protobufCodec(profile);
      const body = codec.encode({
        apiVersion: "v1",
        kind: "ResourceQuota",
        metadata: { name: "pb" },
        spec: { hard: { cpu: "0.5", memory: "1024Mi", pods: "01" } },
      });
      const created = await postProtobuf(server().admin, `/api/v1/namespaces/${ns}/resourcequotas`, body);
      assert.equal(created.status, 201, created.body);
      assert.deepEqual((JSON.parse(created.body) as { spec: { hard: Record<string, string> } }).spec.hard, { cpu: "500m", memory: "1Gi", pods: "01" });
    });

    it("the Python client reads back canonical text", async () => {
      const ns = "quantities-python";
      await namespace(ns);
      const run = await python(PYTHON_SCRIPT, [server().server.kubeconfigPath, ns]);
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      const steps = JSON.parse(run.stdout.trim()) as Record<string, Record<string, string>>;
      assert.deepEqual(steps["created"], { cpu: "500m", memory: "1536Mi", pods: "1k" });
      assert.deepEqual(steps["got"], { cpu: "500m", memory: "1536Mi", pods: "1k" });
      assert.deepEqual(steps["patched"], { cpu: "2", memory: "1536Mi", pods: "1k" });
    });

    it("a custom resource keeps a quantity-like string as written", async () => {
      const group = "quantities.example.com";
      const crd = await request(server().admin, "POST", `/apis/${apiGroup(profile, "apiextensions")}/v1/customresourcedefinitions`, {
        body: {
          apiVersion: `${apiGroup(profile, "apiextensions")}/v1`,
          kind: "CustomResourceDefinition",
          metadata: { name: `widgets.${group}` },
          spec: {
            group,
            scope: "Namespaced",
            names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
            versions: [
              {
                name: "v1",
                served: true,
                storage: true,
                schema: {
                  openAPIV3Schema: {
                    type: "object",
                    properties: {
                      spec: {
                        type: "object",
                        properties: { size: { "x-kubernetes-int-or-string": true }, cpu: { type: "string" } },
                      },
                    },
                  },
                },
              },
            ],
          },
        },
      });
      assert.equal(crd.status, 201, crd.body);
      const path = `/apis/${group}/v1/namespaces/default/widgets`;
      let created = await request(server().admin, "POST", path, {
        body: { apiVersion: `${group}/v1`, kind: "Widget", metadata: { name: "w" }, spec: { size: "0.5", cpu: "1024Mi" } },
      });
      for (let attempt = 0; created.status === 404 && attempt < 50; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        created = await request(server().admin, "POST", path, {
          body: { apiVersion: `${group}/v1`, kind: "Widget", metadata: { name: "w" }, spec: { size: "0.5", cpu: "1024Mi" } },
        });
      }
      assert.equal(created.status, 201, created.body);
      const got = await request(server().admin, "GET", `${path}/w`);
      const spec = (JSON.parse(got.body) as { spec: Record<string, unknown> }).spec;
      assert.deepEqual(spec, { size: "0.5", cpu: "1024Mi" });
    });
  });
}
