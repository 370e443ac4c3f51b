import { runReconcileLoop, Wake } from "../reconcile-loop.js";
import { ApiError } from "../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import { matchesLabels, type LabelRequirement } from "../../api/selector.js";
import { canonicalJson } from "../../util/canonical-json.js";
import type { ApiClient, ResourceRef } from "../../api/client.js";
import type { Controller } from "../controller.js";

export interface AggregationControllerOptions {
  readonly client: ApiClient;
  /** The RBAC API group. */
  readonly group: string;
  readonly onError?: (error: unknown) => void;
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
 * rules of the ClusterRoles its selectors match; runs on start and after any ClusterRole
 * change (chains like view → edit → admin settle over successive passes).
 */
export function aggregationController(options: AggregationControllerOptions): Controller {
  const { client } = options;
  const clusterRoles: ResourceRef = { group: options.group, version: "v1", plural: "clusterroles" };

  /** One pass. Its own writes (and conflicting ones) are ClusterRole changes, which wake the next pass. */
  async function reconcileAll(): Promise<void> {
    const { items } = await client.list(clusterRoles, "");
    for (const role of items) {
      const rules = aggregatedRules(role, items);
      if (rules === undefined) continue;
      const current = Array.isArray(role["rules"]) ? role["rules"] : [];
      if (canonicalJson(current) === canonicalJson(rules)) continue;
      try {
        await client.update(clusterRoles, "", role.metadata.name ?? "", { ...role, rules });
      } catch (error) {
        if (!(error instanceof ApiError && (error.code === 409 || error.code === 404))) options.onError?.(error);
      }
    }
  }

  return {
    name: "clusterrole-aggregation",
    async run(signal) {
      const wake = new Wake();
      void (async () => {
        try {
          for await (const _change of client.changed(clusterRoles, signal)) wake.poke();
        } catch (error) {
          if (!signal.aborted) options.onError?.(error);
        }
      })();
      await runReconcileLoop(signal, wake, reconcileAll, options.onError);
    },
  };
}
