/**
 * The ValidatingAdmissionPolicy plugin (kube's order: after ValidatingAdmissionWebhook, validate
 * phase only). For each binding whose policy matches the request (policy matchConstraints, then
 * the binding's matchResources), it resolves the parameters (paramKind + paramRef: name or
 * selector, namespace, parameterNotFoundAction), evaluates the policy, and applies the binding's
 * validationActions: Deny rejects (the first denial, after every policy ran), Warn adds a Warning
 * header, Audit an audit annotation. Policies and bindings come from the watch cache.
 */
import type { AdmissionInputs } from "../../../api/cel/index.js";
import { ApiError, type StatusReason } from "../../../api/errors.js";
import { type ApiObject, isPlainObject } from "../../../api/object.js";
import { selectorMatches } from "../../../api/schema/rules/values.js";
import { celAuthorizationCheck } from "../../cel-authorizer.js";
import type { PluginContext } from "../../context.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../../interface.js";
import { evaluatePolicy, type PolicyFailure } from "./evaluate.js";
import { matchResourcesMatch } from "./match.js";
import { policyMetrics } from "./metrics.js";
import { type BoundPolicy, PolicySet } from "./policy-set.js";

const CODES: Readonly<Record<string, [number, StatusReason]>> = {
  Forbidden: [403, "Forbidden"],
  Invalid: [422, "Invalid"],
  Unauthorized: [401, "Unauthorized"],
  RequestEntityTooLarge: [413, "RequestEntityTooLarge"],
};

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** Builds the plugin; `context.feed` must be given (the composition root passes the registry's). */
export function validatingAdmissionPolicy(context: PluginContext): AdmissionPlugin {
  const feed = context.feed;
  if (feed === undefined) throw new Error("ValidatingAdmissionPolicy needs object feeds");
  const group = `admissionregistration.${context.profile.apiDomain}`;
  const policies = new PolicySet(feed(group, "v1", "validatingadmissionpolicies"), feed(group, "v1", "validatingadmissionpolicybindings"));
  const failureAnnotation = `validation.policy.admission.${context.profile.apiDomain}/validation_failure`;

  const namespaceLabels = async (attributes: AdmissionAttributes): Promise<{ labels: Record<string, string> | undefined; object: ApiObject | undefined }> => {
    if (attributes.namespace === "" || !attributes.resource.namespaced) return { labels: undefined, object: undefined };
    const object = await context.client.get({ group: "", version: "v1", plural: "namespaces" }, "", attributes.namespace);
    const labels = record(object?.metadata.labels);
    return { labels: Object.fromEntries(Object.entries(labels).filter((entry): entry is [string, string] => typeof entry[1] === "string")), object };
  };

  const paramsFor = async (entry: BoundPolicy, attributes: AdmissionAttributes): Promise<{ params: unknown[] } | { error: string } | { deny: string }> => {
    const paramKind = record(entry.policy["paramKind"]);
    if (text(paramKind["kind"]) === "") return { params: [null] };
    const ref = record(entry.binding["paramRef"]);
    if (Object.keys(ref).length === 0) return { error: `failed to configure binding: no paramRef for policy with paramKind` };
    const apiVersion = text(paramKind["apiVersion"]);
    const resource = context.resourceOfKind(apiVersion, text(paramKind["kind"]));
    if (resource === undefined)
      return { error: `failed to configure policy: failed to find resource referenced by paramKind: '${apiVersion}, Kind=${text(paramKind["kind"])}'` };
    const version = apiVersion.includes("/") ? (apiVersion.split("/")[1] ?? "") : apiVersion;
    const target = { group: resource.group, version, plural: resource.plural };
    const namespace = resource.namespaced ? text(ref["namespace"]) || attributes.namespace : "";
    if (resource.namespaced && namespace === "") return { error: "failed to configure binding: paramRef.namespace must be given for a cluster-scoped request" };
    let found: ApiObject[];
    if (text(ref["name"]) !== "") {
      const one = await context.client.get(target, namespace, text(ref["name"]));
      found = one === undefined ? [] : [one];
    } else {
      const selector = record(ref["selector"]);
      const { items } = await context.client.list(target, namespace);
      found = items.filter((item) =>
        selectorMatches(
          selector,
          Object.fromEntries(Object.entries(record(item.metadata.labels)).filter((e): e is [string, string] => typeof e[1] === "string")),
        ),
      );
    }
    if (found.length > 0) return { params: found };
    if (text(ref["parameterNotFoundAction"]) === "Deny") return { deny: "no params found for policy binding with `Deny` parameterNotFoundAction" };
    return { params: [] };
  };

  const metrics = policyMetrics(context.metrics);
  /** One check per binding: `allow` when nothing failed, else each of the binding's actions, with the first failure's error type. */
  const observe = (entry: BoundPolicy, failures: readonly PolicyFailure[], actions: ReadonlySet<unknown>, seconds: number): void => {
    const base = { policy: entry.policyName, binding: entry.bindingName };
    const first = failures[0];
    if (first === undefined) {
      metrics.checked({ ...base, errorType: "no_error", enforcementAction: "allow" }, seconds);
      return;
    }
    const errorType = first.errorType ?? "no_error";
    for (const [action, label] of [
      ["Deny", "deny"],
      ["Warn", "warn"],
      ["Audit", "audit"],
    ] as const) {
      if (actions.has(action)) metrics.checked({ ...base, errorType, enforcementAction: label }, seconds);
    }
  };

  return {
    name: "ValidatingAdmissionPolicy",
    handles: () => true,
    // Synchronous when no policy is bound for the resource (no promise made).
    validate(attributes) {
      const candidates = policies.candidates(attributes.resource.resource);
      if (candidates.length === 0) return;
      return evaluateAll(attributes, candidates);
    },
  };

  async function evaluateAll(attributes: AdmissionAttributes, candidates: readonly BoundPolicy[]): Promise<void> {
    const namespace = await namespaceLabels(attributes);
    const matched = candidates.filter(
      (entry) =>
        matchResourcesMatch(entry.policy["matchConstraints"], attributes, namespace.labels) &&
        (entry.binding["matchResources"] === undefined || matchResourcesMatch(entry.binding["matchResources"], attributes, namespace.labels, true)),
    );
    if (matched.length === 0) return;
    const inputs: AdmissionInputs = {
      object: attributes.operation === "DELETE" ? null : (attributes.object ?? null),
      oldObject: attributes.oldObject ?? null,
      request: requestOf(attributes),
      namespaceObject: namespace.object ?? null,
      authorize: celAuthorizationCheck(context.authorizer, attributes.user),
    };
    let denial: ApiError | undefined;
    const audits: object[] = [];
    for (const entry of matched) {
      const started = performance.now();
      const actions = new Set(Array.isArray(entry.binding["validationActions"]) ? entry.binding["validationActions"] : []);
      const failures: PolicyFailure[] = [];
      const resolved = await paramsFor(entry, attributes);
      if ("deny" in resolved) failures.push({ message: resolved.deny, reason: "Invalid", expressionIndex: 0 });
      else if ("error" in resolved) {
        if (entry.policy["failurePolicy"] !== "Ignore")
          failures.push({ message: resolved.error, reason: "Invalid", expressionIndex: 0, errorType: "invalid_error" });
      } else {
        for (const params of resolved.params) {
          const outcome = await evaluatePolicy(entry, inputs, params);
          failures.push(...outcome.failures);
          for (const [key, value] of outcome.annotations) attributes.annotate?.(key, value);
        }
      }
      for (const failure of failures) {
        if (actions.has("Warn"))
          attributes.warn?.(`Validation failed for ValidatingAdmissionPolicy '${entry.policyName}' with binding '${entry.bindingName}': ${failure.message}`);
        if (actions.has("Audit")) {
          audits.push({
            message: failure.message,
            policy: entry.policyName,
            binding: entry.bindingName,
            expressionIndex: failure.expressionIndex,
            validationActions: [...actions],
          });
        }
        if (actions.has("Deny") && denial === undefined) {
          denial = denialOf(
            attributes,
            failure.reason,
            `ValidatingAdmissionPolicy '${entry.policyName}' with binding '${entry.bindingName}' denied request: ${failure.message}`,
          );
        }
      }
      observe(entry, failures, actions, (performance.now() - started) / 1000);
    }
    if (audits.length > 0) attributes.annotate?.(failureAnnotation, JSON.stringify(audits));
    if (denial !== undefined) throw denial;
  }
}

/**
 * A denial as kube shapes it: its admission Forbidden error (`<resource>.<group> "<name>" is
 * forbidden: <message>`, details naming the object, the name being the object's, its
 * generateName or "Unknown" on a create), with the policy's reason and its code and the message
 * as a cause. kubectl prints an Invalid one as `The <resource> "<name>" is invalid: : <message>`.
 */
function denialOf(attributes: AdmissionAttributes, reasonName: string, message: string): ApiError {
  const [code, reason] = CODES[reasonName] ?? [422, "Invalid"];
  const { group, resource } = attributes.resource;
  const metadata = attributes.object?.metadata;
  const name = attributes.name !== "" ? attributes.name : metadata?.name || metadata?.generateName || "Unknown";
  const groupResource = group === "" ? resource : `${resource}.${group}`;
  return new ApiError(code, reason, `${groupResource} "${name}" is forbidden: ${message}`, {
    details: { name, group, kind: resource, causes: [{ message }] },
  });
}

/** The `request` variable: kube's AdmissionRequest fields. */
function requestOf(attributes: AdmissionAttributes): Record<string, unknown> {
  const { group, version, kind, resource } = attributes.resource;
  const user = attributes.user;
  return {
    kind: { group, version, kind },
    resource: { group, version, resource },
    subResource: attributes.subresource,
    requestKind: { group, version, kind },
    requestResource: { group, version, resource },
    requestSubResource: attributes.subresource,
    name: attributes.name,
    namespace: attributes.namespace,
    operation: attributes.operation,
    userInfo: user === undefined ? {} : { username: user.name, uid: user.uid ?? "", groups: [...user.groups], extra: user.extra ?? {} },
    dryRun: attributes.dryRun,
  };
}
