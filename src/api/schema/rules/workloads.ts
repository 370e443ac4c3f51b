import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import { validateName } from "../../validation.js";
import type { DefinitionDefaulter } from "../defaults.js";
import { childPath, duplicate, forbidden, indexPath, invalidValue, notFound, notSupported, required } from "../field-path.js";
import type { DefinitionValidator, ValidationContext } from "../validate.js";
import { containerRuleErrors, portNameErrors } from "./containers.js";
import { serviceAddressErrors } from "./endpoints.js";
import { validatePodTemplateSpec } from "./pod-annotations.js";
import { containerSecurityContextErrors, podSpecRuleErrors } from "./pod-spec.js";
import { VOLUME_SOURCES, volumeMountPathErrors, volumeSourceErrors } from "./pod-volumes.js";
import { goLabelSelector, goStringMap, validateJobUpdate, validateSelectorUpdate, validateStatefulSetUpdate } from "./workload-updates.js";
import { ensureRecord, listAt, recordAt, selectorIsEmpty, selectorMatches, stringAt, stringMapAt } from "./values.js";

/** kube's defaulting and validation of pods, services and the workload kinds (apps, batch, core). */

/**
 * kube's "`selector` does not match template `labels`": the template's labels shown as Go's `%#v`
 * of a `map[string]string` (kube 1.30's field errors print non-scalar values that way), e.g.
 * `Invalid value: map[string]string{"app":"b"}`, the line users meet when labels and selector differ.
 */
function templateLabelsMismatch(template: Record<string, unknown> | undefined): FieldError {
  const labels = recordAt(recordAt(template, "metadata"), "labels");
  return {
    type: "FieldValueInvalid",
    field: "spec.template.metadata.labels",
    message: `Invalid value: ${goStringMap(labels)}: \`selector\` does not match template \`labels\``,
  };
}

/** Each volume source's place in VOLUME_SOURCES: a volume's own keys are looked up, not every source. */
const VOLUME_SOURCE_ORDER: ReadonlyMap<string, number> = new Map(VOLUME_SOURCES.map((source, index) => [source, index]));

/** The volume sources a volume sets, in VOLUME_SOURCES order (kube's order of checks, which names the second one). */
function volumeSourcesOf(volume: Record<string, unknown>): string[] {
  const sources: string[] = [];
  for (const key in volume) {
    if (VOLUME_SOURCE_ORDER.has(key) && volume[key] !== undefined && volume[key] !== null) sources.push(key);
  }
  if (sources.length > 1) sources.sort((a, b) => (VOLUME_SOURCE_ORDER.get(a) ?? 0) - (VOLUME_SOURCE_ORDER.get(b) ?? 0));
  return sources;
}

/** kube: `Always` for `:latest` or an untagged image without a digest, `IfNotPresent` otherwise. */
export function defaultPullPolicy(image: string): "Always" | "IfNotPresent" {
  const withoutDigest = image.split("@")[0] ?? "";
  const lastSegment = withoutDigest.slice(withoutDigest.lastIndexOf("/") + 1);
  const colon = lastSegment.lastIndexOf(":");
  const tag = colon >= 0 ? lastSegment.slice(colon + 1) : image.includes("@") ? "" : "latest";
  return tag === "latest" ? "Always" : "IfNotPresent";
}

const defaultContainer: DefinitionDefaulter = (container) => {
  const image = container["image"];
  if (container["imagePullPolicy"] === undefined && typeof image === "string" && image !== "") container["imagePullPolicy"] = defaultPullPolicy(image);
};

/** Requests default to limits (pods only), links on, host-network ports mirrored. */
const defaultPod: DefinitionDefaulter = (pod) => {
  const spec = recordAt(pod, "spec");
  if (spec === undefined) return;
  if (spec["enableServiceLinks"] === undefined) spec["enableServiceLinks"] = true;
  for (const list of ["containers", "initContainers"]) {
    for (const container of listAt(spec, list)) {
      if (!isPlainObject(container)) continue;
      // kube's defaultHostNetworkPorts (pods only since 1.28): an unset or zero host port becomes the container port, with or without limits.
      if (spec["hostNetwork"] === true) {
        for (const port of listAt(container, "ports"))
          if (isPlainObject(port) && (port["hostPort"] === undefined || port["hostPort"] === 0) && typeof port["containerPort"] === "number")
            port["hostPort"] = port["containerPort"];
      }
      const resources = recordAt(container, "resources");
      const limits = recordAt(resources, "limits");
      if (resources === undefined || limits === undefined) continue;
      const requests = ensureRecord(resources, "requests");
      for (const [name, value] of Object.entries(limits)) if (requests[name] === undefined) requests[name] = value;
    }
  }
};

