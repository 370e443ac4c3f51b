import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiGroup, ORCH_PROFILE } from "../api/profile.js";
import { inProcessServer, type CallOptions, type TestResponse } from "../testing/in-process.js";
import { WatchReader } from "../testing/watch-reader.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

const NAMESPACE = "scaling";
const MERGE = { "content-type": "application/merge-patch+json" };
const APPLY = { "content-type": "application/apply-patch+yaml" };
const template = { metadata: { labels: { app: "x" } }, spec: { containers: [{ name: "c", image: "busybox:1.36" }] } };
const labelSelector = { matchLabels: { app: "x" } };

/** The four kinds with a scale sub-resource: collection path and a valid object with 2 replicas. */
const KINDS: readonly { kind: string; collection: string; object: Json }[] = [
  {
    kind: "Deployment",
    collection: `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`,
    object: { apiVersion: "apps/v1", kind: "Deployment", spec: { replicas: 2, selector: labelSelector, template } },
  },
  {
    kind: "ReplicaSet",
    collection: `/apis/apps/v1/namespaces/${NAMESPACE}/replicasets`,
    object: { apiVersion: "apps/v1", kind: "ReplicaSet", spec: { replicas: 2, selector: labelSelector, template } },
  },
  {
    kind: "StatefulSet",
    collection: `/apis/apps/v1/namespaces/${NAMESPACE}/statefulsets`,
    object: { apiVersion: "apps/v1", kind: "StatefulSet", spec: { replicas: 2, serviceName: "x", selector: labelSelector, template } },
  },
  {
    kind: "ReplicationController",
    collection: `/api/v1/namespaces/${NAMESPACE}/replicationcontrollers`,
    object: { apiVersion: "v1", kind: "ReplicationController", spec: { replicas: 2, selector: { app: "x" }, template } },
  },
];
const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`;

function field(json: Json, path: string): unknown {
  return path.split(".").reduce<unknown>((value, key) => (value as Json | undefined)?.[key], json);
}

describe("the scale sub-resource (autoscaling/v1 Scale of the parent)", () => {
  let server: Server;
  const call = (method: string, path: string, options?: CallOptions): Promise<TestResponse> => server.call(method, path, options);
  const parent = async (path: string): Promise<Json> => (await call("GET", path)).json;
  /** Creates `name` of the kind, with status.replicas set through the status sub-resource. */
  const create = async (collection: string, object: Json, name: string): Promise<void> => {
    assert.equal((await call("POST", collection, { body: { ...object, metadata: { name } } })).status, 201);
    assert.equal((await call("PATCH", `${collection}/${name}/status`, { body: { status: { replicas: 1 } }, headers: MERGE })).status, 200);
  };

  before(async () => {
    server = await inProcessServer();
    assert.equal((await call("POST", "/api/v1/namespaces", { body: { metadata: { name: NAMESPACE } } })).status, 201);
  });
  after(async () => {
    await server.stop();
  });

  for (const { kind, collection, object } of KINDS) {
    it(`GET, PUT and every patch type scale a ${kind}, bumping its generation`, async () => {
      const item = `${collection}/verbs`;
      await create(collection, object, "verbs");
      const stored = await parent(item);
      const metadata = stored["metadata"] as Json;
      const read = await call("GET", `${item}/scale`);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(read.json, {
        kind: "Scale",
        apiVersion: "autoscaling/v1",
        metadata: {
          name: "verbs",
          namespace: NAMESPACE,
          uid: metadata["uid"],
          resourceVersion: metadata["resourceVersion"],
          creationTimestamp: metadata["creationTimestamp"],
        },
        spec: { replicas: 2 },
        status: { replicas: 1, selector: "app=x" },
      });
      const put = await call("PUT", `${item}/scale`, { body: { ...read.json, spec: { replicas: 3 } } });
      assert.equal(put.status, 200, put.text);
      assert.deepEqual(put.json["spec"], { replicas: 3 });
      const afterPut = await parent(item);
      assert.equal(field(afterPut, "spec.replicas"), 3);
      assert.equal(field(put.json, "metadata.resourceVersion"), field(afterPut, "metadata.resourceVersion"));
      assert.equal(field(afterPut, "metadata.generation"), (metadata["generation"] as number) + 1);
      const patches: [string, unknown, number][] = [
        ["application/merge-patch+json", { spec: { replicas: 4 } }, 4],
        ["application/json-patch+json", [{ op: "replace", path: "/spec/replicas", value: 5 }], 5],
        ["application/strategic-merge-patch+json", { spec: { replicas: 6 } }, 6],
      ];
      for (const [type, body, replicas] of patches) {
        const patched = await call("PATCH", `${item}/scale`, { body, headers: { "content-type": type } });
        assert.equal(patched.status, 200, `${type}: ${patched.text}`);
        assert.deepEqual(patched.json["spec"], { replicas }, type);
        assert.equal(field(await parent(item), "spec.replicas"), replicas, type);
      }
    });
  }

  it("changes nothing of the parent but spec.replicas, whatever else the Scale says", async () => {
    await create(DEPLOYMENTS, KINDS[0]?.object ?? {}, "only-replicas");
    const before = await parent(`${DEPLOYMENTS}/only-replicas`);
    const put = await call("PUT", `${DEPLOYMENTS}/only-replicas/scale`, {
      body: { metadata: { name: "only-replicas", labels: { extra: "yes" } }, spec: { replicas: 0 }, status: { replicas: 9, selector: "other=y" } },
    });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.json["spec"], {}, "0 replicas is left out, as kube's omitempty does");
    const after = await parent(`${DEPLOYMENTS}/only-replicas`);
    assert.equal(field(after, "spec.replicas"), 0);
    assert.deepEqual(field(after, "metadata.labels"), field(before, "metadata.labels"));
    assert.deepEqual(after["status"], before["status"]);
    assert.deepEqual(field(after, "spec.selector"), field(before, "spec.selector"));
  });

  it("refuses a stale resourceVersion (409), a name other than the URL's (400) and negative replicas (422)", async () => {
    await create(DEPLOYMENTS, KINDS[0]?.object ?? {}, "refusals");
    const scale = (await call("GET", `${DEPLOYMENTS}/refusals/scale`)).json;
    assert.equal((await call("PATCH", `${DEPLOYMENTS}/refusals/scale`, { body: { spec: { replicas: 4 } }, headers: MERGE })).status, 200);
    const stale = await call("PUT", `${DEPLOYMENTS}/refusals/scale`, { body: { ...scale, spec: { replicas: 7 } } });
    assert.equal(stale.status, 409, stale.text);
    assert.equal(stale.json["reason"], "Conflict");
    const renamed = await call("PUT", `${DEPLOYMENTS}/refusals/scale`, { body: { metadata: { name: "other" }, spec: { replicas: 7 } } });
    assert.equal(renamed.status, 400);
    assert.equal(renamed.json["message"], "the name of the object (other) does not match the name on the URL (refusals)");
    const negative = await call("PATCH", `${DEPLOYMENTS}/refusals/scale`, { body: { spec: { replicas: -1 } }, headers: MERGE });
    assert.equal(negative.status, 422, negative.text);
    assert.equal(negative.json["message"], 'Scale.autoscaling "refusals" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    assert.deepEqual(negative.json["details"], {
      name: "refusals",
      group: "autoscaling",
      kind: "Scale",
      causes: [{ reason: "FieldValueInvalid", message: "Invalid value: -1: must be greater than or equal to 0", field: "spec.replicas" }],
    });
    assert.equal(field(await parent(`${DEPLOYMENTS}/refusals`), "spec.replicas"), 4);
  });

  it("refuses other kinds in the body, unknown fields under Strict, and other verbs", async () => {
    await create(DEPLOYMENTS, KINDS[0]?.object ?? {}, "strict");
    const wrongKind = await call("PUT", `${DEPLOYMENTS}/strict/scale`, { body: { apiVersion: "apps/v1", kind: "Deployment", spec: { replicas: 1 } } });
    assert.equal(wrongKind.status, 400);
    const unknown = await call("PATCH", `${DEPLOYMENTS}/strict/scale?fieldValidation=Strict`, { body: { spec: { replicas: 1, extra: true } }, headers: MERGE });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.json["message"], 'Scale in version "v1" cannot be handled as a Scale: strict decoding error: unknown field "spec.extra"');
    assert.equal((await call("DELETE", `${DEPLOYMENTS}/strict/scale`)).status, 405);
    assert.equal((await call("POST", `${DEPLOYMENTS}/strict/scale`, { body: {} })).status, 405);
    assert.equal((await call("GET", `${DEPLOYMENTS}/absent/scale`)).status, 404);
    assert.equal((await call("GET", `/apis/apps/v1/namespaces/${NAMESPACE}/daemonsets/any/scale`)).status, 404);
    assert.equal(field(await parent(`${DEPLOYMENTS}/strict`), "spec.replicas"), 2);
  });

  it("answers dry-run writes with the new Scale and leaves the parent as it was", async () => {
    await create(DEPLOYMENTS, KINDS[0]?.object ?? {}, "dry");
    const before = await parent(`${DEPLOYMENTS}/dry`);
    const revision = server.storage.currentRevision();
    const put = await call("PUT", `${DEPLOYMENTS}/dry/scale?dryRun=All`, { body: { metadata: { name: "dry" }, spec: { replicas: 8 } } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.json["spec"], { replicas: 8 });
    const patch = await call("PATCH", `${DEPLOYMENTS}/dry/scale?dryRun=All`, { body: { spec: { replicas: 9 } }, headers: MERGE });
    assert.deepEqual(patch.json["spec"], { replicas: 9 });
    assert.equal(server.storage.currentRevision(), revision);
    assert.deepEqual(await parent(`${DEPLOYMENTS}/dry`), before);
  });

  it("is seen by a watch on the parent as MODIFIED", async () => {
    await create(DEPLOYMENTS, KINDS[0]?.object ?? {}, "watched");
    const version = String(field(await parent(`${DEPLOYMENTS}/watched`), "metadata.resourceVersion"));
    const stop = new AbortController();
    const watch = new WatchReader(
      await server.raw("GET", `${DEPLOYMENTS}?watch=1&fieldSelector=metadata.name%3Dwatched&resourceVersion=${version}`, { signal: stop.signal }),
    );
    try {
      assert.equal((await call("PATCH", `${DEPLOYMENTS}/watched/scale`, { body: { spec: { replicas: 5 } }, headers: MERGE })).status, 200);
      const [event] = await watch.next(1);
      assert.equal(event?.type, "MODIFIED");
      assert.equal(field(event?.object ?? {}, "spec.replicas"), 5);
    } finally {
      stop.abort();
      await watch.close();
    }
  });

  it("records the writer as the owner of spec.replicas on the scale sub-resource; apply conflicts unless forced", async () => {
    assert.equal((await call("POST", `${DEPLOYMENTS}?fieldManager=creator`, { body: { ...KINDS[0]?.object, metadata: { name: "owned" } } })).status, 201);
    assert.equal((await call("PATCH", `${DEPLOYMENTS}/owned/scale?fieldManager=scaler`, { body: { spec: { replicas: 3 } }, headers: MERGE })).status, 200);
    const entries = (): Promise<Json[]> => parent(`${DEPLOYMENTS}/owned`).then((json) => field(json, "metadata.managedFields") as Json[]);
    const scaler = (await entries()).find((entry) => entry["manager"] === "scaler");
    assert.deepEqual(
      { ...scaler, time: undefined },
      {
        manager: "scaler",
        operation: "Update",
        apiVersion: "apps/v1",
        time: undefined,
        fieldsType: "FieldsV1",
        fieldsV1: { "f:spec": { "f:replicas": {} } },
        subresource: "scale",
      },
    );
    assert.equal(JSON.stringify((await entries()).find((entry) => entry["manager"] === "creator")).includes("f:replicas"), false);
    const config = JSON.stringify({ apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "owned" }, spec: { replicas: 6 } });
    const conflicting = await call("PATCH", `${DEPLOYMENTS}/owned/scale?fieldManager=autoscaler`, { body: config, headers: APPLY });
    assert.equal(conflicting.status, 409, conflicting.text);
    const forced = await call("PATCH", `${DEPLOYMENTS}/owned/scale?fieldManager=autoscaler&force=true`, { body: config, headers: APPLY });
    assert.equal(forced.status, 200, forced.text);
    assert.deepEqual(forced.json["spec"], { replicas: 6 });
    const applier = (await entries()).find((entry) => entry["manager"] === "autoscaler");
    assert.deepEqual([applier?.["operation"], applier?.["subresource"], applier?.["fieldsV1"]], ["Apply", "scale", { "f:spec": { "f:replicas": {} } }]);
    assert.equal(
      (await entries()).some((entry) => entry["manager"] === "scaler"),
      false,
    );
    const wrongVersion = await call("PATCH", `${DEPLOYMENTS}/owned/scale?fieldManager=autoscaler`, {
      body: JSON.stringify({ apiVersion: "apps/v1", kind: "Scale", metadata: { name: "owned" } }),
      headers: APPLY,
    });
    assert.equal(wrongVersion.status, 400);
    assert.equal(wrongVersion.json["message"], "invalid object type: apps/v1, Kind=Scale");
  });

  it("is authorized as deployments/scale: a user allowed only that can scale but not update the deployment", async () => {
    const group = apiGroup(ORCH_PROFILE, "rbac.authorization");
    const rbac = `/apis/${group}/v1/namespaces/${NAMESPACE}`;
    const rule = { apiGroups: ["apps"], resources: ["deployments/scale"], verbs: ["get", "update", "patch"] };
    assert.equal((await call("POST", `${rbac}/roles`, { body: { metadata: { name: "scaler" }, rules: [rule] } })).status, 201);
    const binding = {
      metadata: { name: "alice-scaler" },
      roleRef: { apiGroup: group, kind: "Role", name: "scaler" },
      subjects: [{ kind: "User", apiGroup: group, name: "alice" }],
    };
    assert.equal((await call("POST", `${rbac}/rolebindings`, { body: binding })).status, 201);
    await create(DEPLOYMENTS, KINDS[0]?.object ?? {}, "guarded");
    assert.equal((await call("GET", `${DEPLOYMENTS}/guarded/scale`, { as: "alice" })).status, 200);
    const scaled = await call("PATCH", `${DEPLOYMENTS}/guarded/scale`, { as: "alice", body: { spec: { replicas: 4 } }, headers: MERGE });
    assert.equal(scaled.status, 200, scaled.text);
    const update = await call("PATCH", `${DEPLOYMENTS}/guarded`, { as: "alice", body: { spec: { replicas: 5 } }, headers: MERGE });
    assert.equal(update.status, 403);
    assert.equal(
      update.json["message"],
      `deployments.apps "guarded" is forbidden: User "alice" cannot patch resource "deployments" in API group "apps" in the namespace "${NAMESPACE}"`,
    );
    assert.equal((await call("GET", `${DEPLOYMENTS}/guarded`, { as: "alice" })).status, 403);
    assert.equal(field(await parent(`${DEPLOYMENTS}/guarded`), "spec.replicas"), 4);
  });
});
