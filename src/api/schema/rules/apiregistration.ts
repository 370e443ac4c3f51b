import type { FieldError } from "../../errors.js";
import type { ApiObject } from "../../object.js";
import { validateName } from "../../validation.js";
import { indexPath, invalidValue, notSupported, required } from "../field-path.js";
import { listAt, recordAt, stringAt } from "./values.js";

/**
 * kube 1.30's ValidateAPIService (kube-aggregator): the name is `<version>.<group>`, only `v1` may
 * have the empty (core) group, the group a DNS subdomain and the version a DNS-1035 label, group
 * priority 1–20000 and version priority 1–1000; a local APIService (no `service`) has neither a
 * CA bundle nor insecureSkipTLSVerify, a service-backed one names a namespace, a name and a valid
 * port and not both. Conditions' statuses are True, False or Unknown (its status validation).
 */
export function validateApiService(object: ApiObject): FieldError[] {
  const spec = recordAt(object, "spec") ?? {};
  const group = stringAt(spec, "group") ?? "";
  const version = stringAt(spec, "version") ?? "";
  const errors: FieldError[] = [];
  const name = object.metadata.name;
  // The store's name check (path segment) has already run; this adds the rule naming the spec.
  const requiredName = `${version}.${group}`;
  if (typeof name === "string" && name !== "" && validateName(name, "path-segment").length === 0 && name !== requiredName)
    errors.push(invalidValue("metadata.name", name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`));
  if (group === "" && version !== "v1") errors.push(required("spec.group", "only v1 may have an empty group and it better be legacy kube"));
  if (group !== "") for (const message of validateName(group, "dns1123-subdomain")) errors.push(invalidValue("spec.group", group, message));
  for (const message of validateName(version, "dns1035-label")) errors.push(invalidValue("spec.version", version, message));
  const groupPriority = numberAt(spec, "groupPriorityMinimum");
  if (groupPriority <= 0 || groupPriority > 20000)
    errors.push(invalidValue("spec.groupPriorityMinimum", groupPriority, "must be positive and less than 20000"));
  const versionPriority = numberAt(spec, "versionPriority");
  if (versionPriority <= 0 || versionPriority > 1000) errors.push(invalidValue("spec.versionPriority", versionPriority, "must be positive and less than 1000"));
  const caBundle = stringAt(spec, "caBundle") ?? "";
  const insecure = spec["insecureSkipTLSVerify"] === true;
  const service = recordAt(spec, "service");
  if (service === undefined) {
    if (caBundle !== "")
      errors.push(invalidValue("spec.caBundle", `${Buffer.from(caBundle, "base64").length} bytes`, "local APIServices may not have a caBundle"));
    if (insecure) errors.push(invalidValue("spec.insecureSkipTLSVerify", true, "local APIServices may not have insecureSkipTLSVerify"));
  } else {
    if ((stringAt(service, "namespace") ?? "") === "") errors.push(required("spec.service.namespace"));
    if ((stringAt(service, "name") ?? "") === "") errors.push(required("spec.service.name"));
    const port = numberAt(service, "port");
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      errors.push(invalidValue("spec.service.port", port, "port is not valid: must be between 1 and 65535, inclusive"));
    if (insecure && caBundle !== "") errors.push(invalidValue("spec.insecureSkipTLSVerify", true, "may not be true if caBundle is present"));
  }
  listAt(recordAt(object, "status"), "conditions").forEach((condition, index) => {
    const status = stringAt(condition, "status") ?? "";
    if (status !== "True" && status !== "False" && status !== "Unknown")
      errors.push(notSupported(`${indexPath("status.conditions", index)}.status`, status, ["True", "False", "Unknown"]));
  });
  return errors;
}

function numberAt(value: Record<string, unknown>, name: string): number {
  const found = value[name];
  return typeof found === "number" ? found : 0;
}