function checkPort(errors: FieldError[], value: unknown, path: string, allowZero = false): void {
  if (typeof value !== "number") return;
  if ((value === 0 && allowZero) || (value >= 1 && value <= 65535)) return;
  errors.push(invalidValue(path, value, "must be between 1 and 65535, inclusive"));
}

/**
 * The container fields an ephemeral container may not set, in the order of kube's
 * EphemeralContainerCommon (its validateFieldAllowList walks the struct's fields: every one not
 * allowed is Forbidden when set). Ephemeral containers are for debugging, not pod services.
 */
const EPHEMERAL_FORBIDDEN_FIELDS = ["ports", "resources", "resizePolicy", "restartPolicy", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle"];

const EPHEMERAL_FORBIDDEN = "cannot be set for an Ephemeral Container";

/** Go's zero value: absent, null, an empty string, list or `false`, or an object with nothing set in it. */
function isSet(value: unknown): boolean {
  if (value === undefined || value === null || value === "" || value === false || value === 0) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isPlainObject(value)) return Object.values(value).some(isSet);
  return true;
}

/**
 * kube's validateEphemeralContainers beyond the rules shared with other containers: the target
 * must be a regular or init container, the fields above unset, and no volume mount `subPath`.
 */
function ephemeralContainerErrors(spec: Record<string, unknown>, container: Record<string, unknown>, at: string): FieldError[] {
  const errors: FieldError[] = [];
  const target = stringAt(container, "targetContainerName") ?? "";
  if (target !== "") {
    const others = [...listAt(spec, "containers"), ...listAt(spec, "initContainers")].map((other) => (isPlainObject(other) ? other["name"] : undefined));
    if (!others.includes(target)) errors.push(notFound(childPath(at, "targetContainerName"), target));
  }
  for (const field of EPHEMERAL_FORBIDDEN_FIELDS) if (isSet(container[field])) errors.push(forbidden(childPath(at, field), EPHEMERAL_FORBIDDEN));
  listAt(container, "volumeMounts").forEach((mount, index) => {
    if (!isPlainObject(mount)) return;
    for (const field of ["subPath", "subPathExpr"])
      if ((stringAt(mount, field) ?? "") !== "") errors.push(forbidden(childPath(indexPath(childPath(at, "volumeMounts"), index), field), EPHEMERAL_FORBIDDEN));
  });
  return errors;
}

/**
 * kube's ValidateVolumeMounts (the checks that need no volume details): a mount names a volume the
 * pod declares and has a path, unique within its container.
 */
function volumeMountErrors(container: Record<string, unknown>, volumes: ReadonlySet<unknown>, at: string): FieldError[] {
  const errors: FieldError[] = [];
  const paths = new Set<string>();
  listAt(container, "volumeMounts").forEach((mount, index) => {
    if (!isPlainObject(mount)) return;
    const mountAt = indexPath(childPath(at, "volumeMounts"), index);
    const name = stringAt(mount, "name") ?? "";
    if (name === "") errors.push(required(childPath(mountAt, "name")));
    if (!volumes.has(name)) errors.push(notFound(childPath(mountAt, "name"), name));
    const mountPath = stringAt(mount, "mountPath") ?? "";
    if (mountPath === "") errors.push(required(childPath(mountAt, "mountPath")));
    if (paths.has(mountPath)) errors.push(invalidValue(childPath(mountAt, "mountPath"), mountPath, "must be unique"));
    paths.add(mountPath);
  });
  return errors;
}

/**
 * kube's ValidateVolumes: names, one source each and the source's own checks. A volume with an
 * error is left out of `declared`, so mounts of it are also reported Not found, as kube's are.
 */
function volumeErrors(spec: Record<string, unknown>, path: string, declared: Set<unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const volumes = new Set<string>();
  listAt(spec, "volumes").forEach((volume, index) => {
    if (!isPlainObject(volume)) return;
    const at = indexPath(childPath(path, "volumes"), index);
    const own: FieldError[] = [];
    const sources = volumeSourcesOf(volume);
    if (sources.length === 0) own.push(required(at, "must specify a volume type"));
    else if (sources.length > 1) own.push(forbidden(childPath(at, sources[1] ?? ""), "may not specify more than 1 volume type"));
    own.push(...volumeSourceErrors(volume, at));
    const name = stringAt(volume, "name");
    if (name !== undefined && name !== "") {
      for (const message of validateName(name, "dns1123-label")) own.push(invalidValue(childPath(at, "name"), name, message));
      if (volumes.has(name)) own.push(duplicate(childPath(at, "name"), name));
      volumes.add(name);
    }
    if (own.length === 0) declared.add(name);
    errors.push(...own);
  });
  return errors;
}

