import { invalid } from "../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import { admissionNames, foreignConfigHint, type Profile } from "../../api/profile.js";
import { AdmissionConfigError, aggregate, denied } from "../deny.js";
import type { PluginContext } from "../context.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../interface.js";
import { LEVELS, violations, type Level } from "./pod-security-checks.js";
import {
  exemptNamespaceWarning,
  isLevel,
  isVersion,
  MODES,
  policiesFromLabels,
  policyName,
  strictness,
  type Mode,
  type NamespacePolicies,
  type Policy,
} from "./pod-security-policy.js";
import { listOf, recordOf, specOf, stringOf, type Record_ } from "./pod-spec.js";
import { resourceReader } from "./reads.js";

/** PodSecurityConfiguration: the levels of namespaces without labels, and who is exempt. */
export interface PodSecurityConfig {
  readonly defaults: Readonly<Record<Mode, { readonly level: Level; readonly version: string }>>;
  readonly exemptUsers: ReadonlySet<string>;
  readonly exemptRuntimeClasses: ReadonlySet<string>;
  readonly exemptNamespaces: ReadonlySet<string>;
}

const PRIVILEGED_LATEST = { level: "privileged", version: "latest" } as const;
const DEFAULT_CONFIG: PodSecurityConfig = {
  defaults: { enforce: PRIVILEGED_LATEST, audit: PRIVILEGED_LATEST, warn: PRIVILEGED_LATEST },
  exemptUsers: new Set(),
  exemptRuntimeClasses: new Set(),
  exemptNamespaces: new Set(),
};

/** Reads a PodSecurityConfiguration (`pod-security.admission.config.<apiDomain>/v1`); errors name the field. */
export function parsePodSecurityConfig(raw: unknown, profile: Profile): PodSecurityConfig {
  if (raw === undefined || raw === null) return DEFAULT_CONFIG;
  const fail = (field: string, message: string): never => {
    throw new AdmissionConfigError(`plugin "PodSecurity": ${field}: ${message}`);
  };
  if (!isPlainObject(raw)) return fail("configuration", "must be a PodSecurityConfiguration object");
  const group = admissionNames(profile).podSecurityConfigGroup;
  const versions = [`${group}/v1`, `${group}/v1beta1`];
  if (raw["kind"] !== "PodSecurityConfiguration") fail("kind", `must be PodSecurityConfiguration, got ${JSON.stringify(raw["kind"])}`);
  if (typeof raw["apiVersion"] !== "string" || !versions.includes(raw["apiVersion"]))
    fail("apiVersion", `must be ${versions.join(" or ")}${foreignConfigHint(group, raw["apiVersion"])}`);
  const defaults = recordOf(raw["defaults"]);
  const parsed: Record<Mode, { level: Level; version: string }> = { enforce: PRIVILEGED_LATEST, audit: PRIVILEGED_LATEST, warn: PRIVILEGED_LATEST };
  for (const mode of MODES) {
    const level = defaults[mode] ?? "privileged";
    if (!isLevel(level)) return fail(`defaults.${mode}`, `must be one of ${LEVELS.join(", ")}`);
    const version = defaults[`${mode}-version`] ?? "latest";
    if (typeof version !== "string" || !isVersion(version)) return fail(`defaults.${mode}-version`, `must be "latest" or "v1.<minor>"`);
    parsed[mode] = { level, version };
  }
  const exemptions = recordOf(raw["exemptions"]);
  const names = (field: string): Set<string> => {
    const value = exemptions[field] ?? [];
    if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) return fail(`exemptions.${field}`, "must be a list of strings");
    return new Set(value);
  };
  return { defaults: parsed, exemptUsers: names("usernames"), exemptRuntimeClasses: names("runtimeClasses"), exemptNamespaces: names("namespaces") };
}

/** Where each workload resource keeps its pod template (kube's pod spec extractor), by `<group>/<plural>`. */
const TEMPLATE_PATHS: ReadonlyMap<string, readonly string[]> = new Map([
  ["/podtemplates", ["template"]],
  ["/replicationcontrollers", ["spec", "template"]],
  ["apps/replicasets", ["spec", "template"]],
  ["apps/deployments", ["spec", "template"]],
  ["apps/statefulsets", ["spec", "template"]],
  ["apps/daemonsets", ["spec", "template"]],
  ["batch/jobs", ["spec", "template"]],
  ["batch/cronjobs", ["spec", "jobTemplate", "spec", "template"]],
]);

