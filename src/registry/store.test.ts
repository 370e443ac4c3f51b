import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { inProcessServer } from "../testing/in-process.js";

const POD_MUTATORS = ["LimitRanger", "ServiceAccount", "Priority", "DefaultTolerationSeconds"];

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

const CM = "/api/v1/namespaces/default/configmaps";

function meta(object: Json): Json {
  return object["metadata"] as Json;
}

describe("the generic store, through the pipeline", () => {
  let server: Server;
  before(async () => {
    // The strategy alone: without the admission plugins that add tolerations, volumes and priority to pods.
    server = await inProcessServer({ admission: { disable: POD_MUTATORS } });
  });
  after(async () => {
    await server.stop();
  });

  it("creates with uid, creationTimestamp and a resourceVersion, in kube's field order", async () => {
    const response = await server.call("POST", CM, { body: { data: { a: "b" }, metadata: { name: "c1", labels: { app: "web" } } } });
    assert.equal(response.status, 201);
    assert.deepEqual(Object.keys(response.json).slice(0, 3), ["apiVersion", "kind", "metadata"]);
    const metadata = meta(response.json);
    assert.match(String(metadata["uid"]), /^[0-9a-f-]{36}$/);
    assert.match(String(metadata["creationTimestamp"]), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(String(metadata["resourceVersion"]), /^\d+$/);
    const read = await server.call("GET", `${CM}/c1`);
    assert.deepEqual(read.json, response.json);
  });

  it("refuses a duplicate create with 409 AlreadyExists naming the resource", async () => {
    await server.call("POST", CM, { body: { metadata: { name: "dup" } } });
    const response = await server.call("POST", CM, { body: { metadata: { name: "dup" } } });
    assert.equal(response.status, 409);
    assert.equal(response.json["reason"], "AlreadyExists");
    assert.deepEqual(response.json["details"], { name: "dup", kind: "configmaps" });
    assert.equal(response.json["message"], 'configmaps "dup" already exists');
  });

  it("generates a name from generateName", async () => {
    const response = await server.call("POST", CM, { body: { metadata: { generateName: "gen-" } } });
    assert.equal(response.status, 201);
    assert.match(String(meta(response.json)["name"]), /^gen-[a-z0-9]{5}$/);
  });

  it("rejects an invalid name and bad label keys with 422 listing every field", async () => {
    const response = await server.call("POST", CM, { body: { metadata: { name: "Bad_Name", labels: { "bad key": "v", ok: "bad value!" } } } });
    assert.equal(response.status, 422);
    assert.equal(response.json["reason"], "Invalid");
    const causes = (response.json["details"] as Json)["causes"] as Json[];
    assert.deepEqual(
      causes.map((cause) => cause["field"]),
      ["metadata.name", "metadata.labels", "metadata.labels"],
    );
  });

  it("rejects a body whose namespace differs from the path with 400", async () => {
    const response = await server.call("POST", CM, { body: { metadata: { name: "x", namespace: "other" } } });
    assert.equal(response.status, 400);
  });

  it("refuses creating in a missing namespace with 404", async () => {
    const response = await server.call("POST", "/api/v1/namespaces/missing/configmaps", { body: { metadata: { name: "x" } } });
    assert.equal(response.status, 404);
    assert.match(String(response.json["message"]), /namespaces "missing" not found/);
  });

  it("updates with a matching resourceVersion and refuses a stale one with 409 Conflict", async () => {
    const created = await server.call("POST", CM, { body: { metadata: { name: "u1" }, data: { v: "1" } } });
    const first = { ...created.json, data: { v: "2" } };
    const updated = await server.call("PUT", `${CM}/u1`, { body: first });
    assert.equal(updated.status, 200);
    assert.notEqual(meta(updated.json)["resourceVersion"], meta(created.json)["resourceVersion"]);
    const stale = await server.call("PUT", `${CM}/u1`, { body: { ...created.json, data: { v: "3" } } });
    assert.equal(stale.status, 409);
    assert.equal(stale.json["reason"], "Conflict");
    assert.match(String(stale.json["message"]), /the object has been modified/);
    const read = await server.call("GET", `${CM}/u1`);
    assert.deepEqual(read.json["data"], { v: "2" });
  });

  it("keeps uid and creationTimestamp through an update", async () => {
    const created = await server.call("POST", CM, { body: { metadata: { name: "u2" } } });
    const updated = await server.call("PUT", `${CM}/u2`, { body: { metadata: { name: "u2", creationTimestamp: "2000-01-01T00:00:00Z" }, data: { a: "b" } } });
    assert.equal(meta(updated.json)["uid"], meta(created.json)["uid"]);
    const forged = await server.call("PUT", `${CM}/u2`, { body: { metadata: { name: "u2", uid: "forged" } } });
    assert.equal(forged.status, 409);
    assert.match(String(forged.json["message"]), /Precondition failed: UID in precondition: forged/);
    assert.equal(meta(updated.json)["creationTimestamp"], meta(created.json)["creationTimestamp"]);
  });

  it("refuses an update whose name differs from the path", async () => {
    await server.call("POST", CM, { body: { metadata: { name: "u3" } } });
    const response = await server.call("PUT", `${CM}/u3`, { body: { metadata: { name: "other" } } });
    assert.equal(response.status, 400);
  });

  it("answers 404 for an update of a missing object", async () => {
    const response = await server.call("PUT", `${CM}/absent`, { body: { metadata: { name: "absent" } } });
    assert.equal(response.status, 404);
    assert.equal(response.json["reason"], "NotFound");
  });

  it("applies merge and JSON patches, and refuses an unknown patch type", async () => {
    await server.call("POST", CM, { body: { metadata: { name: "p1" }, data: { a: "1", b: "2" } } });
    const merged = await server.call("PATCH", `${CM}/p1`, { body: { data: { a: null, c: "3" } }, headers: { "content-type": "application/merge-patch+json" } });
    assert.deepEqual(merged.json["data"], { b: "2", c: "3" });
    const patched = await server.call("PATCH", `${CM}/p1`, {
      body: [{ op: "replace", path: "/data/b", value: "20" }],
      headers: { "content-type": "application/json-patch+json" },
    });
    assert.deepEqual(patched.json["data"], { b: "20", c: "3" });
    const failed = await server.call("PATCH", `${CM}/p1`, {
      body: [{ op: "test", path: "/data/b", value: "x" }],
      headers: { "content-type": "application/json-patch+json" },
    });
    assert.equal(failed.status, 422);
    const unknown = await server.call("PATCH", `${CM}/p1`, { body: {}, headers: { "content-type": "application/json" } });
    assert.equal(unknown.status, 415);
  });

  it("merges lists by key in a strategic merge patch", async () => {
    const pods = "/api/v1/namespaces/default/pods";
    await server.call("POST", pods, {
      body: {
        metadata: { name: "sp" },
        spec: {
          containers: [
            { name: "a", image: "a:1" },
            { name: "b", image: "b:1" },
          ],
        },
      },
    });
    const response = await server.call("PATCH", `${pods}/sp`, {
      body: { spec: { containers: [{ name: "b", image: "b:2" }] } },
      headers: { "content-type": "application/strategic-merge-patch+json" },
    });
    const containers = (response.json["spec"] as { containers: Json[] }).containers;
    assert.deepEqual(
      containers.map((container) => [container["name"], container["image"]]),
      [
        ["a", "a:1"],
        ["b", "b:2"],
      ],
    );
  });

  it("deletes with a Success Status, and honours uid preconditions", async () => {
    const created = await server.call("POST", CM, { body: { metadata: { name: "d1" } } });
    const wrong = await server.call("DELETE", `${CM}/d1`, { body: { preconditions: { uid: "nope" } } });
    assert.equal(wrong.status, 409);
    const deleted = await server.call("DELETE", `${CM}/d1`, { body: { preconditions: { uid: meta(created.json)["uid"] } } });
    assert.equal(deleted.status, 200);
    assert.equal(deleted.json["status"], "Success");
    assert.equal((deleted.json["details"] as Json)["name"], "d1");
    assert.equal((await server.call("GET", `${CM}/d1`)).status, 404);
  });

  it("holds an object with finalizers until the last one is removed", async () => {
    await server.call("POST", CM, { body: { metadata: { name: "f1", finalizers: ["example.com/hold"] } } });
    const marked = await server.call("DELETE", `${CM}/f1`);
    assert.equal(marked.status, 200);
    assert.ok(meta(marked.json)["deletionTimestamp"] !== undefined);
    const still = await server.call("GET", `${CM}/f1`);
    assert.equal(still.status, 200);
    const refused = await server.call("PATCH", `${CM}/f1`, {
      body: { metadata: { finalizers: ["example.com/hold", "example.com/new"] } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(refused.status, 422);
    const released = await server.call("PATCH", `${CM}/f1`, {
      body: { metadata: { finalizers: null } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(released.status, 200);
    assert.equal((await server.call("GET", `${CM}/f1`)).status, 404);
  });

  it("filters lists by label and field selectors", async () => {
    const namespace = "/api/v1/namespaces";
    await server.call("POST", namespace, { body: { metadata: { name: "sel" } } });
    const base = "/api/v1/namespaces/sel/configmaps";
    for (const [name, app, tier] of [
      ["s1", "web", "front"],
      ["s2", "web", "back"],
      ["s3", "db", "back"],
    ] as const) {
      await server.call("POST", base, { body: { metadata: { name, labels: { app, tier } } } });
    }
    const names = async (query: string): Promise<string[]> => {
      const response = await server.call("GET", `${base}?${query}`);
      assert.equal(response.status, 200, query);
      return (response.json["items"] as Json[]).map((item) => String(meta(item)["name"]));
    };
    assert.deepEqual(await names("labelSelector=app%3Dweb"), ["s1", "s2"]);
    assert.deepEqual(await names("labelSelector=app%20in%20(db),tier%3Dback"), ["s3"]);
    assert.deepEqual(await names("labelSelector=app!%3Dweb"), ["s3"]);
    assert.deepEqual(await names("labelSelector=!missing"), ["s1", "s2", "s3"]);
    assert.deepEqual(await names("fieldSelector=metadata.name%3Ds2"), ["s2"]);
    assert.deepEqual(await names("fieldSelector=metadata.name!%3Ds2"), ["s1", "s3"]);
    const bad = await server.call("GET", `${base}?labelSelector=a%20b`);
    assert.equal(bad.status, 400);
    const unknownField = await server.call("GET", `${base}?fieldSelector=spec.nope%3Dx`);
    assert.equal(unknownField.status, 400);
    assert.equal(unknownField.json["message"], "field label not supported: spec.nope");
  });

  it("typed field labels read as kube's: an absent bool is false, an absent count 0; Job status.successful; ReplicaSet and ReplicationController status.replicas; pod spec.host and status.podIPs", async () => {
    await server.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "typed" } } });
    const names = async (path: string, query: string): Promise<string[]> => {
      const response = await server.call("GET", `${path}?fieldSelector=${encodeURIComponent(query)}`);
      assert.equal(response.status, 200, `${query}: ${response.text}`);
      return (response.json["items"] as Json[]).map((item) => String(meta(item)["name"]));
    };
    assert.equal((await server.call("POST", "/api/v1/nodes", { body: { metadata: { name: "typed-node" } } })).status, 201);
    assert.deepEqual(await names("/api/v1/nodes", "metadata.name=typed-node,spec.unschedulable=false"), ["typed-node"]);
    assert.deepEqual(await names("/api/v1/nodes", "metadata.name=typed-node,spec.unschedulable=true"), []);
    const template = { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } };
    const job = { metadata: { name: "typed-job" }, spec: { template } };
    assert.equal((await server.call("POST", "/apis/batch/v1/namespaces/typed/jobs", { body: job })).status, 201);
    assert.deepEqual(await names("/apis/batch/v1/namespaces/typed/jobs", "status.successful=0"), ["typed-job"]);
    assert.deepEqual(await names("/apis/batch/v1/namespaces/typed/jobs", "status.successful=1"), []);
    const pod = { metadata: { name: "typed-pod" }, spec: { nodeName: "typed-node", containers: [{ name: "c", image: "busybox" }] } };
    assert.equal((await server.call("POST", "/api/v1/namespaces/typed/pods", { body: pod })).status, 201);
    assert.deepEqual(await names("/api/v1/namespaces/typed/pods", "spec.hostNetwork=false"), ["typed-pod"]);
    assert.deepEqual(await names("/api/v1/namespaces/typed/pods", "spec.host=typed-node"), ["typed-pod"]);
    assert.deepEqual(await names("/api/v1/namespaces/typed/pods", "status.podIPs=10.0.0.1"), []);
    const rcTemplate = { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "busybox" }] } };
    const rc = { metadata: { name: "typed-rc" }, spec: { replicas: 0, selector: { a: "b" }, template: rcTemplate } };
    assert.equal((await server.call("POST", "/api/v1/namespaces/typed/replicationcontrollers", { body: rc })).status, 201, "rc");
    assert.deepEqual(await names("/api/v1/namespaces/typed/replicationcontrollers", "status.replicas=0"), ["typed-rc"]);
    const rs = { metadata: { name: "typed-rs" }, spec: { replicas: 0, selector: { matchLabels: { a: "b" } }, template: rcTemplate } };
    assert.equal((await server.call("POST", "/apis/apps/v1/namespaces/typed/replicasets", { body: rs })).status, 201, "rs");
    assert.deepEqual(await names("/apis/apps/v1/namespaces/typed/replicasets", "status.replicas=0"), ["typed-rs"]);
    assert.deepEqual(await names("/apis/apps/v1/replicasets", "status.replicas!=0"), []);
  });

  it("pages a list with limit and continue at one resourceVersion", async () => {
    await server.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "paging" } } });
    const base = "/api/v1/namespaces/paging/configmaps";
    for (let index = 0; index < 10; index++) await server.call("POST", base, { body: { metadata: { name: `item-${index}` } } });
    const first = await server.call("GET", `${base}?limit=4`);
    const firstMeta = meta(first.json);
    assert.equal((first.json["items"] as Json[]).length, 4);
    assert.equal(firstMeta["remainingItemCount"], 6);
    await server.call("POST", base, { body: { metadata: { name: "item-new" } } });
    const seen = (first.json["items"] as Json[]).map((item) => meta(item)["name"]);
    let token = firstMeta["continue"];
    while (typeof token === "string" && token !== "") {
      const next = await server.call("GET", `${base}?limit=4&continue=${encodeURIComponent(token)}`);
      assert.equal(meta(next.json)["resourceVersion"], firstMeta["resourceVersion"]);
      seen.push(...(next.json["items"] as Json[]).map((item) => meta(item)["name"]));
      token = meta(next.json)["continue"];
    }
    assert.equal(seen.length, 10);
    assert.ok(!seen.includes("item-new"));
    const invalid = await server.call("GET", `${base}?limit=4&resourceVersion=5&continue=${encodeURIComponent(String(firstMeta["continue"]))}`);
    assert.equal(invalid.status, 400);
  });

  it("deletes a collection selected by labels", async () => {
    await server.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "dc" } } });
    const base = "/api/v1/namespaces/dc/configmaps";
    for (const [name, app] of [
      ["a", "x"],
      ["b", "x"],
      ["c", "y"],
    ] as const)
      await server.call("POST", base, { body: { metadata: { name, labels: { app } } } });
    const response = await server.call("DELETE", `${base}?labelSelector=app%3Dx`);
    assert.equal(response.status, 200);
    const left = await server.call("GET", base);
    assert.deepEqual(
      (left.json["items"] as Json[]).map((item) => meta(item)["name"]),
      ["c"],
    );
  });

  it("does not store a dry-run create, and refuses invalid dryRun values", async () => {
    const dry = await server.call("POST", `${CM}?dryRun=All`, { body: { metadata: { name: "dry" } } });
    assert.equal(dry.status, 201);
    assert.equal((await server.call("GET", `${CM}/dry`)).status, 404);
    const bad = await server.call("POST", `${CM}?dryRun=Some`, { body: { metadata: { name: "dry" } } });
    assert.equal(bad.status, 422);
  });

  it("folds secret stringData into base64 data", async () => {
    const response = await server.call("POST", "/api/v1/namespaces/default/secrets", {
      body: { metadata: { name: "s1" }, stringData: { user: "admin" }, data: { other: "eA==" } },
    });
    assert.equal(response.status, 201);
    assert.deepEqual(response.json["data"], { other: "eA==", user: Buffer.from("admin").toString("base64") });
    assert.equal(response.json["stringData"], undefined);
    assert.equal(response.json["type"], "Opaque");
  });

  it("changes only status through the status sub-resource, and keeps status on main updates", async () => {
    const pods = "/api/v1/namespaces/default/pods";
    const containers = [{ name: "c", image: "busybox" }];
    await server.call("POST", pods, { body: { metadata: { name: "st" }, spec: { nodeName: "n1", containers }, status: { phase: "Pending" } } });
    const status = await server.call("PUT", `${pods}/st/status`, {
      body: { metadata: { name: "st" }, spec: { nodeName: "changed", containers }, status: { phase: "Running" } },
    });
    assert.equal(status.status, 200);
    assert.equal((status.json["spec"] as Json)["nodeName"], "n1");
    assert.deepEqual(status.json["status"], { phase: "Running" });
    // A pod's spec is immutable but for images and a few more (kube's rule): the main update changes an image.
    const main = await server.call("PUT", `${pods}/st`, {
      body: {
        metadata: { name: "st" },
        spec: { nodeName: "n1", containers: [{ name: "c", image: "busybox:2", imagePullPolicy: "Always" }] },
        status: { phase: "Failed" },
      },
    });
    assert.equal(main.status, 200, main.text);
    assert.deepEqual(main.json["status"], { phase: "Running" });
    const byField = await server.call("GET", `${pods}?fieldSelector=spec.nodeName%3Dn1,status.phase%3DRunning`);
    assert.equal((byField.json["items"] as Json[]).length, 1);
  });

  it("bumps generation only when the spec changes (a Deployment also when its annotations change, as kube's strategy)", async () => {
    const deployments = "/apis/apps/v1/namespaces/default/deployments";
    const template = { metadata: { labels: { app: "g" } }, spec: { containers: [{ name: "c", image: "busybox" }] } };
    const created = await server.call("POST", deployments, {
      body: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "gen" }, spec: { selector: { matchLabels: { app: "g" } }, template } },
    });
    assert.equal(meta(created.json)["generation"], 1, created.text);
    const merge = { "content-type": "application/merge-patch+json" };
    const labelled = await server.call("PATCH", `${deployments}/gen`, { body: { metadata: { labels: { x: "y" } } }, headers: merge });
    assert.equal(meta(labelled.json)["generation"], 1);
    const changed = await server.call("PATCH", `${deployments}/gen`, { body: { spec: { minReadySeconds: 5 } }, headers: merge });
    assert.equal(meta(changed.json)["generation"], 2);
    const annotated = await server.call("PATCH", `${deployments}/gen`, { body: { metadata: { annotations: { note: "a" } } }, headers: merge });
    assert.equal(meta(annotated.json)["generation"], 3);
    const both = await server.call("PATCH", `${deployments}/gen`, {
      body: { metadata: { annotations: { note: "b" } }, spec: { minReadySeconds: 6 } },
      headers: merge,
    });
    assert.equal(meta(both.json)["generation"], 4);
  });

  it("sets generation on the kinds kube 1.30's strategies set it on, and only those", async () => {
    const withGeneration: [string, Json][] = [
      ["/apis/networking.orch.io/v1/ingressclasses", { metadata: { name: "ic" }, spec: { controller: "example.com/ic" } }],
      ["/apis/admissionregistration.orch.io/v1/validatingwebhookconfigurations", { metadata: { name: "vw" } }],
      ["/apis/admissionregistration.orch.io/v1/mutatingwebhookconfigurations", { metadata: { name: "mw" } }],
    ];
    const without: [string, Json][] = [
      ["/api/v1/namespaces/default/pods", { metadata: { name: "nogen" }, spec: { containers: [{ name: "c", image: "busybox" }] } }],
      ["/api/v1/namespaces/default/services", { metadata: { name: "nogen" }, spec: { ports: [{ port: 80 }] } }],
      ["/api/v1/nodes", { metadata: { name: "nogen" } }],
      ["/api/v1/namespaces/default/limitranges", { metadata: { name: "nogen" }, spec: { limits: [{ type: "Container", max: { cpu: "1" } }] } }],
      ["/api/v1/namespaces/default/resourcequotas", { metadata: { name: "nogen" }, spec: { hard: { pods: "1" } } }],
      [
        "/api/v1/persistentvolumes",
        { metadata: { name: "nogen" }, spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/tmp" } } },
      ],
      [
        "/api/v1/namespaces/default/persistentvolumeclaims",
        { metadata: { name: "nogen" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } },
      ],
    ];
    for (const [path, body] of [...withGeneration, ...without]) {
      const created = await server.call("POST", path, { body: { ...body, metadata: { ...(body["metadata"] as Json), generation: 7 } } });
      assert.equal(created.status, 201, `${path}: ${created.text}`);
      assert.equal(meta(created.json)["generation"], withGeneration.some(([p]) => p === path) ? 1 : undefined, path);
    }
    const webhooks = "/apis/admissionregistration.orch.io/v1/validatingwebhookconfigurations/vw";
    const rule = { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] };
    const hook = { name: "a.example.com", clientConfig: { url: "https://example.com/a" }, rules: [rule], sideEffects: "None", admissionReviewVersions: ["v1"] };
    const changed = await server.call("PATCH", webhooks, { body: { webhooks: [hook] }, headers: { "content-type": "application/merge-patch+json" } });
    assert.equal(meta(changed.json)["generation"], 2, changed.text);
    const pod = await server.call("PATCH", "/api/v1/namespaces/default/pods/nogen", {
      body: { spec: { activeDeadlineSeconds: 60 } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(pod.status, 200, pod.text);
    assert.equal(meta(pod.json)["generation"], undefined);
  });

  it("labels namespaces with their name and refuses deleting the reserved ones", async () => {
    const created = await server.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "labelled" } } });
    assert.deepEqual(meta(created.json)["labels"], { "orch.io/metadata.name": "labelled" });
    for (const name of ["default", "orch-system", "orch-public"]) {
      const response = await server.call("DELETE", `/api/v1/namespaces/${name}`);
      assert.equal(response.status, 403, name);
    }
  });

  it("empties a deleted namespace, refuses new content meanwhile, then removes it", async () => {
    await server.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "doomed" } } });
    await server.call("POST", "/api/v1/namespaces/doomed/configmaps", { body: { metadata: { name: "held", finalizers: ["example.com/hold"] } } });
    await server.call("POST", "/api/v1/namespaces/doomed/secrets", { body: { metadata: { name: "s" } } });
    const deleting = await server.call("DELETE", "/api/v1/namespaces/doomed");
    assert.equal(deleting.status, 200);
    assert.deepEqual(deleting.json["status"], { phase: "Terminating" });
    const refused = await server.call("POST", "/api/v1/namespaces/doomed/configmaps", { body: { metadata: { name: "late" } } });
    assert.equal(refused.status, 403);
    const deadline = Date.now() + 5000;
    while ((await server.call("GET", "/api/v1/namespaces/doomed/secrets/s")).status !== 404) {
      assert.ok(Date.now() < deadline, "secret not deleted");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal((await server.call("GET", "/api/v1/namespaces/doomed")).status, 200, "held open by a finalizer");
    await server.call("PATCH", "/api/v1/namespaces/doomed/configmaps/held", {
      body: { metadata: { finalizers: null } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    while ((await server.call("GET", "/api/v1/namespaces/doomed")).status !== 404) {
      assert.ok(Date.now() < deadline, "namespace not removed");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  it("answers a get at an unreached resourceVersion with 504 and Retry-After", async () => {
    const fast = await inProcessServer();
    const store = fast.server.registry.find("", "v1", "namespaces");
    assert.ok(store !== undefined);
    const response = await fast.call("GET", "/api/v1/namespaces/default?resourceVersion=999999");
    assert.equal(response.status, 504);
    assert.equal(response.json["reason"], "Timeout");
    assert.equal(response.headers["Retry-After"], "1");
    await fast.stop();
  });
});

describe("create drops the status a client sends for kinds with a status sub-resource", () => {
  it("starts deployments empty, pods Pending with their QoS class, services with an empty load balancer; nodes keep theirs", async () => {
    const server = await inProcessServer();
    try {
      // Not `default`: its bootstrap LimitRange gives containers a CPU request.
      await server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "qos" } } });
      const deployment = await server.call("POST", "/apis/apps/v1/namespaces/default/deployments", {
        body: {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: "d" },
          spec: { selector: { matchLabels: { a: "b" } }, template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "i" }] } } },
          status: { replicas: 9, readyReplicas: 9 },
        },
      });
      assert.equal(deployment.status, 201, deployment.text);
      assert.deepEqual(deployment.json["status"], {});
      const managed = JSON.stringify((deployment.json["metadata"] as Record<string, unknown>)["managedFields"]);
      assert.ok(!managed.includes("f:status"), "the dropped status is owned by nobody");
      const pod = (containers: unknown[]) => ({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { generateName: "p-" },
        spec: { containers },
        status: { phase: "Running" },
      });
      const qos = async (containers: unknown[]): Promise<unknown> =>
        (await server.call("POST", "/api/v1/namespaces/qos/pods", { body: pod(containers) })).json["status"];
      assert.deepEqual(await qos([{ name: "c", image: "i" }]), { phase: "Pending", qosClass: "BestEffort" });
      assert.deepEqual(
        await qos([{ name: "c", image: "i", resources: { limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "1000m", memory: "1024Mi" } } }]),
        { phase: "Pending", qosClass: "Guaranteed" },
      );
      assert.deepEqual(await qos([{ name: "c", image: "i", resources: { requests: { cpu: "100m" } } }]), { phase: "Pending", qosClass: "Burstable" });
      const service = await server.call("POST", "/api/v1/namespaces/default/services", {
        body: {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: "s" },
          spec: { ports: [{ port: 80 }] },
          status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } },
        },
      });
      assert.deepEqual(service.json["status"], { loadBalancer: {} });
      const node = await server.call("POST", "/api/v1/nodes", {
        body: { apiVersion: "v1", kind: "Node", metadata: { name: "n" }, status: { capacity: { cpu: "4" } } },
      });
      // Kept, with the zero-valued structs every kube Node shows (ZERO_WRITTEN in api/proto/presence.ts).
      assert.deepEqual((node.json["status"] as Json)["capacity"], { cpu: "4" });
      // The status sub-resource still writes status afterwards.
      const written = await server.call("PUT", "/apis/apps/v1/namespaces/default/deployments/d/status", {
        body: { ...deployment.json, status: { replicas: 1 } },
      });
      assert.deepEqual(written.json["status"], { replicas: 1 });
    } finally {
      await server.stop();
    }
  });
});

