import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import { validateName } from "../../validation.js";
import { childPath, duplicate, goStrings, indexPath, invalidValue, notSupported, required } from "../field-path.js";
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
const ALL_SIDE_EFFECTS = ["None", "NoneOnDryRun", "Some", "Unknown"];

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

/** The parts of a URL kube's checks look at, split as Go's url.Parse splits them. */
interface UrlParts {
  readonly scheme: string;
  readonly host: string;
  readonly user: string | undefined;
  readonly fragment: string;
  readonly query: string;
}

/**
 * Go's url.Parse, as far as webhook URLs need it: a scheme only when the text before the first
 * ':' is one (else the whole text is a path), fragment after '#', query after '?', an authority
 * after '//' with user info before its last '@'. Returns the parse error text Go gives otherwise.
 */
export function parseGoUrl(url: string): UrlParts | string {
  let rest = url;
  const hash = rest.indexOf("#");
  const fragment = hash < 0 ? "" : rest.slice(hash + 1);
  if (hash >= 0) rest = rest.slice(0, hash);
  let scheme = "";
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(rest);
  if (rest.startsWith(":")) return `parse "${url}": missing protocol scheme`;
  if (schemeMatch !== null) {
    scheme = (schemeMatch[1] ?? "").toLowerCase();
    rest = rest.slice(schemeMatch[0].length);
  }
  const question = rest.indexOf("?");
  const query = question < 0 ? "" : rest.slice(question + 1);
  if (question >= 0) rest = rest.slice(0, question);
  if (scheme === "") {
    const colon = rest.indexOf(":");
    const slash = rest.indexOf("/");
    if (colon >= 0 && (slash < 0 || colon < slash)) return `parse "${url}": first path segment in URL cannot contain colon`;
  }
  let host = "";
  let user: string | undefined;
  if (rest.startsWith("//") && (scheme !== "" || !rest.startsWith("///"))) {
    const authorityEnd = rest.indexOf("/", 2);
    const authority = authorityEnd < 0 ? rest.slice(2) : rest.slice(2, authorityEnd);
    const at = authority.lastIndexOf("@");
    host = at < 0 ? authority : authority.slice(at + 1);
    if (at >= 0) user = authority.slice(0, at);
  }
  return { scheme, host, user, fragment, query };
}

const URL_FORM = "; desired format: https://host[/path]";

