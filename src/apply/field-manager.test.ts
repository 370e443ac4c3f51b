import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ApiError } from "../api/errors.js";
import type { ApiObject } from "../api/object.js";
import { ORCH_PROFILE } from "../api/profile.js";
import { builtinSchemas } from "../api/schema/builtin.js";
import { FieldManager, type FieldWrite } from "./field-manager.js";

const LAST_APPLIED = ORCH_PROFILE.lastAppliedConfigAnnotation;
const schemas = builtinSchemas(ORCH_PROFILE);

/** The field manager of deployments; `update` returns the written object, as the store keeps it. */
function deploymentManager(): { update(live: ApiObject | undefined, next: ApiObject, write: FieldWrite): ApiObject; apply: FieldManager["apply"] } {
  const fields = new FieldManager({
    type: schemas.schemaFor("apps", "v1", "Deployment"),
    apiVersion: "apps/v1",
    kind: "Deployment",
    statusSubresource: true,
    lastAppliedAnnotation: LAST_APPLIED,
  });
  return {
    update(live, next, write) {
      const managedFields = fields.update(live, next, write);
      const { managedFields: _sent, ...metadata } = next.metadata;
      return { ...next, metadata: managedFields === undefined ? metadata : { ...metadata, managedFields } };
    },
    apply: (live, config, write) => fields.apply(live, config, write),
  };
}

const T1 = "2024-05-01T10:00:00Z";
const T2 = "2024-05-01T10:00:05Z";
const T3 = "2024-05-01T10:00:09Z";

/** A deployment as `kubectl create deployment web --image=nginx` sends it (less defaults). */
function withoutApiVersion({ apiVersion: _apiVersion, ...rest }: ApiObject): ApiObject {
  return rest;
}

function deployment(overrides: { replicas?: number; image?: string } = {}): ApiObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default", labels: { app: "web" } },
    spec: {
      replicas: overrides.replicas ?? 1,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image: overrides.image ?? "nginx" }] } },
    },
  };
}

/** What the store adds on create. */
function stored(object: ApiObject): ApiObject {
  return { ...object, metadata: { ...object.metadata, uid: "0b7c", creationTimestamp: T1, generation: 1, resourceVersion: "7" } };
}

function entries(object: ApiObject): Record<string, unknown>[] {
  return (object.metadata.managedFields ?? []) as Record<string, unknown>[];
}

