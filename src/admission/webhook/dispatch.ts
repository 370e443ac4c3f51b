import type { Tracer } from "@opentelemetry/api";
import { randomUUID } from "node:crypto";
import { ApiError, badRequest, internalError, type StatusReason } from "../../api/errors.js";
import type { ApiObject } from "../../api/object.js";
import { admissionActivation, compileCondition, evaluateCondition, type Program } from "../../api/cel/index.js";
import { selectorMatches } from "../../api/schema/rules/values.js";
import type { Authorizer } from "../../authz/authorizer.js";
import { celAuthorizationCheck } from "../cel-authorizer.js";
import type { AdmissionAttributes } from "../interface.js";
import { WebhookCallError, type HookClients } from "./client.js";
import { inSpan } from "../../util/tracing.js";
import type { Hook } from "./hook.js";
import type { WebhookMetrics } from "./metrics.js";
import { reviewRequest, readVerdict, reviewVersionFor, type ReviewVerdict } from "./review.js";
import { isExemptResource, matchedResource, type EquivalentResource, type EquivalentResources, type HookIndex, type VersionedResource } from "./rules.js";

/** What both webhook plugins are built over. */
export interface DispatchContext {
  readonly clients: HookClients;
  /** With tracing on: each call of a hook is one span below the admission span (kube's "Call mutating/validating webhook"). */
  readonly tracer?: Tracer;
  readonly metrics: WebhookMetrics;
  /** `admission.<apiDomain>`: the AdmissionReview group. */
  readonly reviewGroup: string;
  /** `admissionregistration.<apiDomain>`: its resources are never sent to hooks. */
  readonly configurationGroup: string;
  /** `meta.<apiDomain>`: the group of the options object in a review. */
  readonly metaGroup: string;
  /** A namespace from the watch cache; undefined when it is not there. */
  readonly namespaceObject: (name: string) => ApiObject | undefined;
  readonly equivalents: EquivalentResources;
  readonly newUid?: () => string;
  /** Answers matchConditions' `authorizer` checks; without one they answer no opinion. */
  readonly authorizer?: Authorizer;
  /** Applies the served version's defaults to an object a mutating hook patched (kube decodes it with defaulting). */
  readonly applyDefaults?: (resource: VersionedResource, object: ApiObject) => void;
}

/** One hook a request matched, and the version of the request it is called with. */
export interface Invocation {
  readonly hook: Hook;
  readonly resource: VersionedResource;
  readonly equivalent: EquivalentResource | undefined;
}

function labelsOf(object: ApiObject | undefined): Record<string, string> | undefined {
  return object === undefined ? undefined : (object.metadata.labels ?? {});
}

function namespaceMatches(hook: Hook, attributes: AdmissionAttributes, context: DispatchContext): boolean {
  const selector = hook.namespaceSelector;
  if (Object.keys(selector).length === 0) return true;
  const own = attributes.resource;
  // A namespace is matched by its own labels; other cluster-scoped objects are not filtered.
  if (own.group === "" && own.resource === "namespaces" && attributes.subresource === "") {
    return selectorMatches(selector, labelsOf(attributes.object) ?? labelsOf(attributes.oldObject) ?? {});
  }
  if (attributes.namespace === "") return true;
  return selectorMatches(selector, context.namespaceObject(attributes.namespace)?.metadata.labels ?? {});
}

function objectMatches(hook: Hook, attributes: AdmissionAttributes): boolean {
  const selector = hook.objectSelector;
  if (Object.keys(selector).length === 0) return true;
  const current = labelsOf(attributes.object);
  const old = labelsOf(attributes.oldObject);
  return (current !== undefined && selectorMatches(selector, current)) || (old !== undefined && selectorMatches(selector, old));
}

/**
 * The hooks a request matches, in call order: rules (with Equivalent matching), then the
 * namespace and object selectors. Candidates come from the index by resource name, so a request
 * no hook names is not matched against any hook.
 */
export function invocationsFor(index: HookIndex, attributes: AdmissionAttributes, context: DispatchContext): Invocation[] {
  if (index.hooks.length === 0) return [];
  const own = attributes.resource;
  if (isExemptResource(own.group, own.resource, context.configurationGroup)) return [];
  let equivalents: readonly EquivalentResource[] | undefined;
  const equivalentsOf = (): readonly EquivalentResource[] => {
    equivalents ??= context.equivalents(own.group, own.version, own.resource);
    return equivalents;
  };
  const names = [own.resource, ...equivalentsOf().map((equivalent) => equivalent.resource)];
  const out: Invocation[] = [];
  for (const hook of index.candidates(names)) {
    const matched = matchedResource(hook, attributes, equivalentsOf);
    if (matched === undefined) continue;
    if (!namespaceMatches(hook, attributes, context) || !objectMatches(hook, attributes)) continue;
    out.push({ hook, ...matched });
  }
  return out;
}

