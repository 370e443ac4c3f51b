import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { AdmissionAttributes } from "../interface.js";
import { WebhookCallError } from "./client.js";
import type { VersionedResource } from "./rules.js";

/** The AdmissionReview versions the server speaks, in its order of preference. */
export const REVIEW_VERSIONS = ["v1", "v1beta1"] as const;
export type ReviewVersion = (typeof REVIEW_VERSIONS)[number];

/** The first version in the hook's `admissionReviewVersions` the server speaks (kube's choice). */
export function reviewVersionFor(accepted: readonly string[]): ReviewVersion | undefined {
  return accepted.find((version): version is ReviewVersion => (REVIEW_VERSIONS as readonly string[]).includes(version));
}

/** What one review is about: the request as the hook sees it (possibly another version of it). */
export interface ReviewSubject {
  readonly uid: string;
  readonly attributes: AdmissionAttributes;
  readonly resource: VersionedResource;
  readonly object: ApiObject | undefined;
  readonly oldObject: ApiObject | undefined;
  /** The meta group (`meta.<apiDomain>`) the options object is spelled in. */
  readonly metaGroup: string;
}

const OPTIONS_KIND = { CREATE: "CreateOptions", UPDATE: "UpdateOptions", DELETE: "DeleteOptions", CONNECT: undefined } as const;

/** An AdmissionReview request body in `version` of `group` (`admission.<apiDomain>`). */
export function reviewRequest(group: string, version: ReviewVersion, subject: ReviewSubject): Record<string, unknown> {
  const { attributes, resource } = subject;
  const own = attributes.resource;
  const user = attributes.user;
  const optionsKind = OPTIONS_KIND[attributes.operation];
  const request: Record<string, unknown> = {
    uid: subject.uid,
    kind: { group: resource.group, version: resource.version, kind: resource.kind },
    resource: { group: resource.group, version: resource.version, resource: resource.resource },
    requestKind: { group: own.group, version: own.version, kind: own.kind },
    requestResource: { group: own.group, version: own.version, resource: own.resource },
    operation: attributes.operation,
    userInfo: user === undefined ? { username: "" } : { username: user.name, uid: user.uid, groups: user.groups, extra: user.extra },
    object: subject.object ?? null,
    oldObject: subject.oldObject ?? null,
    dryRun: attributes.dryRun,
    options: optionsKind === undefined ? null : { apiVersion: `${subject.metaGroup}/v1`, kind: optionsKind, ...(attributes.dryRun ? { dryRun: ["All"] } : {}) },
  };
  if (attributes.subresource !== "") {
    request["subResource"] = attributes.subresource;
    request["requestSubResource"] = attributes.subresource;
  }
  if (attributes.name !== "") request["name"] = attributes.name;
  if (attributes.namespace !== "") request["namespace"] = attributes.namespace;
  return { apiVersion: `${group}/${version}`, kind: "AdmissionReview", request };
}

/** A hook's verdict, checked. */
export interface ReviewVerdict {
  readonly allowed: boolean;
  /** The Status of a denial, as the hook gave it. */
  readonly status: { readonly code: number; readonly message: string; readonly reason: string };
  /** JSON patch operations (mutating hooks only); undefined without a patch. */
  readonly patch: readonly unknown[] | undefined;
  readonly warnings: readonly string[];
  readonly auditAnnotations: Readonly<Record<string, string>>;
}

/**
 * Checks a hook's reply (kube's VerifyAdmissionResponse): the same review version (strict for
 * v1), `response.uid` equal to the request's, a boolean `allowed`, a base64 JSONPatch only from
 * a mutating hook. Anything else is a WebhookCallError.
 */
export function readVerdict(group: string, version: ReviewVersion, uid: string, body: unknown, mutating: boolean): ReviewVerdict {
  if (!isPlainObject(body)) throw new WebhookCallError("received invalid webhook response: not an AdmissionReview object");
  if (version === "v1" && (body["apiVersion"] !== `${group}/v1` || body["kind"] !== "AdmissionReview")) {
    throw new WebhookCallError(
      `received invalid webhook response: expected ${group}/v1, Kind=AdmissionReview, got ${String(body["apiVersion"])}, Kind=${String(body["kind"])}`,
    );
  }
  const response = body["response"];
  if (!isPlainObject(response)) throw new WebhookCallError("received invalid webhook response: webhook response was absent");
  if (response["uid"] !== uid) {
    throw new WebhookCallError(`received invalid webhook response: expected response.uid="${uid}", got "${String(response["uid"])}"`);
  }
  if (typeof response["allowed"] !== "boolean") throw new WebhookCallError("received invalid webhook response: response.allowed must be a boolean");
  const patch = readPatch(response, version, mutating);
  const status = isPlainObject(response["status"]) ? response["status"] : {};
  const warnings = Array.isArray(response["warnings"]) ? response["warnings"].filter((item): item is string => typeof item === "string") : [];
  const annotations: Record<string, string> = {};
  if (isPlainObject(response["auditAnnotations"])) {
    for (const [key, value] of Object.entries(response["auditAnnotations"])) if (typeof value === "string") annotations[key] = value;
  }
  return {
    allowed: response["allowed"],
    status: {
      code: typeof status["code"] === "number" ? status["code"] : 0,
      message: typeof status["message"] === "string" ? status["message"] : "",
      reason: typeof status["reason"] === "string" ? status["reason"] : "",
    },
    patch,
    warnings,
    auditAnnotations: annotations,
  };
}

function readPatch(response: Record<string, unknown>, version: ReviewVersion, mutating: boolean): readonly unknown[] | undefined {
  const encoded = response["patch"];
  if (encoded === undefined || encoded === null || encoded === "") return undefined;
  if (!mutating) throw new WebhookCallError("received invalid webhook response: validating webhook may not return a patch");
  const patchType = response["patchType"];
  if (patchType !== "JSONPatch" && !(version === "v1beta1" && patchType === undefined)) {
    throw new WebhookCallError(`received invalid webhook response: patchType must be JSONPatch, got ${JSON.stringify(patchType)}`);
  }
  if (typeof encoded !== "string") throw new WebhookCallError("received invalid webhook response: patch must be a base64 string");
  let operations: unknown;
  try {
    operations = JSON.parse(Buffer.from(encoded, "base64").toString("utf8"));
  } catch {
    throw new WebhookCallError("received invalid webhook response: patch is not base64 of JSON");
  }
  if (!Array.isArray(operations)) throw new WebhookCallError("received invalid webhook response: patch must be a JSON array of operations");
  return operations;
}