function conflictOf(action: () => unknown): ApiError {
  try {
    action();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected an ApiError");
}

const APPLIED_FIELDS = {
  "f:metadata": { "f:labels": { "f:app": {} } },
  "f:spec": {
    "f:replicas": {},
    "f:selector": {},
    "f:template": {
      "f:metadata": { "f:labels": { "f:app": {} } },
      "f:spec": { "f:containers": { 'k:{"name":"nginx"}': { ".": {}, "f:image": {}, "f:name": {} } } },
    },
  },
};

describe("FieldManager.update(): Update entries", () => {
  it("records the creator's fields in kube's FieldsV1 encoding, server-set metadata left out", () => {
    const created = deploymentManager().update(undefined, stored(deployment()), { manager: "kubectl-create", subresource: "", time: T1 });
    assert.deepEqual(entries(created), [
      {
        manager: "kubectl-create",
        operation: "Update",
        apiVersion: "apps/v1",
        time: T1,
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
          // kube compares against the kind's empty typed object: its non-pointer structs (spec,
          // template, the template's metadata and spec) and null containers are there already.
          "f:spec": {
            "f:replicas": {},
            "f:selector": {},
            "f:template": {
              "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
              "f:spec": { "f:containers": { 'k:{"name":"nginx"}': { ".": {}, "f:image": {}, "f:name": {}, "f:resources": {} } } },
            },
          },
        },
      },
    ]);
  });

  it("gives a field to the manager that changes it, without conflict, and keeps entries in kube's order", () => {
    const fields = deploymentManager();
    const created = fields.update(undefined, stored(deployment()), { manager: "kubectl-create", subresource: "", time: T1 });
    const scaled = fields.update(
      created,
      { ...created, spec: { ...(created["spec"] as object), replicas: 3 } },
      { manager: "kubectl-scale", subresource: "", time: T2 },
    );
    const [first, second] = entries(scaled);
    assert.equal(first?.["manager"], "kubectl-create");
    assert.equal(JSON.stringify(first?.["fieldsV1"]).includes("f:replicas"), false);
    assert.deepEqual(second, {
      manager: "kubectl-scale",
      operation: "Update",
      apiVersion: "apps/v1",
      time: T2,
      fieldsType: "FieldsV1",
      fieldsV1: { "f:spec": { "f:replicas": {} } },
    });
  });

  it("keeps managedFields identical (no new time) for a write that changes nothing", () => {
    const fields = deploymentManager();
    const created = fields.update(undefined, stored(deployment()), { manager: "kubectl-create", subresource: "", time: T1 });
    const again = fields.update(created, structuredClone(created), { manager: "other", subresource: "", time: T2 });
    assert.deepEqual(again.metadata.managedFields, created.metadata.managedFields);
  });

  it("resets ownership with [{}]: only what the same request changes is owned afterwards", () => {
    const fields = deploymentManager();
    const created = fields.update(undefined, stored(deployment()), { manager: "kubectl-create", subresource: "", time: T1 });
    const reset = fields.update(
      created,
      { ...created, metadata: { ...created.metadata, managedFields: [{}] } },
      { manager: "resetter", subresource: "", time: T2 },
    );
    assert.equal(reset.metadata.managedFields, undefined);
    const resetAndScale = fields.update(
      created,
      { ...created, metadata: { ...created.metadata, managedFields: [{}] }, spec: { ...(created["spec"] as object), replicas: 4 } },
      { manager: "resetter", subresource: "", time: T2 },
    );
    assert.deepEqual(
      entries(resetAndScale).map((entry) => [entry["manager"], entry["fieldsV1"]]),
      [["resetter", { "f:spec": { "f:replicas": {} } }]],
    );
  });

  it("keeps the stored managedFields when a request sends an empty list or invalid entries", () => {
    const fields = deploymentManager();
    const created = fields.update(undefined, stored(deployment()), { manager: "kubectl-create", subresource: "", time: T1 });
    for (const sent of [
      [],
      [{ manager: "x", operation: "Delete", apiVersion: "apps/v1", fieldsType: "FieldsV1", fieldsV1: {} }],
      [{ manager: "x", operation: "Update", apiVersion: "apps/v1", fieldsType: "FieldsV2" }],
    ]) {
      const updated = fields.update(
        created,
        { ...created, metadata: { ...created.metadata, managedFields: sent } },
        { manager: "editor", subresource: "", time: T2 },
      );
      assert.deepEqual(updated.metadata.managedFields, created.metadata.managedFields, JSON.stringify(sent));
    }
  });

  it("takes valid managedFields a client writes as the new ownership (kubectl's client-side apply migration does this)", () => {
    const fields = deploymentManager();
    const created = fields.update(undefined, stored(deployment()), { manager: "kubectl-client-side-apply", subresource: "", time: T1 });
    const rewritten = entries(created).map((entry) => ({ ...entry, manager: "kubectl", operation: "Apply" }));
    const migrated = fields.update(
      created,
      { ...created, metadata: { ...created.metadata, managedFields: rewritten } },
      { manager: "kubectl", subresource: "", time: T2 },
    );
    assert.deepEqual(
      entries(migrated).map((entry) => [entry["manager"], entry["operation"], entry["time"]]),
      [["kubectl", "Apply", T1]],
    );
  });

  it("records status sub-resource writes as their own entry owning only status; the main resource never owns status", () => {
    const fields = deploymentManager();
    const created = fields.update(undefined, { ...stored(deployment()), status: { replicas: 9 } }, { manager: "creator", subresource: "", time: T1 });
    assert.equal(JSON.stringify(created.metadata.managedFields).includes("f:status"), false);
    const withStatus = fields.update(
      created,
      { ...created, status: { replicas: 1, conditions: [{ type: "Available", status: "True" }] }, spec: { replicas: 7 } },
      { manager: "controller", subresource: "status", time: T2 },
    );
    assert.deepEqual(entries(withStatus)[1], {
      manager: "controller",
      operation: "Update",
      apiVersion: "apps/v1",
      time: T2,
      fieldsType: "FieldsV1",
      fieldsV1: { "f:status": { "f:conditions": { ".": {}, 'k:{"type":"Available"}': { ".": {}, "f:status": {}, "f:type": {} } }, "f:replicas": {} } },
      subresource: "status",
    });
  });

  it("caps Update entries at ten: the oldest merge into ancient-changes", () => {
    const fields = deploymentManager();
    let object = fields.update(undefined, stored(deployment()), { manager: "m0", subresource: "", time: "2024-05-01T10:00:00Z" });
    for (let index = 1; index <= 10; index++) {
      const labels = { ...object.metadata.labels, [`l${index}`]: "x" };
      object = fields.update(
        object,
        { ...object, metadata: { ...object.metadata, labels } },
        { manager: `m${index}`, subresource: "", time: `2024-05-01T10:00:${String(index).padStart(2, "0")}Z` },
      );
    }
    const managers = entries(object).map((entry) => entry["manager"]);
    assert.equal(managers.length, 10);
    assert.ok(managers.includes("ancient-changes"));
    assert.ok(!managers.includes("m0") && !managers.includes("m1"), managers.join(","));
  });

  it("drops managedFields rather than failing when the object does not fit the schema (list-map item without its key)", () => {
    const fields = deploymentManager();
    const broken = stored(deployment());
    (broken["spec"] as { template: { spec: { containers: unknown[] } } }).template.spec.containers = [{ image: "nameless" }];
    assert.equal(fields.update(undefined, broken, { manager: "m", subresource: "", time: T1 }).metadata.managedFields, undefined);
  });
});