const validatePodSpec: DefinitionValidator = (spec, path, context) => {
  const declaredVolumes = new Set<unknown>();
  const errors = volumeErrors(spec, path, declaredVolumes);
  // A StatefulSet's containers mount its volume claim templates by name (kube 1.30 leaves its template's volumes unchecked for this reason).
  if (context.claimVolumes !== undefined) for (const name of context.claimVolumes) declaredVolumes.add(name);
  const names = new Set<string>();
  const hostUsers = spec["hostUsers"] !== false;
  for (const list of ["containers", "initContainers", "ephemeralContainers"]) {
    listAt(spec, list).forEach((container, index) => {
      if (!isPlainObject(container)) return;
      const at = indexPath(childPath(path, list), index);
      const portNames = new Set<string>();
      const name = stringAt(container, "name");
      if (name !== undefined && name !== "") {
        for (const message of validateName(name, "dns1123-label")) errors.push(invalidValue(childPath(at, "name"), name, message));
        if (names.has(name)) errors.push(duplicate(childPath(at, "name"), name));
        names.add(name);
      }
      const image = container["image"];
      if (image === undefined || image === null || image === "") errors.push(required(childPath(at, "image")));
      else if (typeof image === "string" && image.trim() !== image)
        errors.push(invalidValue(childPath(at, "image"), image, "must not have leading or trailing whitespace"));
      listAt(container, "ports").forEach((port, portIndex) => {
        if (!isPlainObject(port)) return;
        const portPath = indexPath(childPath(at, "ports"), portIndex);
        // kube's validateContainerPorts: an IANA service name, unique in the container (checked only when valid).
        const portName = stringAt(port, "name") ?? "";
        if (portName !== "") {
          const messages = portNameErrors(portName);
          for (const message of messages) errors.push(invalidValue(childPath(portPath, "name"), portName, message));
          if (messages.length === 0 && portNames.has(portName)) errors.push(duplicate(childPath(portPath, "name"), portName));
          portNames.add(portName);
        }
        checkPort(errors, port["containerPort"], childPath(portPath, "containerPort"));
        checkPort(errors, port["hostPort"], childPath(portPath, "hostPort"), true);
      });
      errors.push(...containerRuleErrors(container, at, list));
      errors.push(...volumeMountErrors(container, declaredVolumes, at));
      errors.push(...volumeMountPathErrors(container, at));
      errors.push(...containerSecurityContextErrors(container, at, hostUsers));
      if (list === "ephemeralContainers") errors.push(...ephemeralContainerErrors(spec, container, at));
    });
  }
  errors.push(...podSpecRuleErrors(spec, path));
  return errors;
};

/**
 * kube's SetDefaults_Service (defaulting, so every create, update and patch, and every stored
 * object read): `sessionAffinity: None` drops any `sessionAffinityConfig`; ClientIP without a
 * timeout gets the whole config replaced by the 10800 s default.
 */
const defaultServiceSpec: DefinitionDefaulter = (spec) => {
  const type = spec["type"];
  if (spec["sessionAffinity"] === "None") delete spec["sessionAffinityConfig"];
  const timeout = recordAt(recordAt(spec, "sessionAffinityConfig"), "clientIP")?.["timeoutSeconds"];
  if (spec["sessionAffinity"] === "ClientIP" && (timeout === undefined || timeout === null))
    spec["sessionAffinityConfig"] = { clientIP: { timeoutSeconds: 10800 } };
  if (type !== "ExternalName" && spec["internalTrafficPolicy"] === undefined) spec["internalTrafficPolicy"] = "Cluster";
  if ((type === "NodePort" || type === "LoadBalancer") && spec["externalTrafficPolicy"] === undefined) spec["externalTrafficPolicy"] = "Cluster";
  if (type === "LoadBalancer" && spec["allocateLoadBalancerNodePorts"] === undefined) spec["allocateLoadBalancerNodePorts"] = true;
};

