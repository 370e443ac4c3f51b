// The scripted kubectl sequence every installed kubectl runs, once per (version, profile), each
// against its own server. Each step asserts kubectl's exit code and reads the resulting objects
// back from the server (over HTTP, which is cheaper than another kubectl) to check their fields.
//
// Steps do not depend on each other's success: objects that steps act on (the `web` deployment,
// the `labelled` config map, the `seeded` service account, …) are posted in `before` as JSON over
// HTTP, so one failing command (e.g. a create family command whose body is protobuf) fails its own
// step only. kubectl's own start-up (~150 ms a call) is most of the matrix's time, so nothing
// that is not under test goes through kubectl.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { apiGroup, type Profile } from "../../src/api/profile.js";
import { TEST_CSR_REQUEST } from "../../src/testing/csr.js";
import { json, request } from "./http.js";
import {
  kubectlDirectory,
  kubectlFor,
  kubectlVersions,
  NEWEST_SUPPORTED_MINOR,
  OLDEST_SUPPORTED_MINOR,
  parseTable,
  type Kubectl,
  type KubectlResult,
  type KubectlVersion,
} from "./kubectl.js";
import { startTestServer, type TestServer } from "./server.js";
import { waitFor } from "./wait.js";

/** Per kubectl call: generous for a loaded 2-core machine, short enough to fail a hung call. */
const CALL_TIMEOUT_MS = 20_000;
const RESTARTED_AT = "kubectl.kubernetes.io/restartedAt";
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

type Json = Record<string, unknown>;

