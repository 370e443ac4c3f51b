import { ApiError } from "../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { ApiClient, ResourceRef } from "../../api/client.js";
import { objectKey, splitKey, type InformerFactory } from "../runtime/informer.js";
import type { QueueControllerSpec } from "../runtime/queue-controller.js";

export interface StorageProtectionOptions {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  /** The profile's key domain: the finalizers are `<keyDomain>/pvc-protection` and `<keyDomain>/pv-protection`. */
  readonly keyDomain: string;
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
 * kube-controller-manager's `pvc-protection` and `pv-protection` in one queue: the finalizers the
 * StorageObjectInUseProtection admission plugin adds are removed from a claim being deleted once
 * no running pod uses it, and from a volume being deleted once it is not Bound, so the deletion
 * completes. Keys are `pvc:<namespace>/<name>` and `pv:<name>`; a pod change wakes only the claims
 * it names, and a claim is looked at only while it is terminating.
 */
export function storageProtectionController(options: StorageProtectionOptions): QueueControllerSpec {
  const { client } = options;
  const pvcFinalizer = `${options.keyDomain}/pvc-protection`;
  const pvFinalizer = `${options.keyDomain}/pv-protection`;
  const claims = options.informers.indexed(PVCS);
  const volumes = options.informers.informer(PVS);
  const pods = options.informers.informer(PODS);

  const release = async (resource: ResourceRef, object: ApiObject, finalizer: string): Promise<void> => {
    try {
      await client.update(resource, object.metadata.namespace ?? "", object.metadata.name ?? "", without(object, finalizer));
    } catch (error) {
      // Changed or gone meanwhile: the change brings the key back.
      if (!(error instanceof ApiError && (error.code === 409 || error.code === 404))) throw error;
    }
  };

  function* terminating(): Iterable<string> {
    for (const claim of claims.list()) if (terminatingWith(claim, pvcFinalizer)) yield `pvc:${objectKey(claim)}`;
    for (const volume of volumes.list()) if (terminatingWith(volume, pvFinalizer)) yield `pv:${objectKey(volume)}`;
  }

  async function reconcile(key: string): Promise<void> {
    if (key.startsWith("pv:")) {
      const volume = volumes.get("", key.slice(3));
      if (volume === undefined || !terminatingWith(volume, pvFinalizer)) return;
      const status = volume["status"];
      if (isPlainObject(status) && status["phase"] === "Bound") return;
      return release(PVS, volume, pvFinalizer);
    }
    const { namespace, name } = splitKey(key.slice(4));
    const claim = claims.get(namespace, name);
    if (claim === undefined || !terminatingWith(claim, pvcFinalizer)) return;
    // A consistent read of the namespace's pods (the cache may not hold a pod just created): rare, only for a terminating claim.
    const used = (await client.list(PODS, namespace)).items.filter(running).some((pod) => claimsOfPod(pod).includes(name));
    if (!used) await release(PVCS, claim, pvcFinalizer);
  }

  return {
    name: "storage-protection",
    watch(queue) {
      const onClaim = (claim: ApiObject): void => {
        if (terminatingWith(claim, pvcFinalizer)) queue.add(`pvc:${objectKey(claim)}`);
      };
      const onVolume = (volume: ApiObject): void => {
        if (terminatingWith(volume, pvFinalizer)) queue.add(`pv:${objectKey(volume)}`);
      };
      // A pod that goes or finishes may free the claims it names; only a terminating claim cares.
      const onPod = (pod: ApiObject): void => {
        const namespace = pod.metadata.namespace ?? "";
        for (const name of claimsOfPod(pod)) {
          const claim = claims.get(namespace, name);
          if (claim !== undefined) onClaim(claim);
        }
      };
      const all = (): void => {
        for (const key of terminating()) queue.add(key);
      };
      const off = [
        claims.addHandlers({ onAdd: onClaim, onUpdate: onClaim, onReset: all }),
        volumes.addHandlers({ onAdd: onVolume, onUpdate: onVolume, onReset: all }),
        pods.addHandlers({ onUpdate: onPod, onDelete: onPod, onReset: all }),
      ];
      return () => {
        for (const unsubscribe of off) unsubscribe();
      };
    },
    initialKeys: terminating,
    reconcile,
  };
}