/** kube's ValidateWebhookURL (https forced): each part is reported with the part's own value. */
function webhookUrlErrors(url: string, at: string): FieldError[] {
  const parts = parseGoUrl(url);
  if (typeof parts === "string") return [required(at, `url must be a valid URL: ${parts}${URL_FORM}`)];
  const errors: FieldError[] = [];
  if (parts.scheme !== "https") errors.push(invalidValue(at, parts.scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  if (parts.host === "") errors.push(invalidValue(at, parts.host, `host must be specified${URL_FORM}`));
  if (parts.user !== undefined) errors.push(invalidValue(at, parts.user, "user information is not permitted in the URL"));
  if (parts.fragment !== "") errors.push(invalidValue(at, parts.fragment, "fragments are not permitted in the URL"));
  if (parts.query !== "") errors.push(invalidValue(at, parts.query, "query parameters are not permitted in the URL"));
  return errors;
}

/** kube's ValidateWebhookService: port 1–65535, a path of non-empty DNS-subdomain segments after a leading '/'. */
function webhookServiceErrors(service: Record<string, unknown>, at: string): FieldError[] {
  const errors: FieldError[] = [];
  const port = service["port"];
  if (typeof port === "number" && (port < 1 || port > 65535))
    errors.push(invalidValue(childPath(at, "port"), port, "port is not valid: must be between 1 and 65535, inclusive"));
  const path = stringAt(service, "path");
  if (path === undefined || path === "" || path === "/") return errors;
  const pathAt = childPath(at, "path");
  if (path === "//") return [...errors, invalidValue(pathAt, path, "segment[0] may not be empty")];
  if (!path.startsWith("/")) errors.push(invalidValue(pathAt, path, "must start with a '/'"));
  let toCheck = path.slice(1);
  if (toCheck.endsWith("/")) toCheck = toCheck.slice(0, -1);
  toCheck.split("/").forEach((segment, index) => {
    if (segment === "") errors.push(invalidValue(pathAt, path, `segment[${index}] may not be empty`));
    else for (const message of validateName(segment, "dns1123-subdomain")) errors.push(invalidValue(pathAt, path, `segment[${index}]: ${message}`));
  });
  return errors;
}

/** A webhook `clientConfig` (admission and CRD conversion webhooks): exactly one of url and service, each as kube checks it. */
export function clientConfigErrors(config: Record<string, unknown> | undefined, path: string): FieldError[] {
  if (config === undefined) return [];
  const url = stringAt(config, "url");
  const service = recordAt(config, "service");
  if ((url === undefined) === (service === undefined)) return [required(path, "exactly one of url or service is required")];
  if (url !== undefined) return webhookUrlErrors(url, childPath(path, "url"));
  return service === undefined ? [] : webhookServiceErrors(service, childPath(path, "service"));
}

/** kube's validateResources: which wildcard forms (all resources, all with sub-resources, x/all, all/x) may not be mixed. */
function resourcesErrors(resources: readonly unknown[], at: string): FieldError[] {
  const errors: FieldError[] = [];
  if (resources.length === 0) return [required(at)];
  const withWildcardSubresource = new Set<string>();
  const withWildcardResource = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSubresource = false;
  resources.forEach((item, index) => {
    const value = typeof item === "string" ? item : "";
    if (value === "") {
      errors.push(required(indexPath(at, index)));
      return;
    }
    if (value === "*/*") doubleWildcard = true;
    if (value === "*") singleWildcard = true;
    const slash = value.indexOf("/");
    if (slash < 0) {
      withoutSubresource = value !== "*";
      return;
    }
    const resource = value.slice(0, slash);
    const subresource = value.slice(slash + 1);
    if (withWildcardSubresource.has(resource))
      errors.push(invalidValue(indexPath(at, index), value, `if '${resource}/*' is present, must not specify ${value}`));
    if (withWildcardResource.has(subresource))
      errors.push(invalidValue(indexPath(at, index), value, `if '*/${subresource}' is present, must not specify ${value}`));
    if (subresource === "*") withWildcardSubresource.add(resource);
    if (resource === "*") withWildcardResource.add(subresource);
  });
  if (resources.length > 1 && doubleWildcard) errors.push(invalidValue(at, goStrings(resources), "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSubresource)
    errors.push(invalidValue(at, goStrings(resources), "if '*' is present, must not specify other resources without subresources"));
  return errors;
}

/** kube's validateRuleWithOperations (webhook rules and policies' resource rules); unknown operations and scopes are the schema's. */
export function ruleWithOperationsErrors(rule: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const operations = listAt(rule, "operations");
  if (operations.length === 0) errors.push(required(childPath(path, "operations")));
  if (operations.length > 1 && operations.includes("*"))
    errors.push(
      invalidValue(
        childPath(path, "operations"),
        goStrings(operations, "admissionregistration.OperationType"),
        "if '*' is present, must not specify other operations",
      ),
    );
  const groups = listAt(rule, "apiGroups");
  if (groups.length === 0) errors.push(required(childPath(path, "apiGroups")));
  if (groups.length > 1 && groups.includes("*"))
    errors.push(invalidValue(childPath(path, "apiGroups"), goStrings(groups), "if '*' is present, must not specify other API groups"));
  const versions = listAt(rule, "apiVersions");
  if (versions.length === 0) errors.push(required(childPath(path, "apiVersions")));
  if (versions.length > 1 && versions.includes("*"))
    errors.push(invalidValue(childPath(path, "apiVersions"), goStrings(versions), "if '*' is present, must not specify other API versions"));
  versions.forEach((version, index) => {
    if (version === "") errors.push(required(indexPath(childPath(path, "apiVersions"), index)));
  });
  errors.push(...resourcesErrors(listAt(rule, "resources"), childPath(path, "resources")));
  return errors;
}

/** kube's validateAdmissionReviewVersions: at least one, no repeats, DNS-1035 labels, and (v1) one the server speaks. */
function reviewVersionErrors(webhook: Record<string, unknown>, path: string, requireKnown: boolean): FieldError[] {
  const at = childPath(path, "admissionReviewVersions");
  const versions = listAt(webhook, "admissionReviewVersions");
  if (versions.length === 0) return [required(at, `must specify one of ${REVIEW_VERSIONS.join(", ")}`)];
  const errors: FieldError[] = [];
  const seen = new Set<unknown>();
  versions.forEach((version, index) => {
    if (seen.has(version)) {
      errors.push(invalidValue(indexPath(at, index), version, "duplicate version"));
      return;
    }
    seen.add(version);
    if (typeof version === "string")
      for (const message of validateName(version, "dns1035-label")) errors.push(invalidValue(indexPath(at, index), version, message));
  });
  if (requireKnown && !versions.some((version) => typeof version === "string" && REVIEW_VERSIONS.includes(version)))
    errors.push(invalidValue(at, goStrings(versions), `must include at least one of ${REVIEW_VERSIONS.join(", ")}`));
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
  listAt(webhook, "rules").forEach((rule, index) => errors.push(...ruleWithOperationsErrors(rule, indexPath(childPath(path, "rules"), index))));
  const allowedSideEffects = v1?.noSideEffects === true ? NO_SIDE_EFFECTS : ALL_SIDE_EFFECTS;
  const sideEffects = stringAt(webhook, "sideEffects");
  if (sideEffects === undefined) errors.push(required(childPath(path, "sideEffects"), `must specify one of ${allowedSideEffects.join(", ")}`));
  else if (!allowedSideEffects.includes(sideEffects)) errors.push(notSupported(childPath(path, "sideEffects"), sideEffects, allowedSideEffects));
  const timeout = webhook["timeoutSeconds"];
  if (typeof timeout === "number" && (timeout < 1 || timeout > 30))
    errors.push(invalidValue(childPath(path, "timeoutSeconds"), timeout, "the timeout value must be between 1 and 30 seconds"));
  errors.push(...clientConfigErrors(recordAt(webhook, "clientConfig"), childPath(path, "clientConfig")));
  errors.push(...webhookExpressionErrors(webhook, path, old));
  errors.push(...reviewVersionErrors(webhook, path, v1?.knownReviewVersion ?? false));
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