const defaultServicePort: DefinitionDefaulter = (port) => {
  const target = port["targetPort"];
  if ((target === undefined || target === 0 || target === "") && typeof port["port"] === "number") port["targetPort"] = port["port"];
};

const validateServiceSpec: DefinitionValidator = (spec, path) => {
  const errors: FieldError[] = [];
  const type = stringAt(spec, "type");
  const ports = listAt(spec, "ports");
  const headless = spec["clusterIP"] === "None";
  if (ports.length === 0 && !headless && type !== "ExternalName") errors.push(required(childPath(path, "ports")));
  if (type === "ExternalName") {
    // kube: a CNAME, a trailing dot allowed (fully qualified), then an RFC 1123 subdomain.
    const cname = (stringAt(spec, "externalName") ?? "").replace(/\.$/, "");
    if (cname === "") errors.push(required(childPath(path, "externalName")));
    else for (const message of validateName(cname, "dns1123-subdomain")) errors.push(invalidValue(childPath(path, "externalName"), cname, message));
  }
  const names = new Set<string>();
  const keys = new Set<string>();
  ports.forEach((port, index) => {
    if (!isPlainObject(port)) return;
    const at = indexPath(childPath(path, "ports"), index);
    const name = stringAt(port, "name") ?? "";
    if (ports.length > 1 && name === "") errors.push(required(childPath(at, "name")));
    if (name !== "") {
      if (names.has(name)) errors.push(duplicate(childPath(at, "name"), name));
      names.add(name);
    }
    checkPort(errors, port["port"], childPath(at, "port"));
    if (typeof port["targetPort"] === "number") checkPort(errors, port["targetPort"], childPath(at, "targetPort"));
    const key = `${String(port["port"])}/${stringAt(port, "protocol") ?? "TCP"}`;
    if (keys.has(key)) errors.push(duplicate(at, { port: port["port"], protocol: stringAt(port, "protocol") ?? "TCP" }));
    keys.add(key);
  });
  errors.push(...serviceAddressErrors(spec, path));
  return errors;
};

/** Selector and template rules shared by the workload kinds (kube's ValidatePodTemplateSpecForReplicaSet and friends). */
function validateWorkload(kind: string, restartPolicies: readonly string[]): (object: ApiObject) => FieldError[] {
  return (object) => {
    const errors: FieldError[] = [];
    const spec = recordAt(object, "spec");
    if (spec === undefined) return [required("spec")];
    const selector = recordAt(spec, "selector");
    const template = recordAt(spec, "template");
    const labels = stringMapAt(recordAt(template, "metadata"), "labels");
    if (selector !== undefined) {
      if (selectorIsEmpty(selector))
        errors.push({
          type: "FieldValueInvalid",
          field: "spec.selector",
          message: `Invalid value: ${goLabelSelector(selector)}: empty selector is invalid for ${kind}`,
        });
      else if (template !== undefined && !selectorMatches(selector, labels)) errors.push(templateLabelsMismatch(template));
    } else if (template !== undefined) {
      // kube turns a missing selector into one that selects nothing, so besides `spec.selector:
      // Required value` the template's labels are reported as not matching it.
      errors.push(templateLabelsMismatch(template));
    }
    const restartPolicy = stringAt(recordAt(template, "spec"), "restartPolicy");
    if (restartPolicy !== undefined && !restartPolicies.includes(restartPolicy))
      errors.push(notSupported("spec.template.spec.restartPolicy", restartPolicy, restartPolicies));
    return errors;
  };
}

