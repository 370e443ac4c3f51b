import type { ApiObject } from "../../api/object.js";
import type { AdmissionAttributes } from "../interface.js";
import { operationMatches, type Hook, type HookRule } from "./hook.js";

/** A group/version/resource as a hook sees it, with the kind of its objects. */
export interface VersionedResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
}

/**
 * Another served version of the resource a request addresses (the same stored objects): how a
 * request's object becomes that version's and back. From the registry's `storedAs` conversions.
 */
export interface EquivalentResource extends VersionedResource {
  toVersion(object: ApiObject): ApiObject;
  fromVersion(object: ApiObject): ApiObject;
}

/** Finds the other versions of a resource (empty when it is served in one version only). */
export type EquivalentResources = (group: string, version: string, resource: string) => readonly EquivalentResource[];

function splitResource(text: string): [string, string] {
  const slash = text.indexOf("/");
  return slash < 0 ? [text, ""] : [text.slice(0, slash), text.slice(slash + 1)];
}

/** kube's rule matcher: operation, group, version, resource/sub-resource and scope. */
export function ruleMatches(rule: HookRule, attributes: AdmissionAttributes, resource: VersionedResource): boolean {
  if (!operationMatches(rule, attributes.operation)) return false;
  if (!rule.apiGroups.includes("*") && !rule.apiGroups.includes(resource.group)) return false;
  if (!rule.apiVersions.includes("*") && !rule.apiVersions.includes(resource.version)) return false;
  const resourceMatches = rule.resources.some((written) => {
    const [name, sub] = splitResource(written);
    return (name === "*" || name === resource.resource) && (sub === "*" || sub === attributes.subresource);
  });
  if (!resourceMatches) return false;
  switch (rule.scope) {
    case "*":
      return true;
    case "Cluster":
      return attributes.namespace === "";
    case "Namespaced":
      // A namespace is cluster-scoped yet is its own namespace: kube lets both scopes see it.
      return attributes.namespace !== "" || (resource.group === "" && resource.resource === "namespaces");
  }
}

/**
 * The resource a hook is called for: the request's own when a rule matches it, else (matchPolicy
 * Equivalent) the first other version of it a rule matches; undefined when the hook does not match.
 */
export function matchedResource(
  hook: Hook,
  attributes: AdmissionAttributes,
  equivalents: () => readonly EquivalentResource[],
): { readonly resource: VersionedResource; readonly equivalent: EquivalentResource | undefined } | undefined {
  const own = attributes.resource;
  if (hook.rules.some((rule) => ruleMatches(rule, attributes, own))) return { resource: own, equivalent: undefined };
  if (hook.matchPolicy !== "Equivalent") return undefined;
  for (const equivalent of equivalents()) {
    if (hook.rules.some((rule) => ruleMatches(rule, attributes, equivalent))) return { resource: equivalent, equivalent };
  }
  return undefined;
}

/**
 * The hooks of one kind, in call order, indexed by the resource names their rules mention so a
 * request for a resource no hook names costs one map lookup.
 */
export class HookIndex {
  readonly hooks: readonly Hook[];
  private readonly byResource = new Map<string, number[]>();
  private readonly anyResource: number[] = [];

  constructor(hooks: readonly Hook[]) {
    this.hooks = hooks;
    hooks.forEach((hook, position) => {
      const names = new Set(hook.rules.flatMap((rule) => rule.resources.map((written) => splitResource(written)[0])));
      if (names.has("*")) {
        this.anyResource.push(position);
        return;
      }
      for (const name of names) {
        const list = this.byResource.get(name) ?? [];
        list.push(position);
        this.byResource.set(name, list);
      }
    });
  }

  /** Hooks that may match a request for any of these resource names, in call order. */
  candidates(resources: readonly string[]): Hook[] {
    if (this.hooks.length === 0) return [];
    const positions = new Set(this.anyResource);
    for (const name of resources) for (const position of this.byResource.get(name) ?? []) positions.add(position);
    return [...positions].sort((a, b) => a - b).map((position) => this.hooks[position] as Hook);
  }
}

/**
 * kube never sends its own admission configuration (webhook configurations, policies, bindings)
 * to webhooks, so a broken hook cannot lock its own repair out.
 */
export function isExemptResource(group: string, resource: string, admissionGroup: string): boolean {
  return (
    group === admissionGroup &&
    (resource === "mutatingwebhookconfigurations" ||
      resource === "validatingwebhookconfigurations" ||
      resource === "validatingadmissionpolicies" ||
      resource === "validatingadmissionpolicybindings")
  );
}