/** A dry-run request must not reach a hook that may have side effects (400, as kube). */
export function checkDryRun(invocation: Invocation, attributes: AdmissionAttributes): void {
  if (!attributes.dryRun) return;
  const sideEffects = invocation.hook.sideEffects;
  if (sideEffects !== "None" && sideEffects !== "NoneOnDryRun") throw badRequest(`admission webhook "${invocation.hook.name}" does not support dry run`);
}

/** The request's objects as the hook's version of the resource. */
export function objectsFor(invocation: Invocation, attributes: AdmissionAttributes): { object: ApiObject | undefined; oldObject: ApiObject | undefined } {
  const convert = (object: ApiObject | undefined): ApiObject | undefined =>
    object === undefined || invocation.equivalent === undefined ? object : invocation.equivalent.toVersion(object);
  return { object: convert(attributes.object), oldObject: convert(attributes.oldObject) };
}

/**
 * Calls one hook and returns its checked verdict (match conditions were evaluated before, by
 * `conditionsMatch`). Counts the call (request_total, admission_duration_seconds) with the HTTP
 * code and whether it rejects the request; a failed call counts as rejected, as kube counts it
 * before the failurePolicy is applied.
 */
export async function callHook(
  invocation: Invocation,
  attributes: AdmissionAttributes,
  objects: { object: ApiObject | undefined; oldObject: ApiObject | undefined },
  context: DispatchContext,
): Promise<ReviewVerdict> {
  const hook = invocation.hook;
  const version = reviewVersionFor(hook.admissionReviewVersions);
  if (version === undefined) {
    throw new WebhookCallError(`webhook does not accept a known AdmissionReview version: ${JSON.stringify(hook.admissionReviewVersions)}`);
  }
  const uid = (context.newUid ?? randomUUID)();
  const body = reviewRequest(context.reviewGroup, version, {
    uid,
    attributes,
    resource: invocation.resource,
    object: objects.object,
    oldObject: objects.oldObject,
    metaGroup: context.metaGroup,
  });
  const started = performance.now();
  const type = hook.mutating ? "admit" : "validating";
  try {
    // Without tracing the span's attributes are not even built.
    const reply = await (context.tracer === undefined
      ? context.clients.post(hook, body, ADMISSION_POST)
      : inSpan(context.tracer, hook.mutating ? "Call mutating webhook" : "Call validating webhook", () => context.clients.post(hook, body, ADMISSION_POST), {
          configuration: hook.configuration,
          webhook: hook.name,
          resource: resourceString(attributes),
          subresource: attributes.subresource,
          operation: attributes.operation,
          UID: uid,
        }));
    const verdict = readVerdict(context.reviewGroup, version, uid, reply, hook.mutating);
    context.metrics.called(hook.name, attributes.operation, type, { code: 200, rejected: !verdict.allowed, seconds: (performance.now() - started) / 1000 });
    return verdict;
  } catch (error) {
    const code = error instanceof WebhookCallError ? error.status : 0;
    context.metrics.called(hook.name, attributes.operation, type, { code, rejected: true, seconds: (performance.now() - started) / 1000 });
    throw error;
  }
}

/** Admission hooks are called with `?timeout=<n>s`, as kube's client calls them. */
const ADMISSION_POST = { timeoutParameter: true } as const;

/** The resource as kube's span attribute prints a GroupVersionResource: `<group>/<version>, Resource=<plural>`. */
function resourceString(attributes: AdmissionAttributes): string {
  const { group, version, resource } = attributes.resource;
  return `${group === "" ? "" : `${group}/`}${version}, Resource=${resource}`;
}

const compiled = new WeakMap<Hook, readonly { readonly name: string; readonly program: Program | string }[]>();

function programsOf(hook: Hook): readonly { readonly name: string; readonly program: Program | string }[] {
  let programs = compiled.get(hook);
  if (programs === undefined) {
    programs = hook.matchConditions.map((condition) => {
      const result = compileCondition(condition.expression);
      return { name: condition.name, program: result.kind === "ok" ? result.program : result.message };
    });
    compiled.set(hook, programs);
  }
  return programs;
}

