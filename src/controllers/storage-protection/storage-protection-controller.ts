import { ApiError } from "../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { ApiClient, ResourceRef } from "../../api/client.js";
import type { Controller } from "../controller.js";
import { followAndReconcile } from "../follow.js";

export interface StorageProtectionOptions {
  readonly client: ApiClient;
  /** The profile's key domain: the finalizers are `<keyDomain>/pvc-protection` and `<keyDomain>/pv-protection`. */
  readonly keyDomain: string;
  readonly onError?: (error: unknown) => void;
}

const PVCS: ResourceRef = { group: "", version: "v1", plural: "persistentvolumeclaims" };
const PVS: ResourceRef = { group: "", version: "v1", plural: "persistentvolumes" };
const PODS: ResourceRef = { group: "", version: "v1", plural: "pods" };

/** The claims a pod uses: its `persistentVolumeClaim` volumes and, as kube names them, its generic ephemeral volumes' claims. */
export function claimsOfPod(pod: ApiObject): string[] {
  const spec = pod["spec"];
  const volumes = isPlainObject(spec) && Array.isArray(spec["volumes"]) ? spec["volumes"].filter(isPlainObject) : [];
  const claims: string[] = [];
  for (const volume of volumes) {
    const claim = volume["persistentVolumeClaim"];
    if (isPlainObject(claim) && typeof claim["claimName"] === "string") claims.push(claim["claimName"]);
    if (isPlainObject(volume["ephemeral"]) && typeof volume["name"] === "string") claims.push(`${pod.metadata.name ?? ""}-${volume["name"]}`);
  }
  return claims;
}

/** A pod that has finished (Succeeded or Failed) no longer holds its claims. */
function running(pod: ApiObject): boolean {
  const status = pod["status"];
  const phase = isPlainObject(status) ? status["phase"] : undefined;
  return phase !== "Succeeded" && phase !== "Failed";
}

function without(object: ApiObject, finalizer: string): ApiObject {
  return { ...object, metadata: { ...object.metadata, finalizers: (object.metadata.finalizers ?? []).filter((name) => name !== finalizer) } };
}

function terminatingWith(object: ApiObject, finalizer: string): boolean {
  return object.metadata.deletionTimestamp !== undefined && (object.metadata.finalizers ?? []).includes(finalizer);
}

/**
 * kube-controller-manager's `pvc-protection` and `pv-protection` in one loop: the finalizers the
 * StorageObjectInUseProtection admission plugin adds are removed from a claim being deleted once
 * no running pod uses it, and from a volume being deleted once it is not Bound, so the deletion
 * completes. Woken by changes to claims, volumes and pods; does nothing while none is terminating.
 */
export function storageProtectionController(options: StorageProtectionOptions): Controller {
  const { client } = options;
  const pvcFinalizer = `${options.keyDomain}/pvc-protection`;
  const pvFinalizer = `${options.keyDomain}/pv-protection`;

  const release = async (resource: ResourceRef, object: ApiObject, finalizer: string): Promise<void> => {
    try {
      await client.update(resource, object.metadata.namespace ?? "", object.metadata.name ?? "", without(object, finalizer));
    } catch (error) {
      // Changed or gone meanwhile: the next wake-up sees the new state.
      if (!(error instanceof ApiError && (error.code === 409 || error.code === 404))) throw error;
    }
  };

  async function reconcile(): Promise<void> {
    const claims = (await client.list(PVCS, "")).items.filter((claim) => terminatingWith(claim, pvcFinalizer));
    const inUse = new Map<string, Set<string>>();
    for (const claim of claims) {
      const namespace = claim.metadata.namespace ?? "";
      let used = inUse.get(namespace);
      if (used === undefined) {
        used = new Set((await client.list(PODS, namespace)).items.filter(running).flatMap(claimsOfPod));
        inUse.set(namespace, used);
      }
      if (!used.has(claim.metadata.name ?? "")) await release(PVCS, claim, pvcFinalizer);
    }
    for (const volume of (await client.list(PVS, "")).items) {
      if (!terminatingWith(volume, pvFinalizer)) continue;
      const status = volume["status"];
      if (isPlainObject(status) && status["phase"] === "Bound") continue;
      await release(PVS, volume, pvFinalizer);
    }
  }

  return {
    name: "storage-protection",
    run: (signal) => followAndReconcile(client, [PVCS, PVS, PODS], signal, { reconcile, onError: options.onError }),
  };
}
