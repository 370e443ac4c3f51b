import { isPlainObject, type ApiObject } from "../../api/object.js";
import { admissionNames, type Profile } from "../../api/profile.js";
import { AdmissionConfigError, denied } from "../deny.js";
import type { PluginContext } from "../context.js";
import type { AdmissionPlugin } from "../interface.js";
import { LEVELS, violations, type Level } from "./pod-security-checks.js";
import { isPod, recordOf, specOf, stringOf } from "./pod-spec.js";
import { resourceReader } from "./reads.js";

const MODES = ["enforce", "audit", "warn"] as const;
type Mode = (typeof MODES)[number];
interface Policy {
  readonly level: Level;
  readonly version: string;
}
type Policies = Readonly<Record<Mode, Policy>>;

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

function isLevel(value: unknown): value is Level {
  return typeof value === "string" && (LEVELS as readonly string[]).includes(value);
}
function isVersion(value: string): boolean {
  return value === "latest" || /^v1\.(0|[1-9]\d*)$/.test(value);
}

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
  if (typeof raw["apiVersion"] !== "string" || !versions.includes(raw["apiVersion"])) fail("apiVersion", `must be ${versions.join(" or ")}`);
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

/**
 * PodSecurity: the Pod Security Standards by namespace labels `pod-security.<keyDomain>/<mode>`
 * (and `<mode>-version`), else the configuration's defaults. `enforce` refuses a violating pod
 * (403 listing every violation), `warn` adds Warning headers, `audit` an audit annotation. Exempt
 * users, runtime classes and namespaces pass. Pods are judged on create and on updates that
 * change more than metadata (kube's rule); other writes and sub-resources pass.
 */
export function podSecurity(context: PluginContext): AdmissionPlugin {
  const config = context.configuration === undefined ? DEFAULT_CONFIG : (context.configuration as PodSecurityConfig);
  const prefix = context.names.podSecurityLabelPrefix;
  const namespaces = resourceReader(context, { group: "", version: "v1", plural: "namespaces" });
  const policyOf = (labels: Readonly<Record<string, string>>, mode: Mode): Policy => {
    const label = labels[`${prefix}${mode}`];
    const version = labels[`${prefix}${mode}-version`];
    return {
      level: isLevel(label) ? label : config.defaults[mode].level,
      version: version !== undefined && isVersion(version) ? version : config.defaults[mode].version,
    };
  };
  const policiesFrom = (labels: Readonly<Record<string, string>>): Policies => ({
    enforce: policyOf(labels, "enforce"),
    warn: policyOf(labels, "warn"),
    audit: policyOf(labels, "audit"),
  });
  const unlabelled = policiesFrom({});
  // The lister's namespace objects are shared and frozen: a namespace's policies are read once per version of it.
  const known = new WeakMap<ApiObject, Policies>();
  function policiesOf(namespace: ApiObject | undefined): Policies {
    if (namespace === undefined) return unlabelled;
    let policies = known.get(namespace);
    if (policies === undefined) {
      policies = policiesFrom(namespace.metadata.labels ?? {});
      known.set(namespace, policies);
    }
    return policies;
  }
  return {
    name: "PodSecurity",
    resources: new Set(["pods"]),
    handles: (operation) => operation === "CREATE" || operation === "UPDATE",
    async validate(attributes) {
      const pod = attributes.object;
      if (pod === undefined || !isPod(attributes)) return;
      if (config.exemptNamespaces.has(attributes.namespace)) return;
      if (attributes.user !== undefined && config.exemptUsers.has(attributes.user.name)) return;
      const spec = specOf(pod);
      if (config.exemptRuntimeClasses.has(stringOf(spec["runtimeClassName"]))) return;
      if (attributes.oldObject !== undefined && JSON.stringify(attributes.oldObject["spec"]) === JSON.stringify(pod["spec"])) return;
      const { enforce, warn, audit } = policiesOf(await namespaces.get("", attributes.namespace));
      const found = violations(spec, enforce.level);
      if (found.length > 0) throw denied(attributes, `violates PodSecurity "${enforce.level}:${enforce.version}": ${found.join(", ")}`);
      const warned = violations(spec, warn.level);
      if (warned.length > 0) attributes.warn?.(`would violate PodSecurity "${warn.level}:${warn.version}": ${warned.join(", ")}`);
      const audited = violations(spec, audit.level);
      if (audited.length > 0)
        attributes.annotate?.(`${prefix}audit-violations`, `would violate PodSecurity "${audit.level}:${audit.version}": ${audited.join(", ")}`);
    },
  };
}
