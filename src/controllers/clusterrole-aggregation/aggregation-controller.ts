import { ApiError } from "../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import { matchesLabels, type LabelRequirement } from "../../api/selector.js";
import { canonicalJson } from "../../util/canonical-json.js";
import type { ApiClient, ResourceRef } from "../../api/client.js";
import type { InformerFactory } from "../runtime/informer.js";
import type { QueueControllerSpec } from "../runtime/queue-controller.js";

export interface AggregationControllerOptions {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  /** The RBAC API group. */
  readonly group: string;
}

/** A `metav1.LabelSelector` as requirements; undefined when it cannot be read (matches nothing). */
export function labelSelectorRequirements(selector: unknown): LabelRequirement[] | undefined {
  if (!isPlainObject(selector)) return undefined;
  const out: LabelRequirement[] = [];
  const labels = selector["matchLabels"];
  if (isPlainObject(labels)) for (const [key, value] of Object.entries(labels)) if (typeof value === "string") out.push({ op: "in", key, values: [value] });
  const expressions = selector["matchExpressions"];
  for (const expression of Array.isArray(expressions) ? expressions : []) {
    if (!isPlainObject(expression) || typeof expression["key"] !== "string") return undefined;
    const key = expression["key"];
    const values = Array.isArray(expression["values"]) ? expression["values"].filter((value): value is string => typeof value === "string") : [];
    switch (expression["operator"]) {
      case "In":
        out.push({ op: "in", key, values });
        break;
      case "NotIn":
        out.push({ op: "notin", key, values });
        break;
      case "Exists":
        out.push({ op: "exists", key });
        break;
      case "DoesNotExist":
        out.push({ op: "!exists", key });
        break;
      default:
        return undefined;
    }
  }
  return out;
}

/**
 * The rules an aggregated ClusterRole should hold: the rules of every other ClusterRole matching
 * any of its selectors, in name order, each rule once (kube's aggregation controller).
 * Undefined for a role without an `aggregationRule`.
 */
export function aggregatedRules(role: ApiObject, all: readonly ApiObject[]): unknown[] | undefined {
  const rule = role["aggregationRule"];
  if (!isPlainObject(rule)) return undefined;
  const selectors = (Array.isArray(rule["clusterRoleSelectors"]) ? rule["clusterRoleSelectors"] : [])
    .map(labelSelectorRequirements)
    .filter((selector): selector is LabelRequirement[] => selector !== undefined);
  const rules: unknown[] = [];
  const seen = new Set<string>();
  const sorted = [...all].sort((a, b) => ((a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : (a.metadata.name ?? "") > (b.metadata.name ?? "") ? 1 : 0));
  for (const candidate of sorted) {
    if (candidate.metadata.name === role.metadata.name) continue;
    if (!selectors.some((selector) => matchesLabels(selector, candidate.metadata.labels))) continue;
    for (const entry of Array.isArray(candidate["rules"]) ? candidate["rules"] : []) {
      const text = canonicalJson(entry);
      if (seen.has(text)) continue;
      seen.add(text);
      rules.push(entry);
    }
  }
  return rules;
}

/**
 * Keeps the `rules` of every ClusterRole with an `aggregationRule` equal to the union of the
 * rules of the ClusterRoles its selectors match. Keys are the aggregating roles' names; any
 * ClusterRole change queues them all, as kube's controller does (they are few, and chains like
 * view → edit → admin settle as each write queues them again).
 */
export function aggregationController(options: AggregationControllerOptions): QueueControllerSpec {
  const { client } = options;
  const clusterRoles: ResourceRef = { group: options.group, version: "v1", plural: "clusterroles" };
  const roles = options.informers.informer(clusterRoles);
  const aggregating = (): string[] =>
    roles
      .list()
      .filter((role) => isPlainObject(role["aggregationRule"]))
      .map((role) => role.metadata.name ?? "");

  return {
    name: "clusterrole-aggregation",
    watch(queue) {
      const all = (): void => {
        for (const name of aggregating()) queue.add(name);
      };
      return roles.addHandlers({ onAdd: all, onUpdate: all, onDelete: all, onReset: all });
    },
    initialKeys: aggregating,
    async reconcile(name) {
      const role = roles.get("", name);
      if (role === undefined) return;
      const rules = aggregatedRules(role, roles.list());
      if (rules === undefined) return;
      const current = Array.isArray(role["rules"]) ? role["rules"] : [];
      if (canonicalJson(current) === canonicalJson(rules)) return;
      try {
        await client.update(clusterRoles, "", name, { ...role, rules });
      } catch (error) {
        // Changed meanwhile (the change queues the role again) or gone.
        if (!(error instanceof ApiError && (error.code === 409 || error.code === 404))) throw error;
      }
    },
  };
}
