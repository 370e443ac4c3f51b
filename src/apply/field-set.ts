import { isPlainObject, type JsonObject } from "../api/object.js";
import { compareElements, parseElement, type Path, type PathElement } from "./path.js";

/** The deepest fieldsV1 read: the tracked depth (MAX_TRACKED_DEPTH in typed.ts) with room for the object's own levels. */
const MAX_FIELDS_V1_DEPTH = 600;

export interface Child {
  readonly element: PathElement;
  readonly set: FieldSet;
}

/**
 * A set of field paths, as a tree: at each level the elements that are members themselves and
 * the elements that have members below them (an element may be both). This is what a
 * managedFields entry's `fieldsV1` encodes. Sets are immutable once built; operations return
 * new sets that may share subtrees. Children are never empty.
 */
export class FieldSet {
  static readonly EMPTY = new FieldSet(new Map(), new Map());

  private readonly members: ReadonlyMap<string, PathElement>;
  private readonly children: ReadonlyMap<string, Child>;

  /** One level of the tree; build sets with `FieldSet.of`, `FieldSetBuilder` or `fromFieldsV1`. */
  constructor(members: ReadonlyMap<string, PathElement>, children: ReadonlyMap<string, Child>) {
    this.members = members;
    this.children = children;
  }

  /** A set of the given paths. */
  static of(paths: Iterable<Path>): FieldSet {
    const builder = new FieldSetBuilder();
    for (const path of paths) builder.insert(path);
    return builder.build();
  }

  /** Reads a FieldsV1 tree; throws on anything that is not one. */
  static fromFieldsV1(value: unknown, depth = 0): FieldSet {
    if (!isPlainObject(value)) throw new Error("fieldsV1 must be an object");
    // Sets are built at most MAX_TRACKED_DEPTH levels deep; a deeper one was not written here and would overflow the stack.
    if (depth > MAX_FIELDS_V1_DEPTH) throw new Error(`fieldsV1 nests deeper than ${MAX_FIELDS_V1_DEPTH} levels`);
    const members = new Map<string, PathElement>();
    const children = new Map<string, Child>();
    for (const [key, inner] of Object.entries(value)) {
      if (key === ".") continue;
      const element = parseElement(key);
      if (element === undefined) throw new Error(`invalid fieldsV1 key ${JSON.stringify(key)}`);
      if (!isPlainObject(inner)) throw new Error(`fieldsV1 value of ${JSON.stringify(key)} must be an object`);
      const keys = Object.keys(inner);
      if (keys.length === 0 || inner["."] !== undefined) members.set(element.key, element);
      if (keys.some((name) => name !== ".")) {
        const set = FieldSet.fromFieldsV1(inner, depth + 1);
        if (!set.isEmpty()) children.set(element.key, { element, set });
      }
    }
    return new FieldSet(members, children);
  }

