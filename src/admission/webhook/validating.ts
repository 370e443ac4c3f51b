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
 * ValidatingAdmissionWebhook: every matching hook is called at once, on the final object; the
 * request fails with the first failure in hook order (a denial, or a failed call under Fail).
 */
export function validatingWebhookPlugin(source: HookSource, context: DispatchContext): AdmissionPlugin {
  return {
    name: "ValidatingAdmissionWebhook",
    handles: () => true,
    // Synchronous when no hook matches the request (no promise made).
    validate(attributes) {
      const invocations = invocationsFor(source.current(), attributes, context);
      if (invocations.length === 0) return;
      return callHooks(attributes, invocations);
    },
  };

  async function callHooks(attributes: AdmissionAttributes, invocations: readonly Invocation[]): Promise<void> {
    for (const invocation of invocations) checkDryRun(invocation, attributes);
    const outcomes = await Promise.allSettled(
      invocations.map(async (invocation) => {
        const hook = invocation.hook;
        let verdict: Awaited<ReturnType<typeof callHook>>;
        try {
          const objects = objectsFor(invocation, attributes);
          if (!(await conditionsMatch(invocation, attributes, objects, context))) return;
          verdict = await callHook(invocation, attributes, objects, context);
        } catch (error) {
          onCallFailure(invocation, attributes, error, context, "validating");
          return;
        }
        if (!verdict.allowed) {
          const rejection = denial(hook, verdict.status);
          context.metrics.rejected(hook.name, attributes.operation, "validating", "no_error", rejection.code);
          throw rejection;
        }
        passOn(hook, verdict, attributes);
      }),
    );
    for (const outcome of outcomes) if (outcome.status === "rejected") throw outcome.reason;
  }
}
