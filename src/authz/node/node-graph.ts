import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { FeedChange, ObjectFeed } from "../feed.js";

/** What a pod bound to a node lets the node read: `secret:<ns>/<name>`, `configmap:…`, `pvc:…`, `serviceaccount:…`. */
export type ReferenceKind = "secret" | "configmap" | "pvc" | "serviceaccount";

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** Volume sources whose `secretRef.name` names a secret (kube's `VisitPodSecretNames`). */
const SECRET_REF_VOLUMES = ["cephfs", "cinder", "flexVolume", "iscsi", "rbd", "scaleIO", "storageos"];

/**
 * Every object a pod references that its node must read: service account, image pull secrets,
 * env and envFrom secrets and config maps of every container, and secret, config map,
 * projected, persistent-volume-claim (and generic ephemeral) volumes.
 */
export function podReferences(pod: ApiObject): { kind: ReferenceKind; name: string }[] {
  const spec = record(pod["spec"]);
  const out: { kind: ReferenceKind; name: string }[] = [];
  const add = (kind: ReferenceKind, name: unknown): void => {
    const value = text(name);
    if (value !== undefined) out.push({ kind, name: value });
  };
  add("serviceaccount", spec["serviceAccountName"]);
  for (const secret of list(spec["imagePullSecrets"])) add("secret", secret["name"]);
  for (const field of ["containers", "initContainers", "ephemeralContainers"]) {
    for (const container of list(spec[field])) {
      for (const env of list(container["env"])) {
        const from = record(env["valueFrom"]);
        add("secret", record(from["secretKeyRef"])["name"]);
        add("configmap", record(from["configMapKeyRef"])["name"]);
      }
      for (const envFrom of list(container["envFrom"])) {
        add("secret", record(envFrom["secretRef"])["name"]);
        add("configmap", record(envFrom["configMapRef"])["name"]);
      }
    }
  }
  for (const volume of list(spec["volumes"])) {
    add("secret", record(volume["secret"])["secretName"]);
    add("configmap", record(volume["configMap"])["name"]);
    add("pvc", record(volume["persistentVolumeClaim"])["claimName"]);
    if (isPlainObject(volume["ephemeral"])) add("pvc", `${pod.metadata.name ?? ""}-${String(volume["name"] ?? "")}`);
    for (const source of list(record(volume["projected"])["sources"])) {
      add("secret", record(source["secret"])["name"]);
      add("configmap", record(source["configMap"])["name"]);
    }
    add("secret", record(volume["azureFile"])["secretName"]);
    add("secret", record(record(volume["csi"])["nodePublishSecretRef"])["name"]);
    for (const kind of SECRET_REF_VOLUMES) add("secret", record(record(volume[kind])["secretRef"])["name"]);
  }
  return out;
}

interface PodEntry {
  readonly node: string;
  readonly references: readonly string[];
}

function podKey(object: ApiObject): string {
  return `${object.metadata.namespace ?? ""}/${object.metadata.name ?? ""}`;
}

/**
 * The relationships the Node authorizer reads (kube's node graph): which node each pod is bound
 * to, which objects those pods reference (counted per node), and which persistent volume each
 * claim is bound to. Kept current from the pods and persistent-volume-claims feeds.
 */
export class NodeGraph {
  private readonly pods = new Map<string, PodEntry>();
  /** `<kind>:<ns>/<name>` → node → number of its pods referencing the object. */
  private readonly references = new Map<string, Map<string, number>>();
  /** claim `<ns>/<name>` → bound volume name. */
  private readonly claimVolume = new Map<string, string>();
  /** volume name → claims bound to it. */
  private readonly volumeClaims = new Map<string, Set<string>>();
  private readonly unsubscribe: (() => void)[] = [];

  constructor(feeds: { readonly pods: ObjectFeed; readonly persistentVolumeClaims: ObjectFeed }) {
    this.unsubscribe.push(feeds.pods.subscribe((change) => this.onPod(change, feeds.pods)));
    this.unsubscribe.push(feeds.persistentVolumeClaims.subscribe((change) => this.onClaim(change, feeds.persistentVolumeClaims)));
    for (const pod of feeds.pods.objects()) this.addPod(pod);
    for (const claim of feeds.persistentVolumeClaims.objects()) this.addClaim(claim);
  }

  close(): void {
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
  }

  /** The node a pod is bound to, if any. */
  podNode(namespace: string, name: string): string | undefined {
    return this.pods.get(`${namespace}/${name}`)?.node;
  }

  /** Whether a pod bound to `node` references the object. */
  referencedBy(node: string, kind: ReferenceKind, namespace: string, name: string): boolean {
    return (this.references.get(`${kind}:${namespace}/${name}`)?.get(node) ?? 0) > 0;
  }

  /** Whether a claim referenced by a pod on `node` is bound to the volume. */
  volumeReachable(node: string, volume: string): boolean {
    for (const claim of this.volumeClaims.get(volume) ?? []) {
      const slash = claim.indexOf("/");
      if (this.referencedBy(node, "pvc", claim.slice(0, slash), claim.slice(slash + 1))) return true;
    }
    return false;
  }

  private onPod(change: FeedChange, feed: ObjectFeed): void {
    if (change.kind === "reset") {
      for (const key of [...this.pods.keys()]) this.removePod(key);
      for (const pod of feed.objects()) this.addPod(pod);
      return;
    }
    if (change.previous !== undefined) this.removePod(podKey(change.previous));
    if (change.kind === "set") this.addPod(change.object);
  }

  private addPod(pod: ApiObject): void {
    const key = podKey(pod);
    this.removePod(key);
    const node = text(record(pod["spec"])["nodeName"]);
    if (node === undefined) return;
    const namespace = pod.metadata.namespace ?? "";
    const references = [...new Set(podReferences(pod).map((reference) => `${reference.kind}:${namespace}/${reference.name}`))];
    this.pods.set(key, { node, references });
    for (const reference of references) {
      let counts = this.references.get(reference);
      if (counts === undefined) {
        counts = new Map();
        this.references.set(reference, counts);
      }
      counts.set(node, (counts.get(node) ?? 0) + 1);
    }
  }

  private removePod(key: string): void {
    const entry = this.pods.get(key);
    if (entry === undefined) return;
    this.pods.delete(key);
    for (const reference of entry.references) {
      const counts = this.references.get(reference);
      if (counts === undefined) continue;
      const count = (counts.get(entry.node) ?? 0) - 1;
      if (count > 0) counts.set(entry.node, count);
      else counts.delete(entry.node);
      if (counts.size === 0) this.references.delete(reference);
    }
  }

  private onClaim(change: FeedChange, feed: ObjectFeed): void {
    if (change.kind === "reset") {
      for (const key of [...this.claimVolume.keys()]) this.removeClaim(key);
      for (const claim of feed.objects()) this.addClaim(claim);
      return;
    }
    if (change.previous !== undefined) this.removeClaim(podKey(change.previous));
    if (change.kind === "set") this.addClaim(change.object);
  }

  private addClaim(claim: ApiObject): void {
    const key = podKey(claim);
    this.removeClaim(key);
    const volume = text(record(claim["spec"])["volumeName"]);
    if (volume === undefined) return;
    this.claimVolume.set(key, volume);
    let claims = this.volumeClaims.get(volume);
    if (claims === undefined) {
      claims = new Set();
      this.volumeClaims.set(volume, claims);
    }
    claims.add(key);
  }

  private removeClaim(key: string): void {
    const volume = this.claimVolume.get(key);
    if (volume === undefined) return;
    this.claimVolume.delete(key);
    const claims = this.volumeClaims.get(volume);
    claims?.delete(key);
    if (claims !== undefined && claims.size === 0) this.volumeClaims.delete(volume);
  }
}
