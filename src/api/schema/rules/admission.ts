import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import { validateName } from "../../validation.js";
import { childPath, duplicate, forbidden, indexPath, invalidValue, notSupported, required } from "../field-path.js";
import { webhookExpressionErrors } from "./admission-expressions.js";
import { listAt, recordAt, stringAt } from "./values.js";

/**
 * Webhook configuration rules (the spec's admission table): names qualified with at least three
 * segments and unique in v1; `clientConfig` has exactly one of `url` (https, a host, no user
 * info, query or fragment) and `service` (path starting with '/', port 1–65535);
 * `timeoutSeconds` 1–30; v1 requires `sideEffects` None or NoneOnDryRun and
 * `admissionReviewVersions` with at least one version the server speaks; `matchConditions` have
 * unique names and compile to bool (admission-expressions.ts).
 *
 * v1beta1 allowed more (sideEffects Some/Unknown, any review versions, repeated names), and the
 * objects it created are stored as v1. As kube does, a v1 update only enforces a rule the stored
 * object already met, so such objects can still be changed (labels, other webhooks) through v1.
 */

const REVIEW_VERSIONS = ["v1", "v1beta1"];
const NO_SIDE_EFFECTS = ["None", "NoneOnDryRun"];

/** Which v1 rules apply: all on create; on update, those the stored object satisfies. */
interface V1Rules {
  readonly noSideEffects: boolean;
  readonly knownReviewVersion: boolean;
  readonly uniqueNames: boolean;
}

function webhooksOf(object: ApiObject): Record<string, unknown>[] {
  return listAt(object, "webhooks").filter(isPlainObject);
}

function rulesFor(old: ApiObject | undefined): V1Rules {
  if (old === undefined) return { noSideEffects: true, knownReviewVersion: true, uniqueNames: true };
  const webhooks = webhooksOf(old);
  const names = webhooks.map((webhook) => stringAt(webhook, "name") ?? "");
  return {
    noSideEffects: webhooks.every((webhook) => NO_SIDE_EFFECTS.includes(stringAt(webhook, "sideEffects") ?? "")),
    knownReviewVersion: webhooks.every((webhook) =>
      listAt(webhook, "admissionReviewVersions").some((version) => typeof version === "string" && REVIEW_VERSIONS.includes(version)),
    ),
    uniqueNames: new Set(names).size === names.length,
  };
}

/** A webhook `clientConfig` (admission and CRD conversion webhooks): one of url (https, no user, query or fragment) or service. */
export function clientConfigErrors(config: Record<string, unknown> | undefined, path: string): FieldError[] {
  if (config === undefined) return [];
  const url = stringAt(config, "url");
  const service = recordAt(config, "service");
  if ((url === undefined || url === "") === (service === undefined)) return [required(path, "exactly one of url or service is required")];
  const errors: FieldError[] = [];
  if (url !== undefined && url !== "") {
    const at = childPath(path, "url");
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      return [invalidValue(at, url, "must be a valid URL")];
    }
    if (parsed.protocol !== "https:") errors.push(invalidValue(at, url, "'https' is the only allowed URL scheme"));
    if (parsed.hostname === "") errors.push(invalidValue(at, url, "host must be specified"));
    if (parsed.username !== "" || parsed.password !== "") errors.push(invalidValue(at, url, "user information is not permitted in the URL"));
    if (url.includes("#")) errors.push(invalidValue(at, url, "fragments are not permitted in the URL"));
    if (url.includes("?")) errors.push(invalidValue(at, url, "query parameters are not permitted in the URL"));
  }
  if (service !== undefined) {
    const servicePath = stringAt(service, "path");
    if (servicePath !== undefined && servicePath !== "" && !servicePath.startsWith("/"))
      errors.push(invalidValue(childPath(path, "service.path"), servicePath, "must start with a '/'"));
    const port = service["port"];
    if (typeof port === "number" && (port < 1 || port > 65535))
      errors.push(invalidValue(childPath(path, "service.port"), port, "port is not valid: must be between 1 and 65535, inclusive"));
  }
  return errors;
}

function webhookErrors(webhook: Record<string, unknown>, path: string, v1: V1Rules | undefined, old: ApiObject | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const name = stringAt(webhook, "name") ?? "";
  if (name !== "") {
    for (const message of validateName(name, "dns1123-subdomain")) errors.push(invalidValue(childPath(path, "name"), name, message));
    if (name.split(".").length < 3)
      errors.push(invalidValue(childPath(path, "name"), name, "should be a domain with at least three segments separated by dots"));
  }
  const timeout = webhook["timeoutSeconds"];
  if (typeof timeout === "number" && (timeout < 1 || timeout > 30))
    errors.push(invalidValue(childPath(path, "timeoutSeconds"), timeout, "the timeout value must be between 1 and 30 seconds"));
  const versions = listAt(webhook, "admissionReviewVersions").filter((item): item is string => typeof item === "string");
  if (versions.length > 0) {
    const seen = new Set<string>();
    versions.forEach((version, index) => {
      if (seen.has(version)) errors.push(duplicate(indexPath(childPath(path, "admissionReviewVersions"), index), version));
      seen.add(version);
    });
    if (v1?.knownReviewVersion === true && !versions.some((version) => REVIEW_VERSIONS.includes(version))) {
      errors.push(invalidValue(childPath(path, "admissionReviewVersions"), versions, `must include at least one of ${REVIEW_VERSIONS.join(", ")}`));
    }
  }
  const sideEffects = stringAt(webhook, "sideEffects");
  if (v1?.noSideEffects === true && sideEffects !== undefined && !NO_SIDE_EFFECTS.includes(sideEffects))
    errors.push(notSupported(childPath(path, "sideEffects"), sideEffects, NO_SIDE_EFFECTS));
  errors.push(...clientConfigErrors(recordAt(webhook, "clientConfig"), childPath(path, "clientConfig")));
  errors.push(...webhookExpressionErrors(webhook, path, old));
  listAt(webhook, "rules").forEach((rule, index) => {
    const operations = listAt(rule, "operations");
    if (operations.includes("*") && operations.length > 1)
      errors.push(
        invalidValue(childPath(indexPath(childPath(path, "rules"), index), "operations"), operations, "if '*' is present, must not specify other operations"),
      );
    const resources = listAt(rule, "resources");
    if (resources.includes("*") && resources.length > 1 && !resources.every((resource) => resource === "*" || resource === "*/*")) {
      errors.push(
        forbidden(
          childPath(indexPath(childPath(path, "rules"), index), "resources"),
          "if '*' is present, must not specify other resources without subresources",
        ),
      );
    }
  });
  return errors;
}

/** The rules of a webhook configuration at a version (`unique names` applies from v1). */
export function webhookConfigurationValidator(version: "v1" | "v1beta1"): (object: ApiObject, old: ApiObject | undefined) => FieldError[] {
  return (object, old) => {
    const v1 = version === "v1" ? rulesFor(old) : undefined;
    const errors: FieldError[] = [];
    const names = new Set<string>();
    listAt(object, "webhooks").forEach((webhook, index) => {
      if (!isPlainObject(webhook)) return;
      const path = indexPath("webhooks", index);
      errors.push(...webhookErrors(webhook, path, v1, old));
      const name = stringAt(webhook, "name") ?? "";
      if (v1?.uniqueNames === true && name !== "") {
        if (names.has(name)) errors.push(duplicate(childPath(path, "name"), name));
        names.add(name);
      }
    });
    return errors;
  };
}
