import { compile, policyVariables, PolicyTypeChecker, type TypeCheckResult } from "../../api/cel/index.js";
import { type ApiObject, isPlainObject } from "../../api/object.js";
import {
  type FieldCheckContext,
  fieldIssues,
  gvkText,
  type Issue,
  issueText,
  type KindResolver,
  type MatchedKind,
  matchedKinds,
  type ParamKindResolver,
  parsePolicyExpression,
  pathOf,
  type TypedPath,
} from "./field-check.js";

/** One entry of `status.typeChecking.expressionWarnings`. */
export interface ExpressionWarning {
  readonly fieldRef: string;
  readonly warning: string;
}

/** The result type an expression must have: kube's return types of each policy field. */
type Wanted = "bool" | "string" | "string or null" | "unconstrained";

const ACCEPTED: Readonly<Record<Wanted, ReadonlySet<string> | undefined>> = {
  bool: new Set(["bool", "dyn"]),
  string: new Set(["string", "dyn"]),
  "string or null": new Set(["string", "dyn", "null", "null_type"]),
  unconstrained: undefined,
};

function entries(spec: Record<string, unknown>, field: string): Record<string, unknown>[] {
  const value = spec[field];
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

/** One typed check target: a matched kind (or none: `object` is dyn) with its checker, built when first needed. */
interface Target {
  readonly kind: MatchedKind | undefined;
  checker(): PolicyTypeChecker;
}

function named(kind: MatchedKind | undefined): { tree: ReturnType<NonNullable<MatchedKind["tree"]>>; name: string } | undefined {
  const tree = kind?.tree?.();
  return kind === undefined || tree === undefined ? undefined : { tree, name: `${kind.group === "" ? "core" : kind.group}.${kind.version}.${kind.kind}` };
}

/**
 * The checker for one kind; should a schema not convert to CEL types, every variable is dyn
 * (the type checking must never fail the status write, as in kube).
 */
function typedChecker(
  kind: MatchedKind | undefined,
  hasParams: boolean,
  params: MatchedKind | undefined,
  namespace: ReturnType<typeof named>,
): PolicyTypeChecker {
  try {
    return new PolicyTypeChecker({ object: named(kind), hasParams, params: named(params), namespace });
  } catch {
    return new PolicyTypeChecker({ hasParams });
  }
}

/**
 * The type-checking warnings of a policy (kube's status.typeChecking), for every expression of
 * its matchConditions, variables, validations (expression, messageExpression) and
 * auditAnnotations (valueExpression):
 * - an expression that does not compile in the untyped policy environment: the compile error
 *   (such policies are rejected at create, but may be stored from before);
 * - then, per kind the policy matches (at most ten; none: once with `object` untyped), with
 *   `object`/`oldObject` typed from the kind's schema, `params` from the paramKind's, `request`,
 *   `namespaceObject` and `variables` typed: every undefined field (field-check.ts), the
 *   checker's first other type error (`found no matching overload for '_==_' applied to '(int,
 *   string)'`), or a result of the wrong type (bool for conditions and validations, string for
 *   messages, string or null for audit annotation values), reported as `<GVK>: ERROR: …`.
 * kube's checker looks at validations only; the other fields are checked the same way here.
 */
export function typeCheckPolicy(policy: ApiObject, resolveKind?: KindResolver, resolveParamKind?: ParamKindResolver): ExpressionWarning[] {
  const spec = isPlainObject(policy["spec"]) ? policy["spec"] : {};
  const kinds = resolveKind === undefined ? [] : matchedKinds(spec, resolveKind);
  const paramKind = isPlainObject(spec["paramKind"]) ? spec["paramKind"] : undefined;
  const params =
    paramKind === undefined || resolveParamKind === undefined || typeof paramKind["apiVersion"] !== "string" || typeof paramKind["kind"] !== "string"
      ? undefined
      : resolveParamKind(paramKind["apiVersion"], paramKind["kind"]);
  const namespace = named(resolveKind?.("", "v1", "namespaces"));
  const variables = new Map<string, TypedPath | undefined>();
  const context: FieldCheckContext = { kinds, params, variables };
  const targets: Target[] = (kinds.length === 0 ? [undefined] : kinds).map((kind) => {
    let checker: PolicyTypeChecker | undefined;
    return {
      kind,
      checker: () => {
        checker ??= typedChecker(kind, paramKind !== undefined, params, namespace);
        return checker;
      },
    };
  });
  const warnings: ExpressionWarning[] = [];
  const set = policyVariables(spec);

  /** Checks one expression; returns its typed result per target (for variables), undefined when it does not compile. */
  const check = (fieldRef: string, expression: unknown, wanted: Wanted): (TypeCheckResult | undefined)[] | undefined => {
    if (typeof expression !== "string" || expression === "") return undefined;
    const compiled = compile(expression, set);
    const untypedError = compiled.kind === "error" ? compiled.message : !accepts(wanted, compiled.program.type) ? `must evaluate to ${wanted}` : undefined;
    if (untypedError !== undefined) {
      warnings.push({ fieldRef, warning: untypedError });
      return undefined;
    }
    const messages: string[] = [];
    const results = targets.map((target) => {
      const result = target.checker().check(expression);
      const fields = fieldIssues(expression, context, target.kind);
      const issues = [...fields, ...typedIssues(expression, result, wanted, fields.length > 0)];
      const texts = [...new Map(issues.sort((a, b) => a.offset - b.offset).map((issue) => [issue.text, issue])).keys()];
      if (texts.length > 0) messages.push(target.kind === undefined ? texts.join("\n") : `${gvkText(target.kind)}: ${texts.join("\n")}`);
      return result;
    });
    if (messages.length > 0) warnings.push({ fieldRef, warning: messages.join("\n") });
    return results;
  };

  for (const [index, item] of entries(spec, "matchConditions").entries()) check(`spec.matchConditions[${index}].expression`, item["expression"], "bool");
  // Variables in order: each is typed as its expression for the ones after it (dyn when it does not check).
  for (const [index, item] of entries(spec, "variables").entries()) {
    const results = check(`spec.variables[${index}].expression`, item["expression"], "unconstrained");
    const name = item["name"];
    if (typeof name !== "string") continue;
    const ast = typeof item["expression"] === "string" ? parsePolicyExpression(item["expression"]) : undefined;
    variables.set(name, ast === undefined ? undefined : pathOf(ast, new Map(), context));
    for (const [position, target] of targets.entries()) {
      const result = results?.[position];
      target.checker().addVariable(name, result?.kind === "ok" ? result.type : "dyn");
    }
  }
  for (const [index, item] of entries(spec, "validations").entries()) {
    check(`spec.validations[${index}].expression`, item["expression"], "bool");
    check(`spec.validations[${index}].messageExpression`, item["messageExpression"], "string");
  }
  for (const [index, item] of entries(spec, "auditAnnotations").entries())
    check(`spec.auditAnnotations[${index}].valueExpression`, item["valueExpression"], "string or null");
  return warnings;
}

/**
 * The typed checker's issue, when there is one (an undefined field only when the field walk found none: the
 * walk lists every one, the checker stops at the first), or the wrong result type's.
 */
function typedIssues(expression: string, result: TypeCheckResult, wanted: Wanted, fieldsListed: boolean): Issue[] {
  if (result.kind === "error")
    return result.undefinedField && fieldsListed ? [] : [{ offset: result.offset, text: issueText(expression, result.offset, result.message) }];
  if (accepts(wanted, result.type)) return [];
  return [{ offset: 0, text: issueText(expression, 0, `must evaluate to ${wanted}, but the expression's type is ${result.type}`) }];
}

function accepts(wanted: Wanted, type: string): boolean {
  return ACCEPTED[wanted]?.has(type) ?? true;
}
