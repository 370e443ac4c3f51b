import type { ServedResource } from "../../api/client.js";
import type { ApiObject, OwnerReference } from "../../api/object.js";

/** The GC's finalizers (kube's spelling). */
export const ORPHAN = "orphan";
export const FOREGROUND = "foregroundDeletion";

/** One object in the ownership graph: where it lives, whom it names as owners, how it is being deleted. */
export interface GraphNode {
  readonly uid: string;
  readonly resource: ServedResource;
  readonly namespace: string;
  readonly name: string;
  readonly owners: readonly OwnerReference[];
  readonly deleting: boolean;
  /** Marked for deletion with `foregroundDeletion`: waits for its blocking dependents. */
  readonly foreground: boolean;
  /** Marked for deletion with `orphan`: its dependents lose their references to it. */
  readonly orphan: boolean;
}

/** Shared by every node without owners (most objects): one empty array, not one each. */
const NO_OWNERS: readonly OwnerReference[] = Object.freeze([]);

/** The metadata fields a node is made of (`nodeOf` reads nothing else). */
export const NODE_FIELDS: ReadonlySet<string> = new Set(["uid", "namespace", "name", "finalizers", "deletionTimestamp", "ownerReferences"]);

export function nodeOf(resource: ServedResource, object: ApiObject): GraphNode | undefined {
  const uid = object.metadata.uid;
  if (uid === undefined) return undefined;
  const finalizers = object.metadata.finalizers ?? [];
  const deleting = object.metadata.deletionTimestamp !== undefined;
  return {
    uid,
    resource,
    namespace: object.metadata.namespace ?? "",
    name: object.metadata.name ?? "",
    owners: object.metadata.ownerReferences ?? NO_OWNERS,
    deleting,
    foreground: deleting && finalizers.includes(FOREGROUND),
    orphan: deleting && finalizers.includes(ORPHAN),
  };
}

function sameOwners(a: readonly OwnerReference[], b: readonly OwnerReference[]): boolean {
  return (
    a.length === b.length &&
    a.every((ref, index) => {
      const other = b[index];
      return (
        other !== undefined &&
        other.uid === ref.uid &&
        other.name === ref.name &&
        other.kind === ref.kind &&
        other.blockOwnerDeletion === ref.blockOwnerDeletion
      );
    })
  );
}

/** What changed when a node was set, for deciding what to enqueue. */
export interface NodeChange {
  readonly ownersChanged: boolean;
  readonly deletionChanged: boolean;
  readonly previous: GraphNode | undefined;
}

/**
 * Every object's owner references, indexed both ways: nodes by uid, and the uids naming each
 * owner uid (kept whether or not the owner exists, so an absent owner's dependents are known).
 */
export class OwnerGraph {
  private readonly nodes = new Map<string, GraphNode>();
  private readonly dependentsByOwner = new Map<string, Set<string>>();

  get size(): number {
    return this.nodes.size;
  }

  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  all(): IterableIterator<GraphNode> {
    return this.nodes.values();
  }

  dependents(ownerUid: string): readonly GraphNode[] {
    const uids = this.dependentsByOwner.get(ownerUid);
    if (uids === undefined) return [];
    const found: GraphNode[] = [];
    for (const uid of uids) {
      const node = this.nodes.get(uid);
      if (node !== undefined) found.push(node);
    }
    return found;
  }

  set(node: GraphNode): NodeChange {
    const previous = this.nodes.get(node.uid);
    this.nodes.set(node.uid, node);
    const ownersChanged = previous === undefined ? node.owners.length > 0 : !sameOwners(previous.owners, node.owners);
    if (ownersChanged) {
      if (previous !== undefined) this.unlink(previous);
      for (const owner of node.owners) {
        let set = this.dependentsByOwner.get(owner.uid);
        if (set === undefined) {
          set = new Set();
          this.dependentsByOwner.set(owner.uid, set);
        }
        set.add(node.uid);
      }
    }
    const deletionChanged =
      previous === undefined
        ? node.deleting
        : previous.deleting !== node.deleting || previous.foreground !== node.foreground || previous.orphan !== node.orphan;
    return { ownersChanged, deletionChanged, previous };
  }

  remove(uid: string): GraphNode | undefined {
    const node = this.nodes.get(uid);
    if (node === undefined) return undefined;
    this.nodes.delete(uid);
    this.unlink(node);
    return node;
  }

  clear(): void {
    this.nodes.clear();
    this.dependentsByOwner.clear();
  }

  private unlink(node: GraphNode): void {
    for (const owner of node.owners) {
      const set = this.dependentsByOwner.get(owner.uid);
      set?.delete(node.uid);
      if (set?.size === 0) this.dependentsByOwner.delete(owner.uid);
    }
  }
}
