import type { ApiClient, ResourceRef } from "../../api/client.js";
import { compile, compileCondition, policyVariables } from "../../api/cel/index.js";
import { ApiError } from "../../api/errors.js";
import { type ApiObject, isPlainObject } from "../../api/object.js";
import type { Controller } from "../controller.js";
import { runReconcileLoop, Wake } from "../reconcile-loop.js";
import {
  type FieldCheckContext,
  fieldWarning,
  type KindResolver,
  matchedKinds,
  type ParamKindResolver,
  parsePolicyExpression,
  pathOf,
  type TypedPath,
} from "./field-check.js";

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

interface ExpressionWarning {
  readonly fieldRef: string;
  readonly warning: string;
}

function entries(spec: Record<string, unknown>, field: string): Record<string, unknown>[] {
  const value = spec[field];
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

/**
 * The type-checking warnings of a policy: every expression that does not compile in the policy
 * environment or whose type is wrong (conditions and validations must be bool; such policies are
 * rejected at create, but may be stored from before), then, with `resolveKind`, every field
 * selection on `object`/`oldObject` a matched kind's schema does not declare, on `params` its
 * paramKind's schema does not declare (with `resolveParamKind`), also through `variables.<name>`
 * (field-check.ts).
 */
export function typeCheckPolicy(policy: ApiObject, resolveKind?: KindResolver, resolveParamKind?: ParamKindResolver): ExpressionWarning[] {
  const spec = isPlainObject(policy["spec"]) ? policy["spec"] : {};
  const kinds = resolveKind === undefined ? [] : matchedKinds(spec, resolveKind);
  const paramKind = isPlainObject(spec["paramKind"]) ? spec["paramKind"] : undefined;
  const params =
    paramKind === undefined || resolveParamKind === undefined || typeof paramKind["apiVersion"] !== "string" || typeof paramKind["kind"] !== "string"
      ? undefined
      : resolveParamKind(paramKind["apiVersion"], paramKind["kind"]);
  const variables = new Map<string, TypedPath | undefined>();
  const context: FieldCheckContext = { kinds, params, variables };
  const warnings: ExpressionWarning[] = [];
  const check = (fieldRef: string, expression: unknown, condition: boolean): void => {
    if (typeof expression !== "string" || expression === "") return;
    const set = policyVariables(spec);
    const result = condition ? compileCondition(expression, set) : compile(expression, set);
    if (result.kind === "error") {
      warnings.push({ fieldRef, warning: result.message });
      return;
    }
    const warning = fieldWarning(expression, context);
    if (warning !== undefined) warnings.push({ fieldRef, warning });
  };
  for (const [index, item] of entries(spec, "matchConditions").entries()) check(`spec.matchConditions[${index}].expression`, item["expression"], true);
  // Variables in order: each is typed as its expression (when that is a typed path) for the ones after it.
  for (const [index, item] of entries(spec, "variables").entries()) {
    check(`spec.variables[${index}].expression`, item["expression"], false);
    const ast = typeof item["expression"] === "string" ? parsePolicyExpression(item["expression"]) : undefined;
    if (typeof item["name"] === "string") variables.set(item["name"], ast === undefined ? undefined : pathOf(ast, new Map(), context));
  }
  for (const [index, item] of entries(spec, "validations").entries()) {
    check(`spec.validations[${index}].expression`, item["expression"], true);
    check(`spec.validations[${index}].messageExpression`, item["messageExpression"], false);
  }
  for (const [index, item] of entries(spec, "auditAnnotations").entries())
    check(`spec.auditAnnotations[${index}].valueExpression`, item["valueExpression"], false);
  return warnings;
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
