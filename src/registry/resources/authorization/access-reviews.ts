import { ApiError, badRequest, invalid, type FieldError } from "../../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../../api/object.js";
import { apiGroup, type Profile } from "../../../api/profile.js";
import type { UserInfo } from "../../../request/context.js";
import type { CreateOnlyHandler, ResourceDefinition, Scope } from "../../definition.js";
import { defineResource } from "../define.js";

/** What an access review asks about: a resource request or a non-resource one (the authorizer's attributes). */
export type ReviewAttributes =
  | {
      readonly kind: "resource";
      readonly verb: string;
      readonly group: string;
      readonly version: string;
      readonly namespace: string;
      readonly resource: string;
      readonly subresource: string;
      readonly name: string;
    }
  | { readonly kind: "non-resource"; readonly verb: string; readonly path: string };

export interface ReviewDecision {
  readonly kind: "allow" | "deny" | "no-opinion";
  readonly reason: string;
}

/** A SelfSubjectRulesReview's `status`. */
export interface RulesReviewStatus {
  readonly resourceRules: readonly {
    readonly verbs: readonly string[];
    readonly apiGroups?: readonly string[];
    readonly resources?: readonly string[];
    readonly resourceNames?: readonly string[];
  }[];
  readonly nonResourceRules: readonly { readonly verbs: readonly string[]; readonly nonResourceURLs?: readonly string[] }[];
  readonly incomplete: boolean;
  readonly evaluationError?: string;
}

/** What the access reviews need from the authorization stage. */
export interface AccessReviewer {
  /** The server's decision (its authorizer, all modes in order) for `user`. */
  check(user: UserInfo, attributes: ReviewAttributes): Promise<ReviewDecision>;
  /** The rules `user` holds in `namespace`, as far as the modes can list them. */
  rules(user: UserInfo, namespace: string): Promise<RulesReviewStatus>;
}

/**
 * The access-review APIs' seat for the authorization stage: the registry is built with it (the
 * review resources are part of the registry) and the composition root fills it once the
 * authorizers, which follow the registry's feeds, exist. Reviews before that answer 503.
 */
export class AccessReviewerSlot implements AccessReviewer {
  private reviewer: AccessReviewer | undefined;

  fill(reviewer: AccessReviewer): void {
    this.reviewer = reviewer;
  }

  private current(): AccessReviewer {
    if (this.reviewer === undefined) throw new ApiError(503, "ServiceUnavailable", "the authorizer is not ready yet");
    return this.reviewer;
  }

  check(user: UserInfo, attributes: ReviewAttributes): Promise<ReviewDecision> {
    return this.current().check(user, attributes);
  }

  rules(user: UserInfo, namespace: string): Promise<RulesReviewStatus> {
    return this.current().rules(user, namespace);
  }
}

