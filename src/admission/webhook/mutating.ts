import { isDeepStrictEqual } from "node:util";
import fastJsonPatch, { type Operation } from "fast-json-patch";
import { internalError } from "../../api/errors.js";
import { cloneObject, isPlainObject, type ApiObject } from "../../api/object.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../interface.js";
import {
  callHook,
  checkDryRun,
  conditionsMatch,
  denial,
  invocationsFor,
  objectsFor,
  onCallFailure,
  passOn,
  type DispatchContext,
  type Invocation,
} from "./dispatch.js";
import type { HookSource } from "./source.js";

/**
 * One request's reinvocation bookkeeping (kube's webhook reinvoke context): which IfNeeded hooks
 * have run, which must run again, and the object as the last webhook pass left it.
 */
interface Reinvocation {
  round: number;
  readonly invokedIfNeeded: Set<string>;
  reinvoke: Set<string>;
  requested: boolean;
  lastOutput: ApiObject | undefined;
}

/** Replaces an object's contents in place: plugins and the store hold the object itself. */
function replaceContents(target: ApiObject, source: ApiObject): void {
  for (const key of Object.keys(target)) delete (target as Record<string, unknown>)[key];
  Object.assign(target, source);
}

/**
 * MutatingAdmissionWebhook: matching hooks are called one after another (configurations by name,
 * hooks in listed order), each seeing the previous one's patch. A hook that changes the object
 * asks the chain for one more mutating pass (built-in plugins run again); in it, only IfNeeded
 * hooks called before the change run again. Records `mutation.`/`patch.webhook.admission.<domain>`
 * audit annotations per call.
 */
export function mutatingWebhookPlugin(source: HookSource, context: DispatchContext, annotationDomain: string): AdmissionPlugin {
  const requests = new WeakMap<AdmissionAttributes, Reinvocation>();
  return {
    name: "MutatingAdmissionWebhook",
    handles: () => true,
    reinvocationRequested: (attributes) => requests.get(attributes)?.requested === true,
    // Synchronous when no hook matches the request (no promise made).
    mutate(attributes) {
      const invocations = invocationsFor(source.current(), attributes, context);
      if (invocations.length === 0 && !requests.has(attributes)) return;
      return callHooks(attributes, invocations);
    },
  };

  async function callHooks(attributes: AdmissionAttributes, invocations: readonly Invocation[]): Promise<void> {
    let state = requests.get(attributes);
    if (state === undefined) {
      state = { round: 0, invokedIfNeeded: new Set(), reinvoke: new Set(), requested: false, lastOutput: undefined };
      requests.set(attributes, state);
    } else {
      state.round += 1;
      state.requested = false;
      // Built-in plugins changed the object since the webhooks' pass: every IfNeeded hook runs again.
      if (!isDeepStrictEqual(state.lastOutput, attributes.object)) state.reinvoke = new Set(state.invokedIfNeeded);
    }
    const reinvoking = state.round > 0;
    for (const [position, invocation] of invocations.entries()) {
      if (reinvoking && !state.reinvoke.has(invocation.hook.id)) continue;
      const changed = await mutateOnce(invocation, attributes, context);
      if (changed !== undefined) annotateCall(attributes, annotationDomain, state.round, position, invocation, changed);
      if (changed?.mutated === true) {
        // IfNeeded hooks called before this change see the object again; only the first pass asks for another.
        state.reinvoke = new Set(state.invokedIfNeeded);
        if (state.round === 0) state.requested = true;
      }
      if (invocation.hook.reinvocationPolicy === "IfNeeded") state.invokedIfNeeded.add(invocation.hook.id);
    }
    state.lastOutput = attributes.object === undefined ? undefined : cloneObject(attributes.object);
  }
}

interface CallOutcome {
  readonly mutated: boolean;
  readonly patch: readonly unknown[] | undefined;
}

/** Calls one hook and applies its patch; undefined when the call failed and its policy is Ignore. */
async function mutateOnce(invocation: Invocation, attributes: AdmissionAttributes, context: DispatchContext): Promise<CallOutcome | undefined> {
  checkDryRun(invocation, attributes);
  const hook = invocation.hook;
  const objects = objectsFor(invocation, attributes);
  let verdict: Awaited<ReturnType<typeof callHook>>;
  try {
    if (!(await conditionsMatch(invocation, attributes, objects, context))) return undefined;
    verdict = await callHook(invocation, attributes, objects, context);
  } catch (error) {
    onCallFailure(invocation, attributes, error, context, "admit");
    return undefined;
  }
  if (!verdict.allowed) {
    const rejection = denial(hook, verdict.status);
    context.metrics.rejected(hook.name, attributes.operation, "admit", "no_error", rejection.code);
    throw rejection;
  }
  passOn(hook, verdict, attributes);
  if (verdict.patch === undefined || verdict.patch.length === 0 || objects.object === undefined || attributes.object === undefined) {
    return { mutated: false, patch: undefined };
  }
  let patched: unknown;
  try {
    patched = fastJsonPatch.applyPatch(cloneObject(objects.object), verdict.patch as Operation[], true, true).newDocument;
  } catch (error) {
    context.metrics.rejected(hook.name, attributes.operation, "admit", "apiserver_internal_error", 0);
    throw internalError(
      `JSON patch from webhook "${hook.name}" could not be applied: ${(error instanceof Error ? error.message : String(error)).split("\n")[0] ?? ""}`,
      error,
    );
  }
  if (!isPlainObject(patched) || !isPlainObject(patched["metadata"])) {
    context.metrics.rejected(hook.name, attributes.operation, "admit", "apiserver_internal_error", 0);
    throw internalError(`JSON patch from webhook "${hook.name}" removed the object's metadata`);
  }
  // kube decodes the patched object with defaulting: fields a hook adds get their defaults (a new container's imagePullPolicy, …).
  context.applyDefaults?.(invocation.resource, patched as ApiObject);
  const mutated = !isDeepStrictEqual(patched, objects.object);
  if (mutated) {
    const result = patched as ApiObject;
    replaceContents(attributes.object, invocation.equivalent === undefined ? result : invocation.equivalent.fromVersion(result));
  }
  return { mutated, patch: verdict.patch };
}

function annotateCall(attributes: AdmissionAttributes, domain: string, round: number, position: number, invocation: Invocation, outcome: CallOutcome): void {
  const suffix = `round_${round}_index_${position}`;
  const who = { configuration: invocation.hook.configuration, webhook: invocation.hook.name };
  attributes.annotate?.(`mutation.webhook.admission.${domain}/${suffix}`, JSON.stringify({ ...who, mutated: outcome.mutated }));
  if (outcome.mutated && outcome.patch !== undefined) {
    attributes.annotate?.(`patch.webhook.admission.${domain}/${suffix}`, JSON.stringify({ ...who, patch: outcome.patch, patchType: "JSONPatch" }), "Request");
  }
}