/** Pod sub-resources that cannot change what the standards judge; others (ephemeralcontainers, resize) are judged. */
const IGNORED_POD_SUBRESOURCES = new Set(["exec", "attach", "binding", "eviction", "log", "portforward", "proxy", "status"]);

/** kube checks at most this many existing pods when a namespace's enforce level is raised. */
const MAX_PODS_TO_CHECK = 3000;

function templateOf(object: ApiObject, path: readonly string[]): Record<string, unknown> | undefined {
  let value: unknown = object;
  for (const key of path) {
    if (!isPlainObject(value)) return undefined;
    value = value[key];
  }
  return isPlainObject(value) ? value : undefined;
}

/**
 * kube's rule for which pod updates are judged again: a container added or removed, an image
 * changed, an ephemeral container added or changed, or a seccomp annotation
 * (`seccomp.security.alpha.<keyDomain>/pod`, `container.seccomp.security.alpha.<keyDomain>/<name>`) changed. Other
 * updates (tolerations, activeDeadlineSeconds, labels) pass even in a namespace whose level the
 * pod breaks.
 */
function significantUpdate(pod: ApiObject, old: ApiObject, keyDomain: string): boolean {
  const annotations = pod.metadata.annotations ?? {};
  const oldAnnotations = old.metadata.annotations ?? {};
  const podSeccomp = `seccomp.security.alpha.${keyDomain}/pod`;
  if (annotations[podSeccomp] !== oldAnnotations[podSeccomp]) return true;
  const spec = recordOf(pod["spec"]);
  const oldSpec = recordOf(old["spec"]);
  const changed = (container: Record_, before: Record_ | undefined): boolean => {
    if (before === undefined || container["image"] !== before["image"]) return true;
    const key = `container.seccomp.security.alpha.${keyDomain}/${stringOf(container["name"])}`;
    return annotations[key] !== oldAnnotations[key];
  };
  for (const list of ["containers", "initContainers"]) {
    const now = listOf(spec[list]);
    const before = listOf(oldSpec[list]);
    if (now.length !== before.length) return true;
    if (now.some((container, index) => changed(container, before[index]))) return true;
  }
  const oldEphemeral = listOf(oldSpec["ephemeralContainers"]);
  return listOf(spec["ephemeralContainers"]).some((container) =>
    changed(
      container,
      oldEphemeral.find((candidate) => candidate["name"] === container["name"]),
    ),
  );
}

/** A violation's check name without its detail: `runAsNonRoot != true (pod or …)` → `runAsNonRoot != true`. */
function reasonOf(violation: string): string {
  const open = violation.indexOf(" (");
  return open < 0 ? violation : violation.slice(0, open);
}

/**
 * The Warnings kube gives when a namespace's enforce level is raised: a summary line, then one
 * line per distinct set of reasons naming the first pod (by name) and how many others share it.
 */
function existingPodWarnings(pods: readonly ApiObject[], namespace: string, enforce: Policy, config: PodSecurityConfig): string[] {
  const warnings: string[] = [];
  const checked = pods.slice(0, MAX_PODS_TO_CHECK);
  const byReason = new Map<string, { name: string; count: number }>();
  for (const pod of checked) {
    const spec = recordOf(pod["spec"]);
    if (config.exemptRuntimeClasses.has(stringOf(spec["runtimeClassName"]))) continue;
    const found = violations(spec, enforce.level);
    if (found.length === 0) continue;
    const reason = found.map(reasonOf).join(", ");
    const seen = byReason.get(reason);
    const name = pod.metadata.name ?? "";
    if (seen === undefined) {
      byReason.set(reason, { name, count: 1 });
      continue;
    }
    // The lexically first pod names the group, as kube prints it.
    seen.count++;
    if (name < seen.name) seen.name = name;
  }
  if (checked.length < pods.length)
    warnings.push(`new PodSecurity enforce level only checked against the first ${checked.length} of ${pods.length} existing pods`);
  if (byReason.size > 0) warnings.push(`existing pods in namespace "${namespace}" violate the new PodSecurity enforce level "${policyName(enforce)}"`);
  const perPod = [...byReason].map(([reason, { name, count }]) => {
    if (count === 1) return `${name}: ${reason}`;
    return `${name} (and ${count - 1} other ${count === 2 ? "pod" : "pods"}): ${reason}`;
  });
  return [...warnings, ...perPod.sort()];
}

