import type { ApiClient, ResourceRef } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import { isPlainObject } from "../../api/object.js";
import type { Controller } from "../controller.js";
import { runReconcileLoop, Wake } from "../reconcile-loop.js";
import type { KindResolver, ParamKindResolver } from "./field-check.js";
import { typeCheckPolicy } from "./policy-type-check.js";

export { type ExpressionWarning, typeCheckPolicy } from "./policy-type-check.js";

export interface TypeCheckingControllerOptions {
  readonly client: ApiClient;
  /** The admissionregistration API group. */
  readonly group: string;
  readonly onError?: (error: unknown) => void;
  /** The served kinds' schemas, for field checks of `object`/`oldObject` (none: only kind-independent checks). */
  readonly resolveKind?: KindResolver;
  /** The served kinds' schemas by kind, for field checks of `params` (none: `params` is not checked). */
  readonly resolveParamKind?: ParamKindResolver;
}

/**
 * Writes `status.typeChecking` and `status.observedGeneration` of every ValidatingAdmissionPolicy
 * whose generation it has not checked yet (kube's type-checking status controller), on start and
 * after every policy change.
 */
export function typeCheckingController(options: TypeCheckingControllerOptions): Controller {
  const { client } = options;
  const policies: ResourceRef = { group: options.group, version: "v1", plural: "validatingadmissionpolicies" };

  async function reconcileAll(): Promise<void> {
    const { items } = await client.list(policies, "");
    for (const policy of items) {
      const status = isPlainObject(policy["status"]) ? policy["status"] : {};
      const generation = policy.metadata.generation ?? 0;
      if (status["observedGeneration"] === generation && status["typeChecking"] !== undefined) continue;
      const warnings = typeCheckPolicy(policy, options.resolveKind, options.resolveParamKind);
      // A clean policy is left alone (kube writes `typeChecking: {}`): a write here would race every client's update of a new policy.
      if (warnings.length === 0 && status["typeChecking"] === undefined) continue;
      const typeChecking = warnings.length === 0 ? {} : { expressionWarnings: warnings };
      try {
        await client.updateSubresource(policies, "", policy.metadata.name ?? "", "status", {
          ...policy,
          status: { ...status, observedGeneration: generation, typeChecking },
        });
      } catch (error) {
        if (!(error instanceof ApiError && (error.code === 409 || error.code === 404))) options.onError?.(error);
      }
    }
  }

  return {
    name: "validatingadmissionpolicy-status",
    async run(signal) {
      const wake = new Wake();
      void (async () => {
        try {
          for await (const _change of client.changed(policies, signal)) wake.poke();
        } catch (error) {
          if (!signal.aborted) options.onError?.(error);
        }
      })();
      await runReconcileLoop(signal, wake, reconcileAll, options.onError);
    },
  };
}
