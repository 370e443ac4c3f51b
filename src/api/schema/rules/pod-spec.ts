import { isIP } from "node:net";
import type { FieldError } from "../../errors.js";
import { isPlainObject } from "../../object.js";
import { validateLabelValue, validateName, validateQualifiedName } from "../../validation.js";
import { childPath, duplicate, forbidden, goStrings, indexPath, invalidValue, required } from "../field-path.js";
import { listAt, recordAt, stringAt } from "./values.js";

/**
 * kube 1.30's PodSpec rules beyond containers and volumes (ValidatePodSpec and the functions it
 * calls): tolerations, the node selector, affinity, the pod's security context, host-network
 * ports, DNS settings and the scalar fields. Field paths and texts are kube's, so kubectl prints
 * the same lines; where kube prints a Go struct (`%#v`, with pointer addresses) the value is JSON.
 */

const MAX_INT32 = 2147483647;
const ID_RANGE = `must be between 0 and ${MAX_INT32}, inclusive`;
const IP_MESSAGE = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

/** kube's ValidateLabelName: one error per message of IsQualifiedName, at `path`. */
export function labelNameErrors(key: string, path: string): FieldError[] {
  return validateQualifiedName(key).map((message) => invalidValue(path, key, message));
}

/** kube's ValidateLabels: keys and values of a string map, all reported at the map's path. */
export function labelMapErrors(map: Record<string, unknown> | undefined, path: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(map ?? {})) {
    errors.push(...labelNameErrors(key, path));
    if (typeof value === "string") for (const message of validateLabelValue(value)) errors.push(invalidValue(path, value, message));
  }
  return errors;
}

/** kube's IsValidUserID / IsValidGroupID: a 32-bit non-negative id. */
function idErrors(value: unknown, path: string): FieldError[] {
  return typeof value === "number" && (value < 0 || value > MAX_INT32) ? [invalidValue(path, value, ID_RANGE)] : [];
}