const validateDeployment = (object: ApiObject): FieldError[] => {
  const errors = validateWorkload("deployment", ["Always"])(object);
  const strategy = recordAt(recordAt(object, "spec"), "strategy");
  const rollingUpdate = recordAt(strategy, "rollingUpdate");
  if (stringAt(strategy, "type") === "Recreate" && rollingUpdate !== undefined) {
    errors.push(forbidden("spec.strategy.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'"));
  }
  if (rollingUpdate !== undefined) {
    const zero = (value: unknown): boolean => value === 0 || value === "0%";
    for (const name of ["maxSurge", "maxUnavailable"]) {
      const value = rollingUpdate[name];
      if (typeof value === "string" && !/^\d+%$/.test(value))
        errors.push(
          invalidValue(
            `spec.strategy.rollingUpdate.${name}`,
            value,
            "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
          ),
        );
      if (typeof value === "number" && value < 0) errors.push(invalidValue(`spec.strategy.rollingUpdate.${name}`, value, "must be greater than or equal to 0"));
    }
    if (zero(rollingUpdate["maxSurge"]) && zero(rollingUpdate["maxUnavailable"]))
      errors.push(invalidValue("spec.strategy.rollingUpdate.maxUnavailable", rollingUpdate["maxUnavailable"], "may not be 0 when `maxSurge` is 0"));
    const maxUnavailable = rollingUpdate["maxUnavailable"];
    if (typeof maxUnavailable === "string" && /^\d+%$/.test(maxUnavailable) && Number.parseInt(maxUnavailable, 10) > 100)
      errors.push(invalidValue("spec.strategy.rollingUpdate.maxUnavailable", maxUnavailable, "must not be greater than 100%"));
  }
  const spec = recordAt(object, "spec");
  const progressDeadline = spec?.["progressDeadlineSeconds"];
  const minReady = spec?.["minReadySeconds"];
  if (typeof progressDeadline === "number" && progressDeadline <= (typeof minReady === "number" ? minReady : 0))
    errors.push(invalidValue("spec.progressDeadlineSeconds", progressDeadline, "must be greater than minReadySeconds"));
  return errors;
};

/** kube's ValidateRollingUpdateDaemonSet: a rolling update must be allowed to replace at least one pod. */
const validateDaemonSet = (object: ApiObject): FieldError[] => {
  const errors = validateWorkload("daemonset", ["Always"])(object);
  const rollingUpdate = recordAt(recordAt(recordAt(object, "spec"), "updateStrategy"), "rollingUpdate");
  if (rollingUpdate === undefined) return errors;
  const zero = (value: unknown): boolean => value === undefined || value === 0 || value === "0%";
  if (zero(rollingUpdate["maxSurge"]) && zero(rollingUpdate["maxUnavailable"]))
    errors.push(invalidValue("spec.updateStrategy.rollingUpdate.maxUnavailable", rollingUpdate["maxUnavailable"] ?? 0, "may not be 0 when `maxSurge` is 0"));
  const maxUnavailable = rollingUpdate["maxUnavailable"];
  if (typeof maxUnavailable === "string" && /^\d+%$/.test(maxUnavailable) && Number.parseInt(maxUnavailable, 10) > 100)
    errors.push(invalidValue("spec.updateStrategy.rollingUpdate.maxUnavailable", maxUnavailable, "must not be greater than 100%"));
  return errors;
};

const defaultDeploymentSpec: DefinitionDefaulter = (spec) => {
  const strategy = ensureRecord(spec, "strategy");
  if (strategy["type"] === undefined) strategy["type"] = "RollingUpdate";
  if (strategy["type"] !== "RollingUpdate") return;
  const rollingUpdate = ensureRecord(strategy, "rollingUpdate");
  if (rollingUpdate["maxUnavailable"] === undefined) rollingUpdate["maxUnavailable"] = "25%";
  if (rollingUpdate["maxSurge"] === undefined) rollingUpdate["maxSurge"] = "25%";
};

function defaultStatefulSet(object: Record<string, unknown>): void {
  const spec = recordAt(object, "spec");
  if (spec === undefined) return;
  const strategy = ensureRecord(spec, "updateStrategy");
  if (strategy["type"] === undefined) {
    strategy["type"] = "RollingUpdate";
    ensureRecord(strategy, "rollingUpdate");
  }
  const rollingUpdate = recordAt(strategy, "rollingUpdate");
  if (strategy["type"] === "RollingUpdate" && rollingUpdate !== undefined && rollingUpdate["partition"] === undefined) rollingUpdate["partition"] = 0;
  ensureRecord(spec, "persistentVolumeClaimRetentionPolicy");
}

function defaultDaemonSet(object: Record<string, unknown>): void {
  const spec = recordAt(object, "spec");
  if (spec === undefined) return;
  const strategy = ensureRecord(spec, "updateStrategy");
  if (strategy["type"] === undefined) strategy["type"] = "RollingUpdate";
  if (strategy["type"] !== "RollingUpdate") return;
  const rollingUpdate = ensureRecord(strategy, "rollingUpdate");
  if (rollingUpdate["maxUnavailable"] === undefined) rollingUpdate["maxUnavailable"] = 1;
  if (rollingUpdate["maxSurge"] === undefined) rollingUpdate["maxSurge"] = 0;
}

