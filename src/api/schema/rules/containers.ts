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

/** kube's validateObjectFieldSelector: `allowed` are the plain paths the reader accepts (env vars by default). */
export function fieldRefErrors(ref: Record<string, unknown>, at: string, allowed: readonly string[] = ENV_FIELD_PATHS): FieldError[] {
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
  if (!allowed.includes(fieldPath)) return [notSupported(childPath(at, "fieldPath"), fieldPath, allowed)];
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
const LIFECYCLE_HANDLERS = ["exec", "httpGet", "tcpSocket", "sleep"];
const PROBE_COUNTS = ["initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"];
const HTTP_HEADER_NAME = /^[-A-Za-z0-9]+$/;
const HTTP_HEADER_MESSAGE =
  "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')";

/** kube's IsValidPortName (IANA_SVC_NAME): the messages for a named port; none when valid. */
export function portNameErrors(name: string): string[] {
  const errors: string[] = [];
  if (name.length > 15) errors.push("must be no more than 15 characters");
  if (!/^[-a-z0-9]+$/.test(name)) errors.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(name)) errors.push("must contain at least one letter (a-z)");
  if (name.includes("--")) errors.push("must not contain consecutive hyphens");
  if (name.startsWith("-") || name.endsWith("-")) errors.push("must not begin or end with a hyphen");
  return errors;
}

/** kube's ValidatePortNumOrName: a number in 1–65535 or an IANA service name. */
export function portNumOrNameErrors(port: unknown, path: string): FieldError[] {
  if (typeof port === "number") return port >= 1 && port <= 65535 ? [] : [invalidValue(path, port, "must be between 1 and 65535, inclusive")];
  if (typeof port === "string") return portNameErrors(port).map((message) => invalidValue(path, port, message));
  return [];
}

/** kube's validateExecAction, validateHTTPGetAction, validateTCPSocketAction and validateGRPCAction. */
function handlerDetailErrors(kind: string, action: Record<string, unknown>, at: string): FieldError[] {
  switch (kind) {
    case "exec":
      return listAt(action, "command").length === 0 ? [required(childPath(at, "command"))] : [];
    case "httpGet": {
      const errors = portNumOrNameErrors(action["port"], childPath(at, "port"));
      for (const header of listAt(action, "httpHeaders")) {
        const name = stringAt(header, "name") ?? "";
        if (!HTTP_HEADER_NAME.test(name)) errors.push(invalidValue(childPath(at, "httpHeaders"), name, HTTP_HEADER_MESSAGE));
      }
      return errors;
    }
    case "tcpSocket":
    case "grpc":
      return portNumOrNameErrors(action["port"], childPath(at, "port"));
    default:
      return [];
  }
}

/** kube's validateHandler: exactly one action, checked; each further one Forbidden. */
function handlerErrors(handler: Record<string, unknown>, at: string, kinds: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  let count = 0;
  for (const kind of kinds) {
    const action = handler[kind];
    if (!isSetObject(action)) continue;
    if (count > 0) errors.push(forbidden(childPath(at, kind), "may not specify more than 1 handler type"));
    else if (isPlainObject(action)) errors.push(...handlerDetailErrors(kind, action, childPath(at, kind)));
    count++;
  }
  if (count === 0) errors.push(required(at, "must specify a handler type"));
  return errors;
}

function probeErrors(container: Record<string, unknown>, field: string, at: string): FieldError[] {
  const probe = recordAt(container, field);
  if (probe === undefined) return [];
  const probeAt = childPath(at, field);
  const errors = handlerErrors(probe, probeAt, PROBE_HANDLERS);
  for (const count of PROBE_COUNTS) {
    const value = probe[count];
    if (typeof value === "number" && value < 0) errors.push(invalidValue(childPath(probeAt, count), value, "must be greater than or equal to 0"));
  }
  const grace = probe["terminationGracePeriodSeconds"];
  if (typeof grace === "number" && grace <= 0) errors.push(invalidValue(childPath(probeAt, "terminationGracePeriodSeconds"), grace, "must be greater than 0"));
  const threshold = probe["successThreshold"];
  if (field !== "readinessProbe" && typeof threshold === "number" && threshold !== 1)
    errors.push(invalidValue(childPath(probeAt, "successThreshold"), threshold, "must be 1"));
  if (field === "readinessProbe" && typeof grace === "number")
    errors.push(invalidValue(childPath(probeAt, "terminationGracePeriodSeconds"), grace, "must not be set for readinessProbes"));
  return errors;
}

/** kube's validateLifecycle: each hook is a handler (`sleep` instead of `grpc`). */
function lifecycleErrors(container: Record<string, unknown>, at: string): FieldError[] {
  const lifecycle = recordAt(container, "lifecycle");
  const errors: FieldError[] = [];
  for (const hook of ["postStart", "preStop"]) {
    const handler = recordAt(lifecycle, hook);
    if (handler !== undefined) errors.push(...handlerErrors(handler, childPath(childPath(at, "lifecycle"), hook), LIFECYCLE_HANDLERS));
  }
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
  errors.push(...lifecycleErrors(container, at));
  for (const probe of PROBES) errors.push(...probeErrors(container, probe, at));
  if (list === "containers" && isSetObject(container["restartPolicy"]))
    errors.push(forbidden(childPath(at, "restartPolicy"), "may not be set for non-init containers"));
  return errors;
}
