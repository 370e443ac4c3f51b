import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../../profile.js";
import { inProcessServer } from "../../../testing/in-process.js";

const MERGE = { "content-type": "application/merge-patch+json" };

describe("storage update rules, as kube's ValidateXUpdate", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  it("a claim needs access modes and a positive storage request; a volume access modes, a storage capacity and one source", async () => {
    const claims = "/api/v1/namespaces/default/persistentvolumeclaims";
    const claim = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name },
      spec,
    });
    const claimCases: [Record<string, unknown>, string][] = [
      [
        claim("c1", {}),
        'PersistentVolumeClaim "c1" is invalid: [spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Required value]',
      ],
      [
        claim("c2", { accessModes: ["ReadWriteOncePod", "ReadWriteOnce"], resources: { requests: { storage: "0" } } }),
        'PersistentVolumeClaim "c2" is invalid: [spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes, spec.resources[storage]: Invalid value: "0": must be greater than zero]',
      ],
    ];
    for (const [body, message] of claimCases) {
      const refused = await server.call("POST", claims, { body });
      assert.equal(refused.status, 422, refused.text);
      assert.equal(refused.json["message"], message);
    }
    const ok = await server.call("POST", claims, { body: claim("c3", { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } }) });
    assert.equal(ok.status, 201, ok.text);

    const volumes = "/api/v1/persistentvolumes";
    const volume = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name },
      spec,
    });
    const volumeCases: [Record<string, unknown>, string][] = [
      [
        volume("v1", {}),
        'PersistentVolume "v1" is invalid: [spec.accessModes: Required value, spec.capacity: Required value, spec.capacity: Unsupported value: core.ResourceList(nil): supported values: "storage", spec: Required value: must specify a volume type]',
      ],
      [
        volume("v2", { accessModes: ["ReadWriteOnce"], capacity: { storage: "1Gi" }, hostPath: { path: "/a" }, nfs: { server: "s", path: "/b" } }),
        'PersistentVolume "v2" is invalid: spec.nfs: Forbidden: may not specify more than 1 volume type',
      ],
    ];
    for (const [body, message] of volumeCases) {
      const refused = await server.call("POST", volumes, { body });
      assert.equal(refused.status, 422, refused.text);
      assert.equal(refused.json["message"], message);
    }
    const made = await server.call("POST", volumes, {
      body: volume("v3", { accessModes: ["ReadWriteOnce"], capacity: { storage: "1Gi" }, hostPath: { path: "/a" } }),
    });
    assert.equal(made.status, 201, made.text);
  });

  it("a StorageClass's parameters, provisioner, reclaim policy and binding mode are fixed", async () => {
    const path = "/apis/storage.k8s.io/v1/storageclasses";
    const created = await server.call("POST", path, {
      body: { apiVersion: "storage.k8s.io/v1", kind: "StorageClass", metadata: { name: "fast" }, provisioner: "x.io/a" },
    });
    assert.equal(created.status, 201, created.text);
    const refused = await server.call("PATCH", `${path}/fast`, {
      body: { parameters: { a: "b" }, provisioner: "y.io/b", reclaimPolicy: "Retain", volumeBindingMode: "WaitForFirstConsumer" },
      headers: MERGE,
    });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(
      refused.json["message"],
      'StorageClass.storage.k8s.io "fast" is invalid: [parameters: Forbidden: updates to parameters are forbidden., provisioner: Forbidden: updates to provisioner are forbidden., reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden., volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable]',
    );
    assert.equal((await server.call("PATCH", `${path}/fast`, { body: { allowVolumeExpansion: true }, headers: MERGE })).status, 200);
  });

  it("a PersistentVolume's source and mode are fixed; capacity, class and reclaim policy may change", async () => {
    const path = "/api/v1/persistentvolumes";
    const body = {
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: "pv" },
      spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/a" } },
    };
    assert.equal((await server.call("POST", path, { body })).status, 201);
    const source = await server.call("PATCH", `${path}/pv`, { body: { spec: { hostPath: { path: "/b" } } }, headers: MERGE });
    assert.equal(source.status, 422, source.text);
    assert.match(String(source.json["message"]), /spec\.persistentvolumesource: Forbidden: spec\.persistentvolumesource is immutable after creation/);
    const mode = await server.call("PATCH", `${path}/pv`, { body: { spec: { volumeMode: "Block" } }, headers: MERGE });
    assert.match(String(mode.json["message"]), /volumeMode: Invalid value: "Block": field is immutable/);
    const fine = await server.call("PATCH", `${path}/pv`, {
      body: { spec: { capacity: { storage: "2Gi" }, persistentVolumeReclaimPolicy: "Delete" } },
      headers: MERGE,
    });
    assert.equal(fine.status, 200, fine.text);
  });

  it("a claim's spec is fixed once created (its volume name may be set once)", async () => {
    const path = "/api/v1/namespaces/default/persistentvolumeclaims";
    const storageClass = {
      apiVersion: "storage.k8s.io/v1",
      kind: "StorageClass",
      metadata: { name: "grow" },
      provisioner: "x.io/a",
      allowVolumeExpansion: true,
    };
    assert.equal((await server.call("POST", "/apis/storage.k8s.io/v1/storageclasses", { body: storageClass })).status, 201);
    const body = {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "c" },
      spec: { storageClassName: "grow", accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    };
    assert.equal((await server.call("POST", path, { body })).status, 201);
    const modes = await server.call("PATCH", `${path}/c`, { body: { spec: { accessModes: ["ReadWriteMany"] } }, headers: MERGE });
    assert.equal(modes.status, 422, modes.text);
    assert.match(
      String(modes.json["message"]),
      /spec: Forbidden: spec is immutable after creation except resources\.requests and volumeAttributesClassName for bound claims/,
    );
    const grow = await server.call("PATCH", `${path}/c`, { body: { spec: { resources: { requests: { storage: "2Gi" } } } }, headers: MERGE });
    assert.equal(grow.status, 422, "an unbound claim does not resize");
    const bind = await server.call("PATCH", `${path}/c`, { body: { spec: { volumeName: "pv" } }, headers: MERGE });
    assert.equal(bind.status, 200, bind.text);
    const rebind = await server.call("PATCH", `${path}/c`, { body: { spec: { volumeName: "other" } }, headers: MERGE });
    assert.equal(rebind.status, 422, rebind.text);
    const bound = await server.call("PATCH", `${path}/c/status`, { body: { status: { phase: "Bound" } }, headers: MERGE });
    assert.equal(bound.status, 200, bound.text);
    const resize = await server.call("PATCH", `${path}/c`, { body: { spec: { resources: { requests: { storage: "2Gi" } } } }, headers: MERGE });
    assert.equal(resize.status, 200, resize.text);
    const shrink = await server.call("PATCH", `${path}/c`, { body: { spec: { resources: { requests: { storage: "1Gi" } } } }, headers: MERGE });
    assert.equal(shrink.status, 422, shrink.text);
    assert.match(String(shrink.json["message"]), /spec\.resources\.requests\.storage: Forbidden: field can not be less than previous value/);
  });
});