function text(record: Record<string, unknown>, key: string): string {
  const value = record[key];
  return typeof value === "string" ? value : "";
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function specOf(object: ApiObject): Record<string, unknown> {
  return isPlainObject(object["spec"]) ? object["spec"] : {};
}

/** The attributes a review's spec asks about; field errors when it names neither or both kinds. */
function attributesOf(spec: Record<string, unknown>, errors: FieldError[]): ReviewAttributes | undefined {
  const resource = spec["resourceAttributes"];
  const nonResource = spec["nonResourceAttributes"];
  if (isPlainObject(resource) && isPlainObject(nonResource)) {
    errors.push({
      type: "FieldValueInvalid",
      field: "spec.nonResourceAttributes",
      message: "Invalid value: cannot be specified in combination with resourceAttributes",
    });
    return undefined;
  }
  if (isPlainObject(resource)) {
    return {
      kind: "resource",
      verb: text(resource, "verb"),
      group: text(resource, "group"),
      version: text(resource, "version"),
      namespace: text(resource, "namespace"),
      resource: text(resource, "resource"),
      subresource: text(resource, "subresource"),
      name: text(resource, "name"),
    };
  }
  if (isPlainObject(nonResource)) return { kind: "non-resource", verb: text(nonResource, "verb"), path: text(nonResource, "path") };
  errors.push({
    type: "FieldValueInvalid",
    field: "spec.resourceAttributes",
    message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
  });
  return undefined;
}

function extraOf(value: unknown): Record<string, string[]> | undefined {
  if (!isPlainObject(value)) return undefined;
  const extra: Record<string, string[]> = {};
  for (const [key, values] of Object.entries(value)) extra[key] = strings(values);
  return Object.keys(extra).length === 0 ? undefined : extra;
}

function statusOf(decision: ReviewDecision): Record<string, unknown> {
  const status: Record<string, unknown> = { allowed: decision.kind === "allow" };
  if (decision.kind === "deny") status["denied"] = true;
  if (decision.reason !== "") status["reason"] = decision.reason;
  return status;
}

function anonymousIfMissing(user: UserInfo | undefined): UserInfo {
  return user ?? { name: "system:anonymous", groups: ["system:unauthenticated"] };
}

/**
 * The access-review kinds of `authorization.<apiDomain>/v1`, create-only and never stored: POST
 * one and get it back with `status.allowed` (and `status.denied`, `status.reason`), or for a
 * SelfSubjectRulesReview the caller's rules in `spec.namespace`.
 * - SubjectAccessReview: any user (`spec.user`, `spec.groups`, `spec.extra`, `spec.uid`).
 * - SelfSubjectAccessReview: the caller.
 * - LocalSubjectAccessReview: any user, in the path's namespace, which
 *   `spec.resourceAttributes.namespace` must match (422 Invalid, kube's `must match metadata.namespace`, otherwise).
 * - SelfSubjectRulesReview: the caller's rules in `spec.namespace`.
 */
export function accessReviewResources(profile: Profile, reviewer: AccessReviewer): ResourceDefinition[] {
  const group = apiGroup(profile, "authorization");
  const version = "v1";
  const answer = (kind: string, spec: Record<string, unknown>, status: Record<string, unknown>, namespace?: string): ApiObject => ({
    apiVersion: `${group}/${version}`,
    kind,
    metadata: namespace === undefined ? {} : { namespace },
    spec,
    status,
  });
  const handler = (kind: string, create: CreateOnlyHandler["create"]): CreateOnlyHandler => ({ group, version, kind, create });
  const define = (kind: string, plural: string, scope: Scope, create: CreateOnlyHandler["create"]): ResourceDefinition =>
    defineResource({ group, version, kind, plural, scope, virtual: handler(kind, create) });

  const subjectReview =
    (kind: string, local: boolean): CreateOnlyHandler["create"] =>
    async ({ object, namespace }) => {
      const spec = specOf(object);
      const errors: FieldError[] = [];
      const attributes = attributesOf(spec, errors);
      const name = text(spec, "user");
      const groups = strings(spec["groups"]);
      if (name === "" && groups.length === 0)
        errors.push({ type: "FieldValueInvalid", field: "spec.user", message: 'Invalid value: "": at least one of user or group must be specified' });
      // kube's ValidateLocalSubjectAccessReview, in its order: the review's namespace is the
      // request's (metadata.namespace), which the attributes must name; no non-resource attributes.
      if (local && attributes?.kind === "resource" && attributes.namespace !== namespace)
        errors.push({
          type: "FieldValueInvalid",
          field: "spec.resourceAttributes.namespace",
          message: `Invalid value: ${JSON.stringify(attributes.namespace)}: must match metadata.namespace`,
        });
      if (local && attributes?.kind === "non-resource")
        errors.push({ type: "FieldValueInvalid", field: "spec.nonResourceAttributes", message: "Invalid value: disallowed on this kind of request" });
      if (errors.length > 0 || attributes === undefined) throw invalid(kind, group, "", errors);
      const uid = text(spec, "uid");
      const extra = extraOf(spec["extra"]);
      const user: UserInfo = { name, groups, ...(uid === "" ? {} : { uid }), ...(extra === undefined ? {} : { extra }) };
      return answer(kind, spec, statusOf(await reviewer.check(user, attributes)), local ? namespace : undefined);
    };

  return [
    define("LocalSubjectAccessReview", "localsubjectaccessreviews", "Namespaced", subjectReview("LocalSubjectAccessReview", true)),
    define("SelfSubjectAccessReview", "selfsubjectaccessreviews", "Cluster", async ({ object, user }) => {
      const spec = specOf(object);
      const errors: FieldError[] = [];
      const attributes = attributesOf(spec, errors);
      if (attributes === undefined) throw invalid("SelfSubjectAccessReview", group, "", errors);
      return answer("SelfSubjectAccessReview", spec, statusOf(await reviewer.check(anonymousIfMissing(user), attributes)));
    }),
    define("SelfSubjectRulesReview", "selfsubjectrulesreviews", "Cluster", async ({ object, user }) => {
      const spec = specOf(object);
      const namespace = text(spec, "namespace");
      if (namespace === "") throw badRequest("no namespace on request");
      const status = await reviewer.rules(anonymousIfMissing(user), namespace);
      return answer("SelfSubjectRulesReview", spec, { ...status });
    }),
    define("SubjectAccessReview", "subjectaccessreviews", "Cluster", subjectReview("SubjectAccessReview", false)),
  ];
}