/**
 * kube's matchConditions (CEL, over `object`, `oldObject`, `request`, `namespaceObject`,
 * `authorizer`): false when any condition is false (the hook is not called); a condition that
 * fails to compile or evaluate, with none false, is a WebhookCallError (failurePolicy decides).
 * `authorizer` asks the server's authorizer about the requesting user (no opinion without one).
 */
export async function conditionsMatch(
  invocation: Invocation,
  attributes: AdmissionAttributes,
  objects: { object: ApiObject | undefined; oldObject: ApiObject | undefined },
  context: DispatchContext,
): Promise<boolean> {
  const programs = programsOf(invocation.hook);
  if (programs.length === 0) return true;
  const request = reviewRequest(context.reviewGroup, "v1", {
    uid: "",
    attributes,
    resource: invocation.resource,
    object: objects.object,
    oldObject: objects.oldObject,
    metaGroup: context.metaGroup,
  })["request"];
  const activation = admissionActivation({
    object: objects.object ?? null,
    oldObject: objects.oldObject ?? null,
    request,
    namespaceObject: attributes.namespace === "" ? null : (context.namespaceObject(attributes.namespace) ?? null),
    ...(context.authorizer === undefined ? {} : { authorize: celAuthorizationCheck(context.authorizer, attributes.user) }),
  });
  const errors: string[] = [];
  for (const { name, program } of programs) {
    if (typeof program === "string") {
      errors.push(`matchCondition "${name}": ${program}`);
      continue;
    }
    const result = await evaluateCondition(program, activation);
    if (result.kind === "value" && !result.value) return false;
    if (result.kind === "error") errors.push(`matchCondition "${name}": ${result.message}`);
  }
  if (errors.length > 0) throw new WebhookCallError(`failed to evaluate match conditions: ${errors.join("; ")}`);
  return true;
}

/** Warnings as Warning headers; audit annotations under the hook's name. */
export function passOn(hook: Hook, verdict: ReviewVerdict, attributes: AdmissionAttributes): void {
  for (const warning of verdict.warnings) attributes.warn?.(warning);
  for (const [key, value] of Object.entries(verdict.auditAnnotations)) attributes.annotate?.(`${hook.name}/${key}`, value);
}

const REASONS: Readonly<Record<number, StatusReason>> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  409: "Conflict",
  410: "Gone",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};
const KNOWN_REASONS = new Set<string>(Object.values(REASONS));

/**
 * A hook's denial as the caller sees it. Without a code it is the spec's 403 Forbidden (kube
 * answers 400; see docs/api-coverage.md); a code under 400 becomes 400, as kube does. The
 * message names the hook.
 */
export function denial(hook: Hook, status: ReviewVerdict["status"]): ApiError {
  const code = status.code === 0 ? 403 : Math.max(status.code, 400);
  const deniedBy = `admission webhook "${hook.name}" denied the request`;
  const message =
    status.message !== "" ? `${deniedBy}: ${status.message}` : status.reason !== "" ? `${deniedBy}: ${status.reason}` : `${deniedBy} without explanation`;
  const reason: StatusReason = KNOWN_REASONS.has(status.reason)
    ? (status.reason as StatusReason)
    : (REASONS[code] ?? (code < 500 ? "BadRequest" : "InternalError"));
  return new ApiError(code, reason, message);
}

/**
 * A failed call under the hook's failurePolicy: Ignore returns (the request goes on), Fail
 * throws a 500 naming the hook and why. Errors that are not call failures are thrown as they are.
 */
export function onCallFailure(
  invocation: Invocation,
  attributes: AdmissionAttributes,
  error: unknown,
  context: DispatchContext,
  type: "admit" | "validating",
): void {
  const hook = invocation.hook;
  if (error instanceof WebhookCallError) {
    if (hook.failurePolicy === "Ignore") {
      context.metrics.failedOpen(hook.name, type);
      return;
    }
    context.metrics.rejected(hook.name, attributes.operation, type, "calling_webhook_error", error.status);
    throw internalError(`failed calling webhook "${hook.name}": ${error.message}`, error);
  }
  if (error instanceof ApiError) throw error;
  context.metrics.rejected(hook.name, attributes.operation, type, "apiserver_internal_error", 0);
  throw internalError(`webhook "${hook.name}": ${error instanceof Error ? error.message : String(error)}`, error);
}