describe("a create hands over its JSON from the stored text", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
    // A namespace without a LimitRange: in `default` the bootstrap LimitRange's defaults make
    // LimitRanger add an annotation after managedFields, and the store encodes the object instead.
    await server.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "plain" } } });
    await server.call("POST", "/api/v1/namespaces/plain/serviceaccounts", { body: { metadata: { name: "default" } } });
  });
  after(async () => {
    await server.stop();
  });

  it("gives exactly JSON.stringify of the created object, admitted fields included, and nothing on dry-run", async () => {
    const store = server.server.registry.find("", "v1", "pods");
    assert.ok(store !== undefined);
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "written", labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "x" }] } };
    let json: string | undefined;
    const created = await store.create("plain", pod, { written: (text) => void (json = text) });
    assert.ok(json !== undefined);
    assert.equal(json, JSON.stringify(created));
    assert.ok(JSON.stringify(created).includes('"tolerations"'));
    let dryRun: string | undefined;
    await store.create("plain", { ...pod, metadata: { name: "dry" } }, { dryRun: true, written: (text) => void (dryRun = text) });
    assert.equal(dryRun, undefined);
    // LimitRanger's annotation follows managedFields: the stored order differs, so nothing is handed over.
    let limited: string | undefined;
    const annotated = await store.create("default", { ...pod, metadata: { name: "limited" } }, { written: (text) => void (limited = text) });
    assert.ok(annotated.metadata.annotations !== undefined);
    assert.equal(limited, undefined);
  });

  it("answers a POST with the object a GET then reads", async () => {
    for (const namespace of ["plain", "default"]) {
      const response = await server.call("POST", `/api/v1/namespaces/${namespace}/pods`, {
        body: { metadata: { name: "posted" }, spec: { containers: [{ name: "c", image: "x" }] } },
      });
      assert.equal(response.status, 201);
      const read = await server.call("GET", `/api/v1/namespaces/${namespace}/pods/posted`);
      assert.deepEqual(response.json, read.json);
    }
  });
});