describe("FieldManager.apply(): Apply entries", () => {
  it("owns exactly the configuration's fields, as kube encodes them", () => {
    const applied = deploymentManager().apply(undefined, deployment({ replicas: 2 }), { manager: "kubectl", subresource: "", time: T1, force: false });
    assert.deepEqual(entries(applied), [
      { manager: "kubectl", operation: "Apply", apiVersion: "apps/v1", time: T1, fieldsType: "FieldsV1", fieldsV1: APPLIED_FIELDS },
    ]);
    assert.equal((applied["spec"] as { replicas: number }).replicas, 2);
  });

  it("re-applying the same configuration changes nothing, times included (a no-op write)", () => {
    const fields = deploymentManager();
    const first = stored(fields.apply(undefined, deployment(), { manager: "kubectl", subresource: "", time: T1, force: false }));
    const second = fields.apply(first, deployment(), { manager: "kubectl", subresource: "", time: T3, force: false });
    assert.deepEqual(second, first);
  });

  it("answers a conflict with 409, kube's message and one FieldManagerConflict cause per field", () => {
    const fields = deploymentManager();
    const created = fields.update(undefined, stored(deployment()), { manager: "kubectl-create", subresource: "", time: T1 });
    const single = conflictOf(() => fields.apply(created, deployment({ replicas: 5 }), { manager: "deployer", subresource: "", time: T2, force: false }));
    assert.equal(single.code, 409);
    assert.equal(single.reason, "Conflict");
    assert.equal(single.message, 'Apply failed with 1 conflict: conflict with "kubectl-create" using apps/v1: .spec.replicas');
    assert.deepEqual(single.details, {
      causes: [{ reason: "FieldManagerConflict", message: 'conflict with "kubectl-create" using apps/v1', field: ".spec.replicas" }],
    });
    const scaled = fields.apply(
      created,
      { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 5 } },
      { manager: "scaler", subresource: "", time: T2, force: true },
    );
    const several = conflictOf(() =>
      fields.apply(scaled, deployment({ replicas: 6, image: "httpd" }), { manager: "deployer", subresource: "", time: T3, force: false }),
    );
    assert.equal(
      several.message,
      'Apply failed with 2 conflicts: conflicts with "kubectl-create" using apps/v1:\n- .spec.template.spec.containers[name="nginx"].image\nconflicts with "scaler":\n- .spec.replicas',
    );
    assert.deepEqual(
      several.details?.causes?.map((cause) => cause.field),
      ['.spec.template.spec.containers[name="nginx"].image', ".spec.replicas"],
    );
  });

  it("rejects bodies that are not apply configurations of this kind with 400", () => {
    const fields = deploymentManager();
    const write = { manager: "m", subresource: "", time: T1, force: false };
    const cases: [ApiObject, RegExp][] = [
      [{ ...deployment(), metadata: { name: "web", managedFields: [] } }, /^metadata\.managedFields must be nil$/],
      [{ ...deployment(), apiVersion: "apps/v1beta1" }, /^invalid object type: apps\/v1beta1, Kind=Deployment$/],
      [{ ...deployment(), kind: "ReplicaSet" }, /^invalid object type: apps\/v1, Kind=ReplicaSet$/],
      [{ ...deployment(), apiVersion: "v1" }, /^invalid object type: \/v1, Kind=Deployment$/],
      [withoutApiVersion(deployment()), /^invalid object type: \/, Kind=Deployment$/],
      [{ ...deployment(), apiVersion: "a/b/c" }, /^invalid object type: \/, Kind=$/],
      [
        { ...deployment(), spec: { template: { spec: { containers: [{ name: "a" }, { name: "a" }] } } } },
        /^failed to create typed patch object \(default\/web; apps\/v1, Kind=Deployment\): \.spec\.template\.spec\.containers: duplicate entries for key \[name="a"\]$/,
      ],
    ];
    for (const [body, message] of cases) {
      const error = conflictOf(() => fields.apply(undefined, body, write));
      assert.equal(error.code, 400, error.message);
      assert.match(error.message, message);
    }
  });

  it("lets kubectl take over fields client-side apply set when they still hold the last-applied values, and keeps the annotation current", () => {
    const fields = deploymentManager();
    const lastApplied = `${JSON.stringify(deployment())}\n`;
    const csa = { ...deployment(), metadata: { ...deployment().metadata, annotations: { [LAST_APPLIED]: lastApplied } } };
    const created = fields.update(undefined, stored(csa), { manager: "kubectl-client-side-apply", subresource: "", time: T1 });
    const upgraded = fields.apply(created, deployment({ replicas: 3 }), { manager: "kubectl", subresource: "", time: T2, force: false });
    assert.equal((upgraded["spec"] as { replicas: number }).replicas, 3);
    const annotation = upgraded.metadata.annotations?.[LAST_APPLIED] ?? "";
    assert.deepEqual(JSON.parse(annotation), deployment({ replicas: 3 }));
    assert.ok(annotation.endsWith("}\n") && annotation.startsWith('{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"labels"'), annotation);
    // Another manager gets no such upgrade.
    assert.equal(conflictOf(() => fields.apply(created, deployment({ replicas: 3 }), { manager: "other", subresource: "", time: T2, force: false })).code, 409);
    // Nor does kubectl for a field that no longer holds its last-applied value.
    const edited = fields.update(
      created,
      { ...created, spec: { ...(created["spec"] as object), replicas: 2 } },
      { manager: "kubectl-edit", subresource: "", time: T2 },
    );
    assert.equal(
      conflictOf(() => fields.apply(edited, deployment({ replicas: 3 }), { manager: "kubectl", subresource: "", time: T3, force: false })).message,
      'Apply failed with 1 conflict: conflict with "kubectl-edit" using apps/v1: .spec.replicas',
    );
  });

  it("tracks status applies separately (subresource status) and ignores status in applies to the resource", () => {
    const fields = deploymentManager();
    const applied = fields.apply(undefined, { ...deployment(), status: { replicas: 3 } }, { manager: "a", subresource: "", time: T1, force: false });
    assert.equal(JSON.stringify(applied.metadata.managedFields).includes("f:status"), false);
    const status = fields.apply(
      stored(applied),
      { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, status: { readyReplicas: 1 } },
      { manager: "c", subresource: "status", time: T2, force: false },
    );
    const entry = entries(status).find((candidate) => candidate["manager"] === "c");
    assert.deepEqual(entry, {
      manager: "c",
      operation: "Apply",
      apiVersion: "apps/v1",
      time: T2,
      fieldsType: "FieldsV1",
      fieldsV1: { "f:status": { "f:readyReplicas": {} } },
      subresource: "status",
    });
  });
});