/** kube's ValidateTolerations. The operator and effect enums are the schema's. */
function tolerationErrors(tolerations: readonly unknown[], path: string): FieldError[] {
  const errors: FieldError[] = [];
  tolerations.forEach((toleration, index) => {
    if (!isPlainObject(toleration)) return;
    const at = indexPath(path, index);
    const key = stringAt(toleration, "key") ?? "";
    const operator = stringAt(toleration, "operator") ?? "";
    const value = stringAt(toleration, "value") ?? "";
    const effect = stringAt(toleration, "effect") ?? "";
    if (key !== "") errors.push(...labelNameErrors(key, childPath(at, "key")));
    if (key === "" && operator !== "Exists")
      errors.push(
        invalidValue(childPath(at, "operator"), operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'),
      );
    const seconds = toleration["tolerationSeconds"];
    if (seconds !== undefined && seconds !== null && effect !== "NoExecute")
      errors.push(invalidValue(childPath(at, "effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    if (operator === "Equal" || operator === "") {
      const messages = validateLabelValue(value);
      if (messages.length > 0) errors.push(invalidValue(childPath(at, "operator"), value, messages.join(";")));
    } else if (operator === "Exists" && value !== "") {
      errors.push(invalidValue(childPath(at, "operator"), value, "value must be empty when `operator` is 'Exists'"));
    }
  });
  return errors;
}

/** kube's ValidateNodeSelectorRequirement (label expressions) and ValidateNodeFieldSelectorRequirement. */
function nodeSelectorTermErrors(term: unknown, path: string, allowInvalidValues: boolean): FieldError[] {
  const errors: FieldError[] = [];
  listAt(term, "matchExpressions").forEach((requirement, index) => {
    if (!isPlainObject(requirement)) return;
    const at = indexPath(childPath(path, "matchExpressions"), index);
    const values = listAt(requirement, "values");
    const valuesAt = childPath(at, "values");
    switch (stringAt(requirement, "operator")) {
      case "In":
      case "NotIn":
        if (values.length === 0) errors.push(required(valuesAt, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case "Exists":
      case "DoesNotExist":
        if (values.length > 0) errors.push(forbidden(valuesAt, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      case "Gt":
      case "Lt":
        if (values.length !== 1) errors.push(required(valuesAt, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
        break;
    }
    errors.push(...labelNameErrors(stringAt(requirement, "key") ?? "", childPath(at, "key")));
    if (!allowInvalidValues)
      values.forEach((value, valueIndex) => {
        if (typeof value === "string")
          for (const message of validateLabelValue(value)) errors.push(invalidValue(indexPath(valuesAt, valueIndex), value, message));
      });
  });
  listAt(term, "matchFields").forEach((requirement, index) => {
    if (!isPlainObject(requirement)) return;
    const at = indexPath(childPath(path, "matchFields"), index);
    const operator = stringAt(requirement, "operator") ?? "";
    const values = listAt(requirement, "values");
    if (operator === "In" || operator === "NotIn") {
      if (values.length !== 1)
        errors.push(required(childPath(at, "values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
    } else {
      errors.push(invalidValue(childPath(at, "operator"), operator, "not a valid selector operator"));
    }
    const key = stringAt(requirement, "key") ?? "";
    if (key !== "metadata.name") errors.push(invalidValue(childPath(at, "key"), key, "not a valid field selector key"));
    else
      values.forEach((value, valueIndex) => {
        if (typeof value === "string")
          for (const message of validateName(value, "dns1123-subdomain"))
            errors.push(invalidValue(indexPath(childPath(at, "values"), valueIndex), value, message));
      });
  });
  return errors;
}

/** A pod (anti-)affinity term; its label and namespace selectors are judged where every LabelSelector is (`selectors.ts`). */
function podAffinityTermErrors(term: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const name of listAt(term, "namespaces"))
    if (typeof name === "string")
      for (const message of validateName(name, "dns1123-label")) errors.push(invalidValue(childPath(path, "namespace"), name, message));
  const topologyKey = stringAt(term, "topologyKey") ?? "";
  if (topologyKey === "") errors.push(required(childPath(path, "topologyKey"), "can not be empty"));
  errors.push(...labelNameErrors(topologyKey, childPath(path, "topologyKey")));
  return errors;
}

function weightErrors(term: unknown, path: string): FieldError[] {
  const weight = isPlainObject(term) ? term["weight"] : undefined;
  return typeof weight === "number" && (weight <= 0 || weight > 100) ? [invalidValue(childPath(path, "weight"), weight, "must be in the range 1-100")] : [];
}

/** kube's validateAffinity: node affinity terms, pod (anti-)affinity terms and weights. */
function affinityErrors(affinity: Record<string, unknown> | undefined, path: string): FieldError[] {
  if (affinity === undefined) return [];
  const errors: FieldError[] = [];
  const nodeAffinity = recordAt(affinity, "nodeAffinity");
  const nodeAt = childPath(path, "nodeAffinity");
  const requiredSelector = recordAt(nodeAffinity, "requiredDuringSchedulingIgnoredDuringExecution");
  if (requiredSelector !== undefined) {
    const termsAt = childPath(childPath(nodeAt, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms");
    const terms = listAt(requiredSelector, "nodeSelectorTerms");
    if (terms.length === 0) errors.push(required(termsAt, "must have at least one node selector term"));
    terms.forEach((term, index) => errors.push(...nodeSelectorTermErrors(term, indexPath(termsAt, index), false)));
  }
  listAt(nodeAffinity, "preferredDuringSchedulingIgnoredDuringExecution").forEach((term, index) => {
    const at = indexPath(childPath(nodeAt, "preferredDuringSchedulingIgnoredDuringExecution"), index);
    errors.push(...weightErrors(term, at), ...nodeSelectorTermErrors(recordAt(term, "preference"), childPath(at, "preference"), true));
  });
  for (const kind of ["podAffinity", "podAntiAffinity"]) {
    const podAffinity = recordAt(affinity, kind);
    const kindAt = childPath(path, kind);
    listAt(podAffinity, "requiredDuringSchedulingIgnoredDuringExecution").forEach((term, index) => {
      errors.push(...podAffinityTermErrors(term, indexPath(childPath(kindAt, "requiredDuringSchedulingIgnoredDuringExecution"), index)));
    });
    listAt(podAffinity, "preferredDuringSchedulingIgnoredDuringExecution").forEach((term, index) => {
      const at = indexPath(childPath(kindAt, "preferredDuringSchedulingIgnoredDuringExecution"), index);
      errors.push(...weightErrors(term, at), ...podAffinityTermErrors(recordAt(term, "podAffinityTerm"), childPath(at, "podAffinityTerm")));
    });
  }
  return errors;
}

/** kube's validateLocalDescendingPath: relative, without `..` elements. */
export function localDescendingPathErrors(value: string, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (value.startsWith("/")) errors.push(invalidValue(path, value, "must be a relative path"));
  if (value.split("/").includes("..")) errors.push(invalidValue(path, value, "must not contain '..'"));
  return errors;
}

/** kube's validateSeccompProfileField (the type enum is the schema's). */
function seccompErrors(profile: Record<string, unknown> | undefined, path: string): FieldError[] {
  if (profile === undefined) return [];
  const local = profile["localhostProfile"];
  const localAt = childPath(path, "localhostProfile");
  if (stringAt(profile, "type") === "Localhost") {
    if (typeof local !== "string") return [required(localAt, "must be set when seccomp type is Localhost")];
    return localDescendingPathErrors(local, localAt);
  }
  return local === undefined || local === null ? [] : [invalidValue(localAt, profile, "can only be set when seccomp type is Localhost")];
}

/** kube's ValidateAppArmorProfileField (the type enum is the schema's). */
function appArmorErrors(profile: Record<string, unknown> | undefined, path: string): FieldError[] {
  if (profile === undefined) return [];
  const local = profile["localhostProfile"];
  const localAt = childPath(path, "localhostProfile");
  const type = stringAt(profile, "type") ?? "";
  if (type === "Localhost") {
    if (typeof local !== "string") return [required(localAt, "must be set when AppArmor type is Localhost")];
    if (local.trim() !== local) return [invalidValue(localAt, local, "must not be padded with whitespace")];
    if (local === "") return [required(localAt, "must be set when AppArmor type is Localhost")];
    return [];
  }
  if (type !== "" && local !== undefined && local !== null) return [invalidValue(localAt, local, "can only be set when AppArmor type is Localhost")];
  return [];
}

const SYSCTL_NAME = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/;
const SYSCTL_MESSAGE = `must have at most 253 characters and match regex ${SYSCTL_NAME.source}`;

/** kube's utilsysctl.GetNamespace: which namespace of the host a sysctl belongs to. */
function sysctlNamespace(name: string): "net" | "ipc" | undefined {
  const dotted = name.replaceAll("/", ".");
  if (dotted.startsWith("net.")) return "net";
  if (dotted.startsWith("kernel.shm") || dotted.startsWith("kernel.msg") || dotted === "kernel.sem" || dotted.startsWith("fs.mqueue.")) return "ipc";
  return undefined;
}

/** kube's validatePodSpecSecurityContext. */
function podSecurityContextErrors(spec: Record<string, unknown>, path: string): FieldError[] {
  const context = recordAt(spec, "securityContext") ?? {};
  const errors = [
    ...idErrors(context["fsGroup"], childPath(path, "fsGroup")),
    ...idErrors(context["runAsUser"], childPath(path, "runAsUser")),
    ...idErrors(context["runAsGroup"], childPath(path, "runAsGroup")),
  ];
  listAt(context, "supplementalGroups").forEach((group, index) => errors.push(...idErrors(group, indexPath(childPath(path, "supplementalGroups"), index))));
  // v1 keeps shareProcessNamespace on the spec; kube validates it inside its internal security context, hence the path.
  if (spec["shareProcessNamespace"] === true && spec["hostPID"] === true)
    errors.push(invalidValue(childPath(path, "shareProcessNamespace"), true, "ShareProcessNamespace and HostPID cannot both be enabled"));
  const seen = new Set<string>();
  listAt(context, "sysctls").forEach((sysctl, index) => {
    const nameAt = childPath(indexPath(childPath(path, "sysctls"), index), "name");
    const name = stringAt(sysctl, "name") ?? "";
    if (name === "") errors.push(required(nameAt));
    else if (name.length > 253 || !SYSCTL_NAME.test(name)) errors.push(invalidValue(nameAt, name, SYSCTL_MESSAGE));
    else if (seen.has(name)) errors.push(duplicate(nameAt, name));
    const namespace = sysctlNamespace(name);
    if (spec["hostNetwork"] === true && namespace === "net") errors.push(invalidValue(nameAt, name, "may not be specified when 'hostNetwork' is true"));
    else if (spec["hostIPC"] === true && namespace === "ipc") errors.push(invalidValue(nameAt, name, "may not be specified when 'hostIPC' is true"));
    seen.add(name);
  });
  errors.push(...seccompErrors(recordAt(context, "seccompProfile"), childPath(path, "seccompProfile")));
  errors.push(...appArmorErrors(recordAt(context, "appArmorProfile"), childPath(path, "appArmorProfile")));
  return errors;
}

/**
 * kube's ValidateSecurityContext for one container: ids, `Unmasked` proc mounts (only in a user
 * namespace, `hostUsers: false`), seccomp and AppArmor profiles, and no privilege escalation
 * switched off for a privileged container.
 */
export function containerSecurityContextErrors(container: Record<string, unknown>, at: string, hostUsers: boolean): FieldError[] {
  const context = recordAt(container, "securityContext");
  if (context === undefined) return [];
  const path = childPath(at, "securityContext");
  const errors = [...idErrors(context["runAsUser"], childPath(path, "runAsUser")), ...idErrors(context["runAsGroup"], childPath(path, "runAsGroup"))];
  if (hostUsers && context["procMount"] === "Unmasked")
    errors.push(invalidValue(childPath(path, "procMount"), "Unmasked", "`hostUsers` must be false to use `Unmasked`"));
  errors.push(...seccompErrors(recordAt(context, "seccompProfile"), childPath(path, "seccompProfile")));
  if (context["allowPrivilegeEscalation"] === false) {
    if (context["privileged"] === true) errors.push(invalidValue(path, context, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"));
    for (const capability of listAt(recordAt(context, "capabilities"), "add"))
      if (capability === "CAP_SYS_ADMIN")
        errors.push(invalidValue(path, context, "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"));
  }
  errors.push(...appArmorErrors(recordAt(context, "appArmorProfile"), childPath(path, "appArmorProfile")));
  return errors;
}

/** kube's validatePodDNSConfig. */
function dnsConfigErrors(spec: Record<string, unknown>, path: string): FieldError[] {
  const config = recordAt(spec, "dnsConfig");
  const at = childPath(path, "dnsConfig");
  if (spec["dnsPolicy"] === "None") {
    if (config === undefined) return [required(at, "must provide `dnsConfig` when `dnsPolicy` is None")];
    if (listAt(config, "nameservers").length === 0)
      return [required(childPath(at, "nameservers"), "must provide at least one DNS nameserver when `dnsPolicy` is None")];
  }
  if (config === undefined) return [];
  const errors: FieldError[] = [];
  const nameservers = listAt(config, "nameservers");
  if (nameservers.length > 3) errors.push(invalidValue(childPath(at, "nameservers"), goStrings(nameservers), "must not have more than 3 nameservers"));
  nameservers.forEach((server, index) => {
    if (typeof server !== "string" || isIP(server) === 0) errors.push(invalidValue(indexPath(childPath(at, "nameservers"), index), server, IP_MESSAGE));
  });
  const searches = listAt(config, "searches");
  if (searches.length > 32) errors.push(invalidValue(childPath(at, "searches"), goStrings(searches), "must not have more than 32 search paths"));
  if (searches.join(" ").length > 2048)
    errors.push(invalidValue(childPath(at, "searches"), goStrings(searches), "must not have more than 2048 characters (including spaces) in the search list"));
  searches.forEach((search, index) => {
    const trimmed = String(search).replace(/\.$/, "");
    for (const message of validateName(trimmed, "dns1123-subdomain")) errors.push(invalidValue(indexPath(childPath(at, "searches"), index), trimmed, message));
  });
  listAt(config, "options").forEach((option, index) => {
    if ((stringAt(option, "name") ?? "") === "") errors.push(required(indexPath(childPath(at, "options"), index), "must not be empty"));
  });
  return errors;
}

/**
 * kube's validatePodHostNetworkDeps: with `hostNetwork`, a regular container's host port must be
 * its container port. A pod's are defaulted to match, so any difference is the user's; a template
 * may leave them 0 (`isPod` false).
 */
function hostNetworkErrors(spec: Record<string, unknown>, path: string, isPod: boolean): FieldError[] {
  if (spec["hostNetwork"] !== true) return [];
  const errors: FieldError[] = [];
  listAt(spec, "containers").forEach((container, index) => {
    listAt(container, "ports").forEach((port, portIndex) => {
      if (!isPlainObject(port)) return;
      const hostPort = typeof port["hostPort"] === "number" ? port["hostPort"] : 0;
      if ((isPod || hostPort !== 0) && hostPort !== port["containerPort"])
        errors.push(
          invalidValue(
            childPath(indexPath(childPath(indexPath(childPath(path, "containers"), index), "ports"), portIndex), "hostPort"),
            hostPort,
            "must match `containerPort` when `hostNetwork` is true",
          ),
        );
    });
  });
  return errors;
}

/**
 * kube's checkHostPortConflicts: a `protocol/hostIP/hostPort` used twice among the regular
 * containers, or within one init container (kube checks each alone, reporting it as index 0).
 */
function hostPortErrors(spec: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const check = (containers: readonly unknown[], listAt0: string): void => {
    const seen = new Set<string>();
    containers.forEach((container, index) => {
      listAt(container, "ports").forEach((port, portIndex) => {
        if (!isPlainObject(port) || typeof port["hostPort"] !== "number" || port["hostPort"] === 0) return;
        const key = `${stringAt(port, "protocol") ?? "TCP"}/${stringAt(port, "hostIP") ?? ""}/${port["hostPort"]}`;
        if (seen.has(key)) errors.push(duplicate(childPath(indexPath(childPath(indexPath(listAt0, index), "ports"), portIndex), "hostPort"), key));
        seen.add(key);
      });
    });
  };
  check(listAt(spec, "containers"), childPath(path, "containers"));
  for (const container of listAt(spec, "initContainers")) check([container], childPath(path, "initContainers"));
  return errors;
}

function nameFieldErrors(spec: Record<string, unknown>, path: string, field: string, rule: "dns1123-label" | "dns1123-subdomain"): FieldError[] {
  const value = stringAt(spec, field) ?? "";
  return value === "" ? [] : validateName(value, rule).map((message) => invalidValue(childPath(path, field), value, message));
}

/**
 * The pod-level rules above, in kube's order (after containers and volumes). `path` is the
 * PodSpec's; it is a pod's own when it is `spec` (templates sit deeper).
 */
export function podSpecRuleErrors(spec: Record<string, unknown>, path: string): FieldError[] {
  // Every pod create and template write comes here: sections a spec does not set cost one read.
  const errors: FieldError[] = [];
  const add = (found: FieldError[]): void => {
    for (const error of found) errors.push(error);
  };
  if (hasHostPort(spec)) add(hostPortErrors(spec, path));
  if (spec["hostNetwork"] === true) add(hostNetworkErrors(spec, path, path === "spec"));
  if (spec["nodeSelector"] !== undefined) add(labelMapErrors(recordAt(spec, "nodeSelector"), childPath(path, "nodeSelector")));
  if (spec["securityContext"] !== undefined || spec["shareProcessNamespace"] === true) add(podSecurityContextErrors(spec, childPath(path, "securityContext")));
  if (spec["affinity"] !== undefined) add(affinityErrors(recordAt(spec, "affinity"), childPath(path, "affinity")));
  if (spec["dnsConfig"] !== undefined || spec["dnsPolicy"] === "None") add(dnsConfigErrors(spec, path));
  listAt(spec, "readinessGates").forEach((gate, index) => {
    const type = stringAt(gate, "conditionType") ?? "";
    add(labelNameErrors(type, childPath(indexPath(childPath(path, "readinessGates"), index), "conditionType")));
  });
  add(nameFieldErrors(spec, path, "serviceAccountName", "dns1123-subdomain"));
  add(nameFieldErrors(spec, path, "nodeName", "dns1123-subdomain"));
  const deadline = spec["activeDeadlineSeconds"];
  if (typeof deadline === "number" && (deadline < 1 || deadline > MAX_INT32))
    errors.push(invalidValue(childPath(path, "activeDeadlineSeconds"), deadline, `must be between 1 and ${MAX_INT32}, inclusive`));
  add(nameFieldErrors(spec, path, "hostname", "dns1123-label"));
  add(nameFieldErrors(spec, path, "subdomain", "dns1123-label"));
  if (spec["tolerations"] !== undefined) add(tolerationErrors(listAt(spec, "tolerations"), childPath(path, "tolerations")));
  listAt(spec, "hostAliases").forEach((alias, index) => {
    const ip = stringAt(alias, "ip") ?? "";
    if (ip !== "" && isIP(ip) === 0) errors.push(invalidValue(childPath(indexPath(childPath(path, "hostAliases"), index), "ip"), ip, IP_MESSAGE));
  });
  add(nameFieldErrors(spec, path, "priorityClassName", "dns1123-subdomain"));
  return errors;
}

/** Whether any regular or init container asks for a host port (most pods do not). */
function hasHostPort(spec: Record<string, unknown>): boolean {
  for (const list of ["containers", "initContainers"])
    for (const container of listAt(spec, list))
      for (const port of listAt(container, "ports")) if (isPlainObject(port) && typeof port["hostPort"] === "number" && port["hostPort"] !== 0) return true;
  return false;
}
