import type { FieldError } from "../../errors.js";
import { isNativeResourceName } from "../../profile.js";
import { isPlainObject } from "../../object.js";
import { quantityValue } from "../../quantity.js";
import { childPath, forbidden, indexPath, invalidValue, keyPath, notSupported, required } from "../field-path.js";
import { listAt, recordAt, stringAt } from "./values.js";

/**
 * kube's per-container rules that need more than the schema: environment variables
 * (validateEnv), resource requirements (ValidateResourceRequirements) and probes
 * (validateProbe and the liveness/startup `successThreshold` rule). Field paths and texts are
 * kube 1.30's, so kubectl prints the same lines.
 */

const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const ENV_NAME_MESSAGE =
  "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')";

/** The pod fields kube's downward API converts (v1), and the subset an env var may read. */
const DOWNWARD_FIELD_LABELS = new Set([
  "metadata.annotations",
  "metadata.labels",
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "spec.nodeName",
  "spec.restartPolicy",
  "spec.serviceAccountName",
  "spec.schedulerName",
  "status.phase",
  "status.hostIP",
  "status.hostIPs",
  "status.podIP",
  "status.podIPs",
]);
const ENV_FIELD_PATHS = [
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "spec.nodeName",
  "spec.serviceAccountName",
  "status.hostIP",
  "status.hostIPs",
  "status.podIP",
  "status.podIPs",
];
const SUBSCRIPTED = /^(metadata\.(?:labels|annotations))\['(.*)'\]$/;