/**
 * PodSecurity: the Pod Security Standards by namespace labels `pod-security.<keyDomain>/<mode>`
 * (and `<mode>-version`), else the configuration's defaults; a label that does not parse makes
 * enforce `restricted` and audit/warn `privileged`, as kube reads it. On pods: `enforce` refuses a
 * violating pod (403 listing every violation), `warn` adds Warning headers, `audit` an audit
 * annotation; pods are judged on create and on updates that change their spec (kube's rule).
 * On workload resources (Deployment, Job, …): their pod template gets `warn` and `audit` only.
 * On namespaces: invalid labels are refused (422) on create, and on update when they changed;
 * raising the enforce level warns about the existing pods it would refuse. Exempt users,
 * runtime classes and namespaces pass.
 */
export function podSecurity(context: PluginContext): AdmissionPlugin {
  const config = context.configuration === undefined ? DEFAULT_CONFIG : (context.configuration as PodSecurityConfig);
  const prefix = context.names.podSecurityLabelPrefix;
  const namespaces = resourceReader(context, { group: "", version: "v1", plural: "namespaces" });
  const pods = resourceReader(context, { group: "", version: "v1", plural: "pods" });
  const policiesOfLabels = (labels: Readonly<Record<string, string>> | undefined): NamespacePolicies =>
    policiesFromLabels(labels ?? {}, prefix, config.defaults);
  const unlabelled = policiesOfLabels({});
  // The lister's namespace objects are shared and frozen: a namespace's policies are read once per version of it.
  const known = new WeakMap<ApiObject, NamespacePolicies>();
  function policiesOf(namespace: ApiObject | undefined): NamespacePolicies {
    if (namespace === undefined) return unlabelled;
    let read = known.get(namespace);
    if (read === undefined) {
      read = policiesOfLabels(namespace.metadata.labels);
      known.set(namespace, read);
    }
    return read;
  }
  /** Why a request is exempt (kube's `exempt` audit annotation: namespace, then user), or undefined. */
  const exemption = (attributes: AdmissionAttributes): "namespace" | "user" | undefined => {
    if (config.exemptNamespaces.has(attributes.namespace)) return "namespace";
    if (attributes.user !== undefined && config.exemptUsers.has(attributes.user.name)) return "user";
    return undefined;
  };
  const exempt = (attributes: AdmissionAttributes): boolean => {
    const reason = exemption(attributes);
    if (reason !== undefined) attributes.annotate?.(`${prefix}exempt`, reason);
    return reason !== undefined;
  };

  /**
   * Judges one pod spec: enforce (pods only) refuses, then audit annotates and warn warns. The
   * audit annotations are kube's: `enforce-policy` (pods), `audit-violations`, `exempt`, `error`.
   */
  function evaluate(attributes: AdmissionAttributes, spec: Record<string, unknown>, read: NamespacePolicies, enforcing: boolean): void {
    if (config.exemptRuntimeClasses.has(stringOf(spec["runtimeClassName"]))) {
      attributes.annotate?.(`${prefix}exempt`, "runtimeClass");
      return;
    }
    if (read.errors.length > 0)
      attributes.annotate?.(`${prefix}error`, `Failed to parse policy: ${aggregate(read.errors.map((error) => `${error.field}: ${error.message}`))}`);
    const { enforce, warn, audit } = read.policies;
    if (enforcing) {
      attributes.annotate?.(`${prefix}enforce-policy`, policyName(enforce));
      const found = violations(spec, enforce.level);
      if (found.length > 0) throw denied(attributes, `violates PodSecurity "${policyName(enforce)}": ${found.join(", ")}`);
    }
    const audited = violations(spec, audit.level);
    if (audited.length > 0) attributes.annotate?.(`${prefix}audit-violations`, `would violate PodSecurity "${policyName(audit)}": ${audited.join(", ")}`);
    const warned = violations(spec, warn.level);
    if (warned.length > 0) attributes.warn?.(`would violate PodSecurity "${policyName(warn)}": ${warned.join(", ")}`);
  }

  /** Synchronous when the namespace is in the watch cache (the usual pod create: no promise made). */
  function validatePod(attributes: AdmissionAttributes, pod: ApiObject): Promise<void> | undefined {
    if (IGNORED_POD_SUBRESOURCES.has(attributes.subresource)) return undefined;
    if (attributes.oldObject !== undefined && !significantUpdate(pod, attributes.oldObject, context.profile.keyDomain)) return undefined;
    if (exempt(attributes)) return undefined;
    const cached = namespaces.getNow("", attributes.namespace);
    if (cached !== undefined) {
      evaluate(attributes, specOf(pod), policiesOf(cached), true);
      return undefined;
    }
    return namespaces.get("", attributes.namespace).then((namespace) => evaluate(attributes, specOf(pod), policiesOf(namespace), true));
  }

  async function validateWorkload(attributes: AdmissionAttributes, object: ApiObject, path: readonly string[]): Promise<void> {
    if (attributes.subresource !== "" || exempt(attributes)) return;
    const read = policiesOf(await namespaces.get("", attributes.namespace));
    const { warn, audit } = read.policies;
    if (read.errors.length === 0 && warn.level === "privileged" && audit.level === "privileged") return;
    const template = templateOf(object, path);
    if (template === undefined) return;
    evaluate(attributes, recordOf(template["spec"]), read, false);
  }

  async function validateNamespace(attributes: AdmissionAttributes, namespace: ApiObject): Promise<void> {
    if (attributes.subresource !== "") return;
    const next = policiesOfLabels(namespace.metadata.labels);
    const message = (read: NamespacePolicies): string => read.errors.map((error) => `${error.field}: ${error.message}`).join(", ");
    const refuse = (): never => {
      throw invalid("Namespace", "", attributes.name, next.errors);
    };
    const exemptWarning = (): void => {
      if (!config.exemptNamespaces.has(attributes.name)) return;
      const labels = namespace.metadata.labels ?? {};
      const warning = exemptNamespaceWarning(attributes.name, next.policies, labels, { prefix, defaults: config.defaults });
      if (warning !== undefined) attributes.warn?.(warning);
    };
    if (attributes.operation === "CREATE") {
      if (next.errors.length > 0) refuse();
      exemptWarning();
      return;
    }
    const previous = attributes.oldObject === undefined ? unlabelled : policiesOfLabels(attributes.oldObject.metadata.labels);
    if (next.errors.length > 0 && message(next) !== message(previous)) refuse();
    const before = previous.policies.enforce;
    const after = next.policies.enforce;
    if (after.level === before.level && after.version === before.version) return;
    if (after.level === "privileged") return;
    if (after.version === before.version && strictness(after.level) <= strictness(before.level)) return;
    if (config.exemptNamespaces.has(attributes.name)) return exemptWarning();
    const existing = await pods.list(attributes.name);
    for (const warning of existingPodWarnings(existing, attributes.name, after, config)) attributes.warn?.(warning);
  }

  return {
    name: "PodSecurity",
    resources: new Set(["pods", "namespaces", ...[...TEMPLATE_PATHS.keys()].map((key) => key.slice(key.indexOf("/") + 1))]),
    handles: (operation) => operation === "CREATE" || operation === "UPDATE",
    validate(attributes) {
      const object = attributes.object;
      if (object === undefined) return;
      const { group, resource } = attributes.resource;
      if (group === "" && resource === "pods") return validatePod(attributes, object);
      if (group === "" && resource === "namespaces") return validateNamespace(attributes, object);
      const path = TEMPLATE_PATHS.get(`${group}/${resource}`);
      if (path !== undefined) return validateWorkload(attributes, object, path);
    },
  };
}