/** A replication controller without a selector (or labels) takes its template's labels. */
function defaultReplicationController(object: Record<string, unknown>): void {
  const spec = recordAt(object, "spec");
  const labels = stringMapAt(recordAt(recordAt(spec, "template"), "metadata"), "labels");
  if (spec === undefined || Object.keys(labels).length === 0) return;
  if (Object.keys(stringMapAt(spec, "selector")).length === 0) spec["selector"] = { ...labels };
  const metadata = ensureRecord(object, "metadata");
  if (Object.keys(stringMapAt(metadata, "labels")).length === 0) metadata["labels"] = { ...labels };
}

const validateReplicationController = (object: ApiObject): FieldError[] => {
  const errors: FieldError[] = [];
  const spec = recordAt(object, "spec");
  const selector = stringMapAt(spec, "selector");
  const template = recordAt(spec, "template");
  if (Object.keys(selector).length === 0) errors.push(required("spec.selector"));
  if (template === undefined) return [...errors, required("spec.template")];
  const labels = stringMapAt(recordAt(template, "metadata"), "labels");
  if (Object.keys(selector).length > 0 && !selectorMatches({ matchLabels: selector }, labels)) errors.push(templateLabelsMismatch(template));
  const restartPolicy = stringAt(recordAt(template, "spec"), "restartPolicy");
  if (restartPolicy !== undefined && restartPolicy !== "Always") errors.push(notSupported("spec.template.spec.restartPolicy", restartPolicy, ["Always"]));
  return errors;
};

const MAX_INT32 = 2147483647;

/**
 * kube's SetDefaults_Job, which defaults the Job object only: a CronJob's `jobTemplate.spec` keeps
 * what was sent (kube's CronJob defaulter reaches only its pod template), and the Job made from it
 * is defaulted when it is created. A Job with `backoffLimitPerIndex` (JobBackoffLimitPerIndex, on
 * in 1.30) gets no overall limit (the largest int32); JobPodReplacementPolicy (on in 1.30) gives
 * `Failed` beside a pod failure policy.
 */
const defaultJob: DefinitionDefaulter = (job) => {
  const spec = ensureRecord(job, "spec");
  const unset = (field: string): boolean => spec[field] === undefined || spec[field] === null;
  if (unset("completions") && unset("parallelism")) spec["completions"] = 1;
  if (unset("parallelism")) spec["parallelism"] = 1;
  if (unset("backoffLimit")) spec["backoffLimit"] = unset("backoffLimitPerIndex") ? 6 : MAX_INT32;
  if (unset("completionMode")) spec["completionMode"] = "NonIndexed";
  if (unset("suspend")) spec["suspend"] = false;
  if (unset("podReplacementPolicy")) spec["podReplacementPolicy"] = unset("podFailurePolicy") ? "TerminatingOrFailed" : "Failed";
  if (unset("manualSelector")) spec["manualSelector"] = false;
};

/** kube's podFailurePolicy rule checks: one requirement per rule, exit-code lists non-empty, ordered, without 0 for `In`. */
function podFailurePolicyErrors(spec: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const rulesPath = childPath(path, "podFailurePolicy.rules");
  listAt(recordAt(spec, "podFailurePolicy"), "rules").forEach((rule, index) => {
    if (!isPlainObject(rule)) return;
    const rulePath = indexPath(rulesPath, index);
    const onExitCodes = recordAt(rule, "onExitCodes");
    const conditions = listAt(rule, "onPodConditions").length > 0;
    if (onExitCodes !== undefined) {
      const valuesPath = childPath(rulePath, "onExitCodes.values");
      const values = listAt(onExitCodes, "values").filter((value): value is number => typeof value === "number");
      // kube prints the list as Go's `%#v` of an `[]int32`.
      const goValues = `[]int32{${values.join(", ")}}`;
      if (values.length === 0)
        errors.push({ type: "FieldValueInvalid", field: valuesPath, message: "Invalid value: []int32{}: at least one value is required" });
      values.forEach((value, at) => {
        if (onExitCodes["operator"] === "In" && value === 0) errors.push(invalidValue(indexPath(valuesPath, at), 0, "must not be 0 for the In operator"));
      });
      if (values.some((value, at) => at > 0 && (values[at - 1] ?? value) > value))
        errors.push({ type: "FieldValueInvalid", field: valuesPath, message: `Invalid value: ${goValues}: must be ordered` });
    }
    // kube omits the value of these two (an OmitValueType): `rules[0]: Invalid value: <detail>`.
    if (onExitCodes !== undefined && conditions)
      errors.push({ type: "FieldValueInvalid", field: rulePath, message: "Invalid value: specifying both OnExitCodes and OnPodConditions is not supported" });
    if (onExitCodes === undefined && !conditions)
      errors.push({ type: "FieldValueInvalid", field: rulePath, message: "Invalid value: specifying one of OnExitCodes and OnPodConditions is required" });
  });
  return errors;
}