  isEmpty(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  /** Number of member paths. */
  size(): number {
    let count = this.members.size;
    for (const child of this.children.values()) count += child.set.size();
    return count;
  }

  has(path: Path): boolean {
    let set: FieldSet = this;
    for (let index = 0; index < path.length; index++) {
      const element = path[index];
      if (element === undefined) return false;
      if (index === path.length - 1) return set.members.has(element.key);
      const child = set.children.get(element.key);
      if (child === undefined) return false;
      set = child.set;
    }
    return false;
  }

  hasMember(element: PathElement): boolean {
    return this.members.has(element.key);
  }

  /** The paths below one element, as a set of paths relative to it. */
  withPrefix(element: PathElement): FieldSet {
    return this.children.get(element.key)?.set ?? FieldSet.EMPTY;
  }

  /** The elements at this level that have paths below them. */
  childElements(): PathElement[] {
    return [...this.children.values()].map((child) => child.element);
  }

  memberElements(): PathElement[] {
    return [...this.members.values()];
  }

  union(other: FieldSet): FieldSet {
    if (other.isEmpty()) return this;
    if (this.isEmpty()) return other;
    const members = new Map(this.members);
    for (const [key, element] of other.members) members.set(key, element);
    const children = new Map(this.children);
    for (const [key, child] of other.children) {
      const mine = children.get(key);
      children.set(key, mine === undefined ? child : { element: child.element, set: mine.set.union(child.set) });
    }
    return new FieldSet(members, children);
  }

  intersection(other: FieldSet): FieldSet {
    const members = new Map<string, PathElement>();
    for (const [key, element] of this.members) if (other.members.has(key)) members.set(key, element);
    const children = new Map<string, Child>();
    for (const [key, child] of this.children) {
      const theirs = other.children.get(key);
      if (theirs === undefined) continue;
      const set = child.set.intersection(theirs.set);
      if (!set.isEmpty()) children.set(key, { element: child.element, set });
    }
    return new FieldSet(members, children);
  }

  /** Paths of this set that are not paths of `other` (exact paths: no prefix logic). */
  difference(other: FieldSet): FieldSet {
    if (other.isEmpty() || this.isEmpty()) return this;
    const members = new Map<string, PathElement>();
    for (const [key, element] of this.members) if (!other.members.has(key)) members.set(key, element);
    const children = new Map<string, Child>();
    for (const [key, child] of this.children) {
      const theirs = other.children.get(key);
      if (theirs === undefined) {
        children.set(key, child);
        continue;
      }
      const set = child.set.difference(theirs.set);
      if (!set.isEmpty()) children.set(key, { element: child.element, set });
    }
    return new FieldSet(members, children);
  }

  /** Paths of this set that are neither in `other` nor below a member of `other`. */
  recursiveDifference(other: FieldSet): FieldSet {
    if (other.isEmpty() || this.isEmpty()) return this;
    const members = new Map<string, PathElement>();
    for (const [key, element] of this.members) if (!other.members.has(key)) members.set(key, element);
    const children = new Map<string, Child>();
    for (const [key, child] of this.children) {
      if (other.members.has(key)) continue;
      const theirs = other.children.get(key);
      if (theirs === undefined) {
        children.set(key, child);
        continue;
      }
      const set = child.set.recursiveDifference(theirs.set);
      if (!set.isEmpty()) children.set(key, { element: child.element, set });
    }
    return new FieldSet(members, children);
  }

  /** Only the paths under (and including) the given top-level elements. */
  restrictTo(elements: readonly PathElement[]): FieldSet {
    const members = new Map<string, PathElement>();
    const children = new Map<string, Child>();
    for (const element of elements) {
      const member = this.members.get(element.key);
      if (member !== undefined) members.set(element.key, member);
      const child = this.children.get(element.key);
      if (child !== undefined) children.set(element.key, child);
    }
    return new FieldSet(members, children);
  }

  /** The members that have nothing below them: the paths a conflict is reported on. */
  leaves(): FieldSet {
    const members = new Map<string, PathElement>();
    for (const [key, element] of this.members) if (!this.children.has(key)) members.set(key, element);
    const children = new Map<string, Child>();
    for (const [key, child] of this.children) {
      const set = child.set.leaves();
      if (!set.isEmpty()) children.set(key, { element: child.element, set });
    }
    return new FieldSet(members, children);
  }

  /**
   * Adds, at every level, the elements a callback accepts among those with paths below them
   * (`ensureNamedFieldsAreMembers`: struct fields become removable as a whole). `descend`
   * gives the context for an element's subtree.
   */
  withMembersWhere<C>(context: C, accept: (context: C, element: PathElement) => boolean, descend: (context: C, element: PathElement) => C): FieldSet {
    if (this.children.size === 0) return this;
    const members = new Map(this.members);
    const children = new Map<string, Child>();
    for (const [key, child] of this.children) {
      if (accept(context, child.element)) members.set(key, child.element);
      children.set(key, { element: child.element, set: child.set.withMembersWhere(descend(context, child.element), accept, descend) });
    }
    return new FieldSet(members, children);
  }

  /** Every member path, in kube's element order. */
  paths(): Path[] {
    const out: Path[] = [];
    const walk = (set: FieldSet, prefix: PathElement[]): void => {
      for (const element of set.sortedElements()) {
        if (set.members.has(element.key)) out.push([...prefix, element]);
        const child = set.children.get(element.key);
        if (child !== undefined) walk(child.set, [...prefix, element]);
      }
    };
    walk(this, []);
    return out;
  }

  equals(other: FieldSet): boolean {
    if (this.members.size !== other.members.size || this.children.size !== other.children.size) return false;
    for (const key of this.members.keys()) if (!other.members.has(key)) return false;
    for (const [key, child] of this.children) {
      const theirs = other.children.get(key);
      if (theirs === undefined || !child.set.equals(theirs.set)) return false;
    }
    return true;
  }

  private sortedElements(): PathElement[] {
    const all = [...this.members.values()];
    for (const [key, child] of this.children) if (!this.members.has(key)) all.push(child.element);
    return all.length > 1 ? all.sort(compareElements) : all;
  }

  /** The FieldsV1 tree kube writes: keys in element order, `.` first where an element is also a member. */
  toFieldsV1(): JsonObject {
    return this.encode(false);
  }

  private encode(includeSelf: boolean): JsonObject {
    const out: JsonObject = {};
    if (includeSelf) out["."] = {};
    for (const element of this.sortedElements()) {
      const child = this.children.get(element.key);
      out[element.key] = child === undefined ? {} : child.set.encode(this.members.has(element.key));
    }
    return out;
  }
}

/** Builds a FieldSet by inserting paths; `build()` hands the result over (do not insert after). */
export class FieldSetBuilder {
  private readonly members = new Map<string, PathElement>();
  private readonly children = new Map<string, { element: PathElement; builder: FieldSetBuilder }>();

  insert(path: Path): void {
    let builder: FieldSetBuilder = this;
    for (let index = 0; index < path.length; index++) {
      const element = path[index];
      if (element === undefined) return;
      if (index === path.length - 1) {
        builder.members.set(element.key, element);
        return;
      }
      let child = builder.children.get(element.key);
      if (child === undefined) {
        child = { element, builder: new FieldSetBuilder() };
        builder.children.set(element.key, child);
      }
      builder = child.builder;
    }
  }

  build(): FieldSet {
    const children: [string, Child][] = [];
    for (const [key, child] of this.children) {
      const set = child.builder.build();
      if (!set.isEmpty()) children.push([key, { element: child.element, set }]);
    }
    return new FieldSet(this.members, new Map(children));
  }
}
