import type { UserInfo } from "../../request/context.js";
import type { RequestInfo } from "../../request/request-info.js";

/** A map from one classification input to the next level down. */
type Level<T> = Map<string, T>;

/** One user's remembered classifications: resource requests by verb, namespace, API group, resource, subresource; others by verb and path. */
interface UserMemo<T> {
  /** The groups these classifications were made for (compared by content: authenticators may hand out a new array per request). */
  readonly groups: readonly string[];
  readonly resources: Level<Level<Level<Level<Level<T>>>>>;
  readonly paths: Level<Level<T>>;
}

/** Different group sets remembered for one user name (impersonation, or a membership change). */
const MAX_GROUP_SETS_PER_USER = 8;

function sameGroups(left: readonly string[], right: readonly string[]): boolean {
  if (left === right) return true;
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index++) if (left[index] !== right[index]) return false;
  return true;
}

function child<T>(level: Level<Level<T>>, key: string): Level<T> {
  let found = level.get(key);
  if (found === undefined) {
    found = new Map();
    level.set(key, found);
  }
  return found;
}

/**
 * Values remembered by everything API Priority and Fairness' classification reads of a request:
 * the user's name and groups, and the verb with the namespace, API group, resource and
 * subresource, or the verb with the non-resource path. Lookups walk nested maps keyed by the
 * request's own strings — no key string is built per request (building and hashing one cost
 * more than the lookup it served). Bounded: past `limit` values it forgets them all and starts
 * again. The owner clears it when what the values were computed from changes.
 */
export class ClassificationMemo<T> {
  private readonly limit: number;
  private users = new Map<string, UserMemo<T>[]>();
  private size = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  clear(): void {
    this.users = new Map();
    this.size = 0;
  }

  /** The value remembered for these inputs, if there is one (a few map lookups, nothing allocated). */
  find(user: UserInfo, info: RequestInfo): T | undefined {
    const variants = this.users.get(user.name);
    if (variants === undefined) return undefined;
    let memo: UserMemo<T> | undefined;
    for (const variant of variants) {
      if (sameGroups(variant.groups, user.groups)) {
        memo = variant;
        break;
      }
    }
    if (memo === undefined) return undefined;
    if (info.kind === "non-resource") return memo.paths.get(info.verb)?.get(info.path);
    return memo.resources.get(info.verb)?.get(info.namespace)?.get(info.group)?.get(info.resource)?.get(info.subresource);
  }

  /** Remembers `value` for these inputs (after `find` found none). */
  remember(user: UserInfo, info: RequestInfo, value: T): void {
    // Bounded: a server seeing more distinct inputs than this computes the ones it forgot again.
    if (this.size >= this.limit) this.clear();
    const memo = this.userMemo(user);
    if (info.kind === "non-resource") child(memo.paths, info.verb).set(info.path, value);
    else child(child(child(child(memo.resources, info.verb), info.namespace), info.group), info.resource).set(info.subresource, value);
    this.size++;
  }

  private userMemo(user: UserInfo): UserMemo<T> {
    let variants = this.users.get(user.name);
    if (variants === undefined) {
      variants = [];
      this.users.set(user.name, variants);
    }
    for (const variant of variants) if (sameGroups(variant.groups, user.groups)) return variant;
    if (variants.length >= MAX_GROUP_SETS_PER_USER) variants.shift();
    const memo: UserMemo<T> = { groups: [...user.groups], resources: new Map(), paths: new Map() };
    variants.push(memo);
    return memo;
  }
}