const validateJobSpec: DefinitionValidator = (spec, path) => {
  const errors: FieldError[] = [];
  if (spec["completionMode"] === "Indexed" && (spec["completions"] === undefined || spec["completions"] === null))
    errors.push(required(childPath(path, "completions"), "when completion mode is Indexed"));
  errors.push(...podFailurePolicyErrors(spec, path));
  const restartPolicy = stringAt(recordAt(recordAt(spec, "template"), "spec"), "restartPolicy");
  if (restartPolicy === undefined || restartPolicy === "OnFailure" || restartPolicy === "Never") {
    if (restartPolicy === "OnFailure" && spec["podFailurePolicy"] !== undefined && spec["podFailurePolicy"] !== null)
      errors.push(invalidValue(childPath(path, "template.spec.restartPolicy"), restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'));
    return errors;
  }
  return [...errors, notSupported(childPath(path, "template.spec.restartPolicy"), restartPolicy, ["OnFailure", "Never"])];
};

/**
 * kube's Job-level rules (a CronJob's template is not judged by them): a selector is required
 * (the strategy generates one unless `manualSelector`), and it must select the pod template.
 * Jobs stored without a selector (before this server generated them) may still be updated.
 */
const validateJob = (object: ApiObject, old: ApiObject | undefined): FieldError[] => {
  const spec = recordAt(object, "spec");
  const selector = recordAt(spec, "selector");
  if (selector === undefined) return old === undefined || recordAt(recordAt(old, "spec"), "selector") !== undefined ? [required("spec.selector")] : [];
  const labels = stringMapAt(recordAt(recordAt(spec, "template"), "metadata"), "labels");
  if (!selectorMatches(selector, labels)) return [templateLabelsMismatch(recordAt(spec, "template"))];
  return [];
};

const CRON_MACROS = new Set(["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]);

/**
 * The schedule's syntax as kube's cron parser checks it: five fields, a macro or `@every <duration>`,
 * after an optional `TZ=<zone>`/`CRON_TZ=<zone>` prefix (the parser's; whether it is allowed is
 * the CronJob's own rule).
 */
export function cronScheduleError(schedule: string): string | undefined {
  let trimmed = schedule.trim();
  if (trimmed.startsWith("TZ=") || trimmed.startsWith("CRON_TZ=")) trimmed = trimmed.replace(/^\S+\s*/, "");
  if (trimmed.startsWith("@")) {
    if (CRON_MACROS.has(trimmed)) return undefined;
    if (/^@every \d+(\.\d+)?(ns|us|µs|ms|s|m|h)(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))*$/.test(trimmed)) return undefined;
    return `unrecognized descriptor: ${trimmed}`;
  }
  const fields = trimmed.split(/\s+/).filter((field) => field !== "");
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: ${schedule}`;
  const field = /^(\*|\?|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(\/\d+)?(,(\*|\?|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(\/\d+)?)*$/;
  const bad = fields.find((item) => !field.test(item));
  return bad === undefined ? undefined : `failed to parse ${JSON.stringify(bad)}: ${schedule}`;
}

/**
 * kube's CronJob `timeZone` rule: an IANA zone name as Go's time.LoadLocation knows it (case
 * matters there), never `Local`; Go's own error text `unknown time zone <name>` otherwise.
 */
export function timeZoneError(timeZone: string): string | undefined {
  if (timeZone === "" || timeZone === "UTC") return undefined;
  if (timeZone === "Local") return "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones";
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat("en-US", { timeZone }).resolvedOptions().timeZone;
  } catch {
    return `unknown time zone ${timeZone}`;
  }
  // ICU accepts any case (and canonicalizes); the zoneinfo files Go reads do not.
  if (resolved !== timeZone && resolved.toLowerCase() === timeZone.toLowerCase()) return `unknown time zone ${timeZone}`;
  return undefined;
}

/**
 * A CronJob's schedule: its syntax, and no `TZ`/`CRON_TZ` in it (the `timeZone` field replaced
 * them) unless the stored schedule already had one — kube's ratchet for objects written before
 * 1.27, whose updates are then warned about instead (registry/resources/warnings).
 */
const validateCronJob = (object: ApiObject, old: ApiObject | undefined): FieldError[] => {
  const errors: FieldError[] = [];
  const name = stringAt(recordAt(object, "metadata"), "name") ?? "";
  // The controller appends an 11-character `-<minute>` to name each Job (63 at most): kube checks this on create only.
  if (old === undefined && name.length > 52) errors.push(invalidValue("metadata.name", name, "must be no more than 52 characters"));
  const spec = recordAt(object, "spec");
  const timeZone = stringAt(spec, "timeZone");
  if (timeZone !== undefined) {
    const problem = timeZoneError(timeZone);
    if (problem !== undefined) errors.push(invalidValue("spec.timeZone", timeZone, problem));
  }
  const schedule = stringAt(spec, "schedule");
  if (schedule === undefined || schedule === "") return errors;
  const problem = cronScheduleError(schedule);
  if (problem !== undefined) errors.push(invalidValue("spec.schedule", schedule, problem));
  const allowTimeZonePrefix = (stringAt(recordAt(old, "spec"), "schedule") ?? "").includes("TZ");
  if (schedule.includes("TZ")) {
    if (!allowTimeZonePrefix) errors.push(invalidValue("spec.schedule", schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"));
    else if (stringAt(spec, "timeZone") !== undefined)
      errors.push(invalidValue("spec.schedule", schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"));
  }
  return errors;
};

/** A StatefulSet's volume claim templates, by name: volumes its pod template may mount (`ValidationContext`). */
function statefulSetContext(object: ApiObject): ValidationContext {
  const names = new Set<string>();
  for (const claim of listAt(recordAt(object, "spec"), "volumeClaimTemplates")) {
    const name = stringAt(recordAt(claim, "metadata"), "name");
    if (name !== undefined && name !== "") names.add(name);
  }
  return names.size === 0 ? {} : { claimVolumes: names };
}

export const WORKLOAD_CONTEXTS: Readonly<Record<string, (object: ApiObject) => ValidationContext>> = {
  "apps.v1.StatefulSet": statefulSetContext,
};

export const WORKLOAD_DEFAULTERS: Readonly<Record<string, DefinitionDefaulter>> = {
  "core.v1.Container": defaultContainer,
  "core.v1.EphemeralContainer": defaultContainer,
  "core.v1.Pod": defaultPod,
  "core.v1.ServiceSpec": defaultServiceSpec,
  "core.v1.ServicePort": defaultServicePort,
  "core.v1.ReplicationController": defaultReplicationController,
  "apps.v1.DeploymentSpec": defaultDeploymentSpec,
  "apps.v1.StatefulSet": defaultStatefulSet,
  "apps.v1.DaemonSet": defaultDaemonSet,
  "batch.v1.Job": defaultJob,
};

export const WORKLOAD_VALIDATORS: Readonly<Record<string, DefinitionValidator>> = {
  "core.v1.PodSpec": validatePodSpec,
  "core.v1.PodTemplateSpec": validatePodTemplateSpec,
  "core.v1.ServiceSpec": validateServiceSpec,
  "batch.v1.JobSpec": validateJobSpec,
};

type KindValidator = (object: ApiObject, old: ApiObject | undefined) => FieldError[];

/** The kind's rules, then its update rules (kube's ValidateXUpdate order). */
function withUpdateRules(validate: KindValidator, update: KindValidator): KindValidator {
  return (object, old) => (old === undefined ? validate(object, old) : [...validate(object, old), ...update(object, old)]);
}

export const WORKLOAD_KIND_VALIDATORS: Readonly<Record<string, KindValidator>> = {
  "apps.v1.Deployment": withUpdateRules(validateDeployment, validateSelectorUpdate),
  "apps.v1.ReplicaSet": withUpdateRules(validateWorkload("replicaset", ["Always"]), validateSelectorUpdate),
  "apps.v1.StatefulSet": withUpdateRules(validateWorkload("statefulset", ["Always"]), validateStatefulSetUpdate),
  "apps.v1.DaemonSet": withUpdateRules(validateDaemonSet, validateSelectorUpdate),
  "core.v1.ReplicationController": validateReplicationController,
  "batch.v1.Job": withUpdateRules(validateJob, validateJobUpdate),
  "batch.v1.CronJob": validateCronJob,
  "batch.v1beta1.CronJob": validateCronJob,
};