function isSetObject(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function fieldRefErrors(ref: Record<string, unknown>, at: string): FieldError[] {
  const apiVersion = stringAt(ref, "apiVersion") ?? "";
  const fieldPath = stringAt(ref, "fieldPath") ?? "";
  if (apiVersion === "") return [required(childPath(at, "apiVersion"))];
  if (fieldPath === "") return [required(childPath(at, "fieldPath"))];
  const subscripted = SUBSCRIPTED.exec(fieldPath);
  const base = subscripted?.[1] ?? fieldPath;
  if (apiVersion !== "v1") return [invalidValue(childPath(at, "fieldPath"), fieldPath, `error converting fieldPath: unsupported pod version: ${apiVersion}`)];
  if (!DOWNWARD_FIELD_LABELS.has(base))
    return [invalidValue(childPath(at, "fieldPath"), fieldPath, `error converting fieldPath: field label not supported: ${fieldPath}`)];
  if (subscripted !== null) return [];
  if (!ENV_FIELD_PATHS.includes(fieldPath)) return [notSupported(childPath(at, "fieldPath"), fieldPath, ENV_FIELD_PATHS)];
  return [];
}

function envErrors(container: Record<string, unknown>, at: string): FieldError[] {
  const errors: FieldError[] = [];
  listAt(container, "env").forEach((env, index) => {
    if (!isPlainObject(env)) return;
    const envAt = indexPath(childPath(at, "env"), index);
    const name = stringAt(env, "name") ?? "";
    if (name === "") errors.push(required(childPath(envAt, "name")));
    else if (!ENV_NAME.test(name)) errors.push(invalidValue(childPath(envAt, "name"), name, ENV_NAME_MESSAGE));
    const from = recordAt(env, "valueFrom");
    if (from === undefined) return;
    const fromAt = childPath(envAt, "valueFrom");
    let sources = 0;
    for (const source of ["fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef"]) {
      if (!isSetObject(from[source])) continue;
      sources++;
      const ref = recordAt(from, source);
      if (source === "fieldRef" && ref !== undefined) errors.push(...fieldRefErrors(ref, childPath(fromAt, source)));
    }
    if (sources === 0) errors.push(invalidValue(fromAt, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"));
    else if ((stringAt(env, "value") ?? "") !== "") errors.push(invalidValue(fromAt, "", "may not be specified when `value` is not empty"));
    else if (sources > 1) errors.push(invalidValue(fromAt, "", "may not have more than one field specified at a time"));
  });
  return errors;
}

/** kube's IsOvercommitAllowed: native resources (no domain, or a key domain's) other than huge pages. */
function overcommitAllowed(name: string): boolean {
  return isNativeResourceName(name) && !name.startsWith("hugepages-");
}

function quantityText(value: unknown): string {
  return typeof value === "string" ? value : String(value);
}

function resourceErrors(container: Record<string, unknown>, at: string): FieldError[] {
  const errors: FieldError[] = [];
  const resourcesAt = childPath(at, "resources");
  const resources = recordAt(container, "resources");
  const limits = recordAt(resources, "limits") ?? {};
  const requests = recordAt(resources, "requests") ?? {};
  const limitsAt = childPath(resourcesAt, "limits");
  const requestsAt = childPath(resourcesAt, "requests");
  for (const [name, value] of Object.entries(limits)) {
    const amount = quantityValue(value);
    if (amount !== undefined && amount < 0) errors.push(invalidValue(keyPath(limitsAt, name), quantityText(value), "must be greater than or equal to 0"));
  }
  for (const [name, value] of Object.entries(requests)) {
    const amount = quantityValue(value);
    if (amount !== undefined && amount < 0) errors.push(invalidValue(keyPath(requestsAt, name), quantityText(value), "must be greater than or equal to 0"));
    const limit = limits[name];
    if (limit === undefined) {
      if (!overcommitAllowed(name)) errors.push(required(limitsAt, "Limit must be set for non overcommitable resources"));
      continue;
    }
    const limitAmount = quantityValue(limit);
    if (amount === undefined || limitAmount === undefined) continue;
    if (!overcommitAllowed(name) && amount !== limitAmount)
      errors.push(invalidValue(requestsAt, quantityText(value), `must be equal to ${name} limit of ${quantityText(limit)}`));
    else if (amount > limitAmount)
      errors.push(invalidValue(requestsAt, quantityText(value), `must be less than or equal to ${name} limit of ${quantityText(limit)}`));
  }
  return errors;
}

const PROBE_HANDLERS = ["exec", "httpGet", "tcpSocket", "grpc"];
const PROBE_COUNTS = ["initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"];

function probeErrors(container: Record<string, unknown>, field: string, at: string): FieldError[] {
  const probe = recordAt(container, field);
  if (probe === undefined) return [];
  const errors: FieldError[] = [];
  const probeAt = childPath(at, field);
  const handlers = PROBE_HANDLERS.filter((handler) => isSetObject(probe[handler]));
  if (handlers.length === 0) errors.push(required(probeAt, "must specify a handler type"));
  else if (handlers.length > 1) errors.push(forbidden(childPath(probeAt, handlers[1] ?? ""), "may not specify more than 1 handler type"));
  for (const count of PROBE_COUNTS) {
    const value = probe[count];
    if (typeof value === "number" && value < 0) errors.push(invalidValue(childPath(probeAt, count), value, "must be greater than or equal to 0"));
  }
  const grace = probe["terminationGracePeriodSeconds"];
  if (typeof grace === "number" && grace <= 0) errors.push(invalidValue(childPath(probeAt, "terminationGracePeriodSeconds"), grace, "must be greater than 0"));
  const threshold = probe["successThreshold"];
  if (field !== "readinessProbe" && typeof threshold === "number" && threshold !== 1)
    errors.push(invalidValue(childPath(probeAt, "successThreshold"), threshold, "must be 1"));
  return errors;
}

const PROBES = ["livenessProbe", "readinessProbe", "startupProbe"];

/**
 * The rules above for one container of `list` (containers, initContainers, ephemeralContainers),
 * in kube's order. Ephemeral containers may set neither resources nor probes (their own rule says
 * so); an init container that is not a sidecar (`restartPolicy: Always`) may set neither
 * lifecycle hooks nor probes.
 */
export function containerRuleErrors(container: Record<string, unknown>, at: string, list: string): FieldError[] {
  const errors = envErrors(container, at);
  if (list === "ephemeralContainers") return errors;
  errors.push(...resourceErrors(container, at));
  if (list === "initContainers" && container["restartPolicy"] !== "Always") {
    for (const field of ["lifecycle", ...PROBES])
      if (isSetObject(container[field])) errors.push(forbidden(childPath(at, field), "may not be set for init containers without restartPolicy=Always"));
    return errors;
  }
  for (const probe of PROBES) errors.push(...probeErrors(container, probe, at));
  return errors;
}