/** The value at a path of keys and indexes, or undefined when any step is missing. */
function at(value: unknown, ...path: readonly (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof key === "number") current = Array.isArray(current) ? current[key] : undefined;
    else current = typeof current === "object" && current !== null && !Array.isArray(current) ? (current as Json)[key] : undefined;
  }
  return current;
}

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl ${result.code === -1 ? "timed out or was killed" : `exited ${result.code}`}: ${result.stderr}`);
  return result.stdout;
}

function template(app: string, image: string): Json {
  return { metadata: { labels: { app } }, spec: { containers: [{ name: app, image }] } };
}

/** Registers the sequence for every version in `versions` under `profile`. */
export function describeKubectlMatrix(profile: Profile, versions: readonly KubectlVersion[]): void {
  for (const version of versions) describeOne(profile, version);
}

function describeOne(profile: Profile, version: KubectlVersion): void {
  const kubernetesOnly = profile.name === "kubernetes";
  describe(`kubectl ${version.version} scripted sequence (${profile.name} profile)`, () => {
    let running: TestServer | undefined;
    let kubectl: Kubectl;
    let manifests = 0;

    const server = (): TestServer => {
      if (running === undefined) throw new Error("the server is not running (did `before` fail?)");
      return running;
    };
    const run = (args: readonly string[]): Promise<KubectlResult> => kubectl(args, { timeoutMs: CALL_TIMEOUT_MS });
    /** Writes a manifest into the data dir and returns its path. */
    const manifest = (value: unknown): string => {
      const path = join(server().dataDir, `manifest-${++manifests}.json`);
      writeFileSync(path, JSON.stringify(value));
      return path;
    };
    /** GETs an API path as the admin; fails the step unless it is 200. */
    const read = async (path: string): Promise<Json> => {
      const result = await request(server().admin, "GET", path);
      assert.equal(result.status, 200, `GET ${path}: ${result.body.slice(0, 500)}`);
      return json(result);
    };
    /** POSTs an object as the admin; fails unless it is created. */
    const post = async (path: string, body: Json): Promise<void> => {
      const result = await request(server().admin, "POST", path, { body });
      assert.equal(result.status, 201, `POST ${path}: ${result.body.slice(0, 500)}`);
    };
    const status = async (path: string): Promise<number> => (await request(server().admin, "GET", path)).status;
    const core = (resource: string, name: string): string => `/api/v1/namespaces/default/${resource}/${name}`;
    const group = (groupVersion: string, resource: string, name: string): string => `/apis/${groupVersion}/namespaces/default/${resource}/${name}`;
    const clusterScoped = (groupVersion: string, resource: string, name: string): string => `/apis/${groupVersion}/${resource}/${name}`;

    before(async () => {
      // kubectl before 1.28 asks for SelfSubjectReview (auth whoami) only at v1beta1, which kube
      // 1.30 serves only when --runtime-config turns it on, as that kubectl's users must.
      const whoamiBeta = kubernetesOnly && version.minor < 28;
      const runtimeConfig = new Map(whoamiBeta ? [[`${apiGroup(profile, "authentication")}/v1beta1`, true]] : []);
      running = await startTestServer({ profile, runtimeConfig });
      kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, version);
      await post("/apis/apps/v1/namespaces/default/deployments", {
        metadata: { name: "web" },
        spec: { replicas: 1, selector: { matchLabels: { app: "web" } }, template: template("web", "nginx:1.25") },
      });
      await post("/api/v1/namespaces/default/configmaps", { metadata: { name: "labelled" }, data: { k: "v" } });
      await post("/api/v1/namespaces/default/configmaps", { metadata: { name: "diffed" }, data: { value: "old" } });
      await post("/api/v1/namespaces/default/configmaps", { metadata: { name: "doomed" } });
      await post("/api/v1/namespaces/default/serviceaccounts", { metadata: { name: "seeded" } });
      if (kubernetesOnly) {
        await post(`/apis/${apiGroup(profile, "certificates")}/v1/certificatesigningrequests`, {
          metadata: { name: "made" },
          spec: { request: TEST_CSR_REQUEST, signerName: "example.com/signer", usages: ["client auth"] },
        });
      }
    });
    after(async () => {
      await running?.close();
    });

    // The imperative create family.

    it("create namespace", async () => {
      assert.match(ok(await run(["create", "namespace", "made"])), /namespace\/made created/);
      const namespace = await read("/api/v1/namespaces/made");
      assert.equal(at(namespace, "status", "phase"), "Active");
      assert.equal(at(namespace, "metadata", "labels", profile.namespaceNameLabel), "made");
    });

    it("create configmap", async () => {
      assert.match(ok(await run(["create", "configmap", "made", "--from-literal=a=1", "--from-literal=b=two"])), /configmap\/made created/);
      assert.deepEqual(at(await read(core("configmaps", "made")), "data"), { a: "1", b: "two" });
    });

    it("create secret generic", async () => {
      assert.match(ok(await run(["create", "secret", "generic", "made", "--from-literal=password=hunter2"])), /secret\/made created/);
      const secret = await read(core("secrets", "made"));
      assert.equal(at(secret, "type"), "Opaque");
      assert.equal(at(secret, "data", "password"), Buffer.from("hunter2").toString("base64"));
    });

    it("create serviceaccount", async () => {
      assert.match(ok(await run(["create", "serviceaccount", "made"])), /serviceaccount\/made created/);
      assert.equal(at(await read(core("serviceaccounts", "made")), "metadata", "name"), "made");
    });

    it("create deployment", async () => {
      assert.match(ok(await run(["create", "deployment", "made", "--image=nginx:1.25", "--replicas=2", "--port=80"])), /deployment\.apps\/made created/);
      const deployment = await read(group("apps/v1", "deployments", "made"));
      assert.equal(at(deployment, "spec", "replicas"), 2);
      assert.deepEqual(at(deployment, "spec", "selector"), { matchLabels: { app: "made" } });
      assert.equal(at(deployment, "spec", "template", "spec", "containers", 0, "image"), "nginx:1.25");
      assert.equal(at(deployment, "spec", "template", "spec", "containers", 0, "ports", 0, "containerPort"), 80);
      assert.equal(at(deployment, "spec", "strategy", "type"), "RollingUpdate", "defaulted by the server");
    });

    it("create job", async () => {
      assert.match(ok(await run(["create", "job", "made", "--image=busybox:1.36", "--", "echo", "hi"])), /job\.batch\/made created/);
      const job = await read(group("batch/v1", "jobs", "made"));
      assert.deepEqual(at(job, "spec", "template", "spec", "containers", 0, "command"), ["echo", "hi"]);
      assert.equal(at(job, "spec", "template", "spec", "restartPolicy"), "Never");
    });

    it("create cronjob", async () => {
      assert.match(
        ok(await run(["create", "cronjob", "made", "--image=busybox:1.36", "--schedule=*/5 * * * *", "--", "date"])),
        /cronjob\.batch\/made created/,
      );
      const cronJob = await read(group("batch/v1", "cronjobs", "made"));
      assert.equal(at(cronJob, "spec", "schedule"), "*/5 * * * *");
      assert.deepEqual(at(cronJob, "spec", "jobTemplate", "spec", "template", "spec", "containers", 0, "command"), ["date"]);
      assert.equal(at(cronJob, "spec", "concurrencyPolicy"), "Allow", "defaulted by the server");
    });

    it("create quota", async () => {
      // ResourceQuota admission enforces it: room for every configmap the sequence creates afterwards.
      assert.match(ok(await run(["create", "quota", "made", "--hard=pods=10,configmaps=50,cpu=2"])), /resourcequota\/made created/);
      assert.deepEqual(at(await read(core("resourcequotas", "made")), "spec", "hard"), { pods: "10", configmaps: "50", cpu: "2" });
    });

    it("create poddisruptionbudget", async () => {
      const output = ok(await run(["create", "poddisruptionbudget", "made", "--selector=app=web", "--min-available=1"]));
      assert.match(output, /poddisruptionbudget\.policy\/made created/);
      const budget = await read(group("policy/v1", "poddisruptionbudgets", "made"));
      assert.equal(at(budget, "spec", "minAvailable"), 1);
      assert.deepEqual(at(budget, "spec", "selector"), { matchLabels: { app: "web" } });
    });

    it("create token", async () => {
      const token = ok(await run(["create", "token", "seeded", "--duration=10m"])).trim();
      const payload = token.split(".")[1];
      assert.ok(payload !== undefined, `not a JWT: ${token}`);
      const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Json;
      assert.equal(at(claims, "sub"), "system:serviceaccount:default:seeded");
      const lifetime = Number(at(claims, "exp")) - Number(at(claims, "iat"));
      assert.equal(lifetime, 600, "the requested --duration");
    });

    it("autoscale", async () => {
      assert.match(
        ok(await run(["autoscale", "deployment", "web", "--min=2", "--max=5", "--cpu-percent=80"])),
        /horizontalpodautoscaler\.autoscaling\/web autoscaled/,
      );
      // Read at v1 whatever version kubectl wrote: the server converts.
      const autoscaler = await read(group("autoscaling/v1", "horizontalpodautoscalers", "web"));
      assert.equal(at(autoscaler, "spec", "minReplicas"), 2);
      assert.equal(at(autoscaler, "spec", "maxReplicas"), 5);
      assert.equal(at(autoscaler, "spec", "targetCPUUtilizationPercentage"), 80);
      assert.deepEqual(at(autoscaler, "spec", "scaleTargetRef"), { apiVersion: "apps/v1", kind: "Deployment", name: "web" });
    });

    // Changing objects.

    it("label", async () => {
      assert.match(ok(await run(["label", "configmap", "labelled", "tier=web", "env=prod"])), /configmap\/labelled labeled/);
      assert.deepEqual(at(await read(core("configmaps", "labelled")), "metadata", "labels"), { tier: "web", env: "prod" });
      ok(await run(["label", "configmap", "labelled", "env-", "tier=db", "--overwrite"]));
      assert.deepEqual(at(await read(core("configmaps", "labelled")), "metadata", "labels"), { tier: "db" });
    });

    it("annotate", async () => {
      assert.match(ok(await run(["annotate", "configmap", "labelled", "note=hello world"])), /configmap\/labelled annotated?$/m);
      assert.equal(at(await read(core("configmaps", "labelled")), "metadata", "annotations", "note"), "hello world");
    });

    it("scale", async () => {
      assert.match(ok(await run(["scale", "deployment/web", "--replicas=3"])), /deployment\.apps\/web scaled/);
      assert.equal(at(await read(group("apps/v1", "deployments", "web")), "spec", "replicas"), 3);
    });

    it("set image", async () => {
      const before = await read(group("apps/v1", "deployments", "web"));
      assert.match(ok(await run(["set", "image", "deployment/web", "web=nginx:1.26"])), /deployment\.apps\/web image updated/);
      const after = await read(group("apps/v1", "deployments", "web"));
      assert.equal(at(after, "spec", "template", "spec", "containers", 0, "image"), "nginx:1.26");
      assert.ok(Number(at(after, "metadata", "generation")) > Number(at(before, "metadata", "generation")), "a spec change bumps the generation");
    });

    it("rollout restart", async () => {
      const started = Date.now();
      assert.match(ok(await run(["rollout", "restart", "deployment/web"])), /deployment\.apps\/web restarted/);
      const restartedAt = at(await read(group("apps/v1", "deployments", "web")), "spec", "template", "metadata", "annotations", RESTARTED_AT);
      assert.equal(typeof restartedAt, "string");
      // RFC 3339 at whole seconds: allow the second it was cut from.
      assert.ok(Date.parse(String(restartedAt)) >= started - 1_000, `restartedAt ${String(restartedAt)} is from this restart`);
    });

    // Reading.

    it("get -o yaml", async () => {
      const object = parse(ok(await run(["get", "configmap", "labelled", "-o", "yaml"]))) as unknown;
      assert.equal(at(object, "apiVersion"), "v1");
      assert.equal(at(object, "kind"), "ConfigMap");
      assert.deepEqual(at(object, "data"), { k: "v" });
      assert.equal(at(object, "metadata", "uid"), at(await read(core("configmaps", "labelled")), "metadata", "uid"));
    });

    it("get -o json", async () => {
      const list = JSON.parse(ok(await run(["get", "serviceaccounts,configmaps", "-o", "json"]))) as unknown;
      assert.equal(at(list, "kind"), "List");
      const items = at(list, "items");
      assert.ok(Array.isArray(items));
      const names = items.map((item: unknown) => `${String(at(item, "kind"))}/${String(at(item, "metadata", "name"))}`);
      for (const expected of ["ServiceAccount/seeded", "ConfigMap/labelled"])
        assert.ok(names.includes(expected), `${expected} missing from ${names.join(", ")}`);
    });

    it("get -o wide", async () => {
      const rows = parseTable(ok(await run(["get", "deployments", "-o", "wide"])));
      const web = rows.find((row) => row["NAME"] === "web");
      assert.ok(web !== undefined, `no web row in ${JSON.stringify(rows)}`);
      assert.equal(web["CONTAINERS"], "web");
      assert.match(web["IMAGES"] ?? "", /^nginx:1\.2[56]$/);
      assert.equal(web["SELECTOR"], "app=web");
      assert.match(web["READY"] ?? "", /^\d+\/\d+$/);
    });

    it("get -w sees an event arrive, then stops", async () => {
      const watch = kubectl.spawn(["get", "configmaps", "-w", "--request-timeout=60s"]);
      try {
        await waitFor(() => /^labelled\s/m.test(watch.stdout()), {
          timeoutMs: 15_000,
          what: `kubectl -w to list labelled (stdout: ${watch.stdout()} stderr: ${watch.stderr()})`,
        });
        await post("/api/v1/namespaces/default/configmaps", { metadata: { name: "watched" } });
        await waitFor(() => /^watched\s/m.test(watch.stdout()), { timeoutMs: 15_000, what: "kubectl -w to print the new config map" });
        assert.equal(watch.child.exitCode, null, `the watch ended early: ${watch.stderr()}`);
      } finally {
        await watch.stop();
      }
    });

    // Declarative.

    it("apply (client-side)", async () => {
      const applied = (data: Json): Json => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "applied" }, data });
      assert.match(ok(await run(["apply", "-f", manifest(applied({ keep: "1", drop: "2" }))])), /configmap\/applied created/);
      assert.match(ok(await run(["apply", "-f", manifest(applied({ keep: "10", added: "3" }))])), /configmap\/applied configured/);
      const object = await read(core("configmaps", "applied"));
      assert.deepEqual(at(object, "data"), { keep: "10", added: "3" }, "the three-way merge drops what the manifest no longer has");
      const lastApplied = JSON.parse(String(at(object, "metadata", "annotations", LAST_APPLIED))) as unknown;
      assert.deepEqual(at(lastApplied, "data"), { keep: "10", added: "3" });
    });

    it("apply --server-side", async () => {
      const applied = (replicas: number): Json => ({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "ssa" },
        spec: { replicas, selector: { matchLabels: { app: "ssa" } }, template: template("ssa", "nginx:1.25") },
      });
      assert.match(ok(await run(["apply", "--server-side", "-f", manifest(applied(1))])), /deployment\.apps\/ssa serverside-applied/);
      ok(await run(["apply", "--server-side", "-f", manifest(applied(4))]));
      const object = await read(group("apps/v1", "deployments", "ssa"));
      assert.equal(at(object, "spec", "replicas"), 4);
      const managers = at(object, "metadata", "managedFields");
      assert.ok(Array.isArray(managers));
      assert.ok(
        managers.some((entry: unknown) => at(entry, "manager") === "kubectl" && at(entry, "operation") === "Apply"),
        `kubectl owns its fields by Apply: ${JSON.stringify(managers)}`,
      );
      const conflict = await run(["apply", "--server-side", "--field-manager=other", "-f", manifest(applied(2))]);
      assert.notEqual(conflict.code, 0, "another manager changing replicas conflicts");
      assert.match(conflict.stderr, /conflict/i);
      assert.equal(at(await read(group("apps/v1", "deployments", "ssa")), "spec", "replicas"), 4);
    });

    it("diff", async () => {
      const object = (value: string): Json => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "diffed" }, data: { value } });
      const same = await run(["diff", "-f", manifest(object("old"))]);
      assert.equal(same.code, 0, `no difference exits 0: ${same.stderr}`);
      assert.equal(same.stdout, "");
      const changed = await run(["diff", "-f", manifest(object("new"))]);
      assert.equal(changed.code, 1, `a difference exits 1: ${changed.stderr}`);
      assert.match(changed.stdout, /^-\s+value: old$/m);
      assert.match(changed.stdout, /^\+\s+value: new$/m);
      assert.deepEqual(at(await read(core("configmaps", "diffed")), "data"), { value: "old" }, "diff changes nothing");
    });

    it("delete", async () => {
      assert.match(ok(await run(["delete", "configmap", "doomed"])), /configmap "doomed" deleted/);
      assert.equal(await status(core("configmaps", "doomed")), 404);
      const missing = await run(["delete", "configmap", "doomed"]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /NotFound|not found/);
    });

    if (!kubernetesOnly) return;

    // Commands that hard-code kube's group names: only under --compat kubernetes.

    const rbac = `${apiGroup(profile, "rbac.authorization")}/v1`;

    it("auth can-i", async () => {
      const allowed = await run(["auth", "can-i", "create", "deployments.apps"]);
      assert.equal(allowed.code, 0, allowed.stderr);
      assert.equal(allowed.stdout.trim(), "yes");
      const denied = await run(["auth", "can-i", "delete", "nodes", "--as=nobody"]);
      assert.equal(denied.code, 1, `a denial exits 1: ${denied.stderr}`);
      assert.equal(denied.stdout.trim(), "no");
    });

    it("auth whoami", async () => {
      const review = JSON.parse(ok(await run(["auth", "whoami", "-o", "json"]))) as unknown;
      assert.equal(at(review, "kind"), "SelfSubjectReview");
      const groups = at(review, "status", "userInfo", "groups");
      assert.ok(Array.isArray(groups) && groups.includes("system:masters"), `groups: ${JSON.stringify(groups)}`);
      assert.equal(typeof at(review, "status", "userInfo", "username"), "string");
    });

    it("create role and rolebinding", async () => {
      assert.match(
        ok(await run(["create", "role", "pod-reader", "--verb=get,list", "--resource=pods"])),
        /role\.rbac\.authorization\.k8s\.io\/pod-reader created/,
      );
      assert.deepEqual(at(await read(group(rbac, "roles", "pod-reader")), "rules"), [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] }]);
      const output = ok(await run(["create", "rolebinding", "read-pods", "--role=pod-reader", "--user=jane"]));
      assert.match(output, /rolebinding\.rbac\.authorization\.k8s\.io\/read-pods created/);
      const binding = await read(group(rbac, "rolebindings", "read-pods"));
      assert.deepEqual(at(binding, "roleRef"), { apiGroup: apiGroup(profile, "rbac.authorization"), kind: "Role", name: "pod-reader" });
      assert.deepEqual(at(binding, "subjects"), [{ apiGroup: apiGroup(profile, "rbac.authorization"), kind: "User", name: "jane" }]);
      assert.equal(ok(await run(["auth", "can-i", "list", "pods", "--as=jane"])).trim(), "yes", "the binding grants what the role says");
    });

    it("create clusterrole", async () => {
      const output = ok(await run(["create", "clusterrole", "node-viewer", "--verb=get,watch", "--resource=nodes"]));
      assert.match(output, /clusterrole\.rbac\.authorization\.k8s\.io\/node-viewer created/);
      assert.deepEqual(at(await read(clusterScoped(rbac, "clusterroles", "node-viewer")), "rules"), [
        { apiGroups: [""], resources: ["nodes"], verbs: ["get", "watch"] },
      ]);
    });

    it("create ingress", async () => {
      assert.match(ok(await run(["create", "ingress", "made", "--rule=example.com/=web:80"])), /ingress\.networking\.k8s\.io\/made created/);
      const ingress = await read(group(`${apiGroup(profile, "networking")}/v1`, "ingresses", "made"));
      assert.equal(at(ingress, "spec", "rules", 0, "host"), "example.com");
      const path = at(ingress, "spec", "rules", 0, "http", "paths", 0);
      assert.equal(at(path, "path"), "/");
      assert.equal(at(path, "pathType"), "Exact");
      assert.deepEqual(at(path, "backend"), { service: { name: "web", port: { number: 80 } } });
    });

    it("create priorityclass", async () => {
      const output = ok(await run(["create", "priorityclass", "high", "--value=1000", "--description=important"]));
      assert.match(output, /priorityclass\.scheduling\.k8s\.io\/high created/);
      const priorityClass = await read(clusterScoped(`${apiGroup(profile, "scheduling")}/v1`, "priorityclasses", "high"));
      assert.equal(at(priorityClass, "value"), 1000);
      assert.equal(at(priorityClass, "description"), "important");
      assert.equal(at(priorityClass, "preemptionPolicy"), "PreemptLowerPriority", "defaulted by the server");
    });

    it("certificate approve", async () => {
      assert.match(ok(await run(["certificate", "approve", "made"])), /certificatesigningrequest\.certificates\.k8s\.io\/made approved/);
      const conditions = at(await read(clusterScoped(`${apiGroup(profile, "certificates")}/v1`, "certificatesigningrequests", "made")), "status", "conditions");
      assert.ok(Array.isArray(conditions));
      assert.deepEqual(
        conditions.map((condition: unknown) => [at(condition, "type"), at(condition, "status")]),
        [["Approved", "True"]],
      );
    });
  });
}

/**
 * The installed releases split into `parts` groups of neighbouring versions (oldest first), so
 * the matrix spreads over several test files the runner can run side by side. Fails when a
 * supported release is missing: the matrix must never pass by running less.
 */
export function kubectlVersionGroup(part: number, parts: number): readonly KubectlVersion[] {
  const versions = kubectlVersions();
  const found = new Set(versions.map((release) => release.minor));
  for (let minor = OLDEST_SUPPORTED_MINOR; minor <= NEWEST_SUPPORTED_MINOR; minor++) {
    assert.ok(
      found.has(minor),
      `kubectl.1.${minor} not found in ${kubectlDirectory()}: the matrix needs every supported release (scripts/install-test-deps.sh checks them)`,
    );
  }
  const size = Math.ceil(versions.length / parts);
  return versions.slice(part * size, (part + 1) * size);
}
