/**
 * The policies and bindings the plugin applies, read from the watch cache (two feeds) and
 * indexed by the resource plural their policy's matchConstraints name (`*` rules go to a shared
 * bucket), so a request for a resource no policy names costs one map look-up. Rebuilt lazily on
 * the first request after any change; expressions are compiled once per text (the CEL cache).
 */
import type { ApiObject } from "../../../api/object.js";
import { isPlainObject } from "../../../api/object.js";
import type { ObjectFeed } from "../../../authz/feed.js";
import { matchedPlurals } from "./match.js";

/** One binding with its policy; both as stored. */
export interface BoundPolicy {
  readonly policyName: string;
  readonly bindingName: string;
  readonly policy: Record<string, unknown>;
  readonly binding: Record<string, unknown>;
}

function specOf(object: ApiObject): Record<string, unknown> {
  const spec = object["spec"];
  return isPlainObject(spec) ? spec : {};
}

export class PolicySet {
  private byPlural = new Map<string, BoundPolicy[]>();
  private wildcard: BoundPolicy[] = [];
  private dirty = true;

  constructor(
    private readonly policies: ObjectFeed,
    private readonly bindings: ObjectFeed,
  ) {
    const mark = () => {
      this.dirty = true;
    };
    policies.subscribe(mark);
    bindings.subscribe(mark);
  }

  /** The bound policies that may match `plural`, in kube's order (policy name, then binding name). */
  candidates(plural: string): readonly BoundPolicy[] {
    if (this.dirty) this.rebuild();
    const named = this.byPlural.get(plural);
    if (named === undefined) return this.wildcard;
    if (this.wildcard.length === 0) return named;
    return [...named, ...this.wildcard].sort(order);
  }

  private rebuild(): void {
    this.dirty = false;
    const byName = new Map<string, ApiObject>();
    for (const policy of this.policies.objects()) byName.set(policy.metadata.name ?? "", policy);
    const byPlural = new Map<string, BoundPolicy[]>();
    const wildcard: BoundPolicy[] = [];
    const bound: BoundPolicy[] = [];
    for (const binding of this.bindings.objects()) {
      const policyName = specOf(binding)["policyName"];
      const policy = typeof policyName === "string" ? byName.get(policyName) : undefined;
      if (policy === undefined || typeof policyName !== "string") continue;
      bound.push({ policyName, bindingName: binding.metadata.name ?? "", policy: specOf(policy), binding: specOf(binding) });
    }
    bound.sort(order);
    for (const entry of bound) {
      const plurals = new Set(matchedPlurals(entry.policy["matchConstraints"]));
      if (plurals.has("*")) {
        wildcard.push(entry);
        continue;
      }
      for (const plural of plurals) byPlural.set(plural, [...(byPlural.get(plural) ?? []), entry]);
    }
    this.byPlural = byPlural;
    this.wildcard = wildcard;
  }
}

function order(a: BoundPolicy, b: BoundPolicy): number {
  return a.policyName === b.policyName ? compare(a.bindingName, b.bindingName) : compare(a.policyName, b.policyName);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
