import type { UserInfo } from "../../request/context.js";
import type { Freshness } from "../feed.js";
import { compactRules, covers } from "./covers.js";
import type { RbacIndex } from "./policy-index.js";
import { compactRule, type PolicyRule } from "./policy.js";

/** Go's `%q` of a string slice, as kube's escalation message prints the groups. */
function quotedList(values: readonly string[]): string {
  return `[${values.map((value) => JSON.stringify(value)).join(" ")}]`;
}

/**
 * kube's `ConfirmNoEscalation`: undefined when `user` already holds (through RBAC, in
 * `namespace`, cluster-wide rules included) every permission `rules` grant; otherwise the
 * message naming what is missing. A refusal is re-checked once the feeds are current, so a
 * binding granted to the user just before counts.
 */
export async function confirmNoEscalation(options: {
  readonly index: RbacIndex;
  readonly freshness: Freshness;
  readonly user: UserInfo;
  readonly namespace: string;
  readonly rules: readonly PolicyRule[];
  readonly waitMs?: number;
}): Promise<string | undefined> {
  const check = (): string | undefined => {
    const owned = options.index.rulesFor(options.user, options.namespace);
    const result = covers(owned.rules, options.rules);
    if (result.covered) return undefined;
    // As kube: the missing pieces compacted (verbs of one resource on one line), each line once, sorted.
    const lines = [...new Set(compactRules(result.missing).map(compactRule))].sort();
    let message = `user ${JSON.stringify(options.user.name)} (groups=${quotedList(options.user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join("\n")}`;
    if (owned.errors.length > 0) message += `; resolution errors: [${owned.errors.join(" ")}]`;
    return message;
  };
  const first = check();
  if (first === undefined || options.freshness.isCurrent()) return first;
  if (!(await options.freshness.waitForCurrent(options.waitMs ?? 3000))) return first;
  return check();
}
