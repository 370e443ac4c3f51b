import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiObject } from "../../api/object.js";
import type { KindResolver, MatchedKind, ParamKindResolver } from "./field-check.js";
import { typeCheckPolicy } from "./type-checking-controller.js";

/**
 * A schema as a tree of declared fields: an object's keys are its fields (`*` = a map's values),
 * an array holds the schema of its elements, null is a leaf.
 */
type Shape = null | readonly Shape[] | { readonly [field: string]: Shape };

/** The dotted paths of `sample` (as the registry's unknownFields spells them) that `shape` does not declare. */
function undeclared(sample: unknown, shape: Shape, path: string, into: string[]): string[] {
  if (shape === null || sample === null || typeof sample !== "object") return into;
  if (Array.isArray(shape)) {
    if (Array.isArray(sample)) sample.forEach((item, index) => undeclared(item, shape[0] ?? null, `${path}[${index}]`, into));
    return into;
  }
  if (Array.isArray(sample)) return into;
  const fields = shape as { readonly [field: string]: Shape };
  const map = fields["*"];
  for (const [key, value] of Object.entries(sample)) {
    if (map !== undefined) {
      undeclared(value, map, `${path}[${key}]`, into);
      continue;
    }
    const child = path === "" ? key : `${path}.${key}`;
    if (!(key in fields)) into.push(child);
    else undeclared(value, fields[key] ?? null, child, into);
  }
  return into;
}

function kind(group: string, version: string, name: string, shape: Shape): MatchedKind {
  return { group, version, kind: name, unknownFields: (sample) => undeclared(sample, shape, "", []) };
}

const DEPLOYMENT = kind("apps", "v1", "Deployment", {
  metadata: { name: null, labels: { "*": null } },
  spec: { replicas: null, template: { spec: { containers: [{ name: null, image: null, ports: [{ containerPort: null }] }] } } },
});
const LIMITS = kind("example.io", "v1", "Limits", { metadata: { name: null }, spec: { maxReplicas: null, images: [{ prefix: null }] } });

const resolveKind: KindResolver = (group, version, resource) => (group === "apps" && version === "v1" && resource === "deployments" ? DEPLOYMENT : undefined);
const resolveParamKind: ParamKindResolver = (apiVersion, name) => (apiVersion === "example.io/v1" && name === "Limits" ? LIMITS : undefined);

function policy(spec: Record<string, unknown>): ApiObject {
  return {
    apiVersion: "admissionregistration.orch.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: "p" },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] }] },
      ...spec,
    },
  };
}

/** kube's warning for one undefined field: the GVK, the issue, the source line, a marker under the `.`. */
function undefinedField(expression: string, field: string, gvk = "apps/v1, Kind=Deployment"): string {
  const column = expression.indexOf(`.${field}`) + 1;
  return `${gvk}: ERROR: <input>:1:${column}: undefined field '${field}'\n | ${expression}\n | ${".".repeat(column - 1)}^`;
}

function warningsOf(spec: Record<string, unknown>): { fieldRef: string; warning: string }[] {
  return typeCheckPolicy(policy(spec), resolveKind, resolveParamKind);
}

describe("policy type checking: variables and function results", () => {
  it("variables.<name> is typed as its expression: a selection on object", () => {
    const expression = "variables.spec.replicass > 0 && variables.spec.replicas > 0";
    assert.deepEqual(warningsOf({ variables: [{ name: "spec", expression: "object.spec" }], validations: [{ expression }] }), [
      { fieldRef: "spec.validations[0].expression", warning: undefinedField(expression, "replicass") },
    ]);
  });

  it("a variable's own undefined field is reported on the variable, not again where it is used", () => {
    const variable = "object.spek";
    assert.deepEqual(warningsOf({ variables: [{ name: "s", expression: variable }], validations: [{ expression: "variables.s.replicas > 0" }] }), [
      { fieldRef: "spec.variables[0].expression", warning: undefinedField(variable, "spek") },
    ]);
  });

  it("variables over variables, over list elements, and over params", () => {
    const expressions = [
      "variables.first.imagee != ''",
      "variables.containers.all(c, c.nmae != '')",
      "variables.limits.maxReplicass > 0 && variables.limits.maxReplicas > 0",
    ];
    const warnings = warningsOf({
      paramKind: { apiVersion: "example.io/v1", kind: "Limits" },
      variables: [
        { name: "containers", expression: "object.spec.template.spec.containers" },
        { name: "first", expression: "variables.containers[0]" },
        { name: "limits", expression: "params.spec" },
      ],
      validations: expressions.map((expression) => ({ expression })),
    });
    assert.deepEqual(warnings, [
      { fieldRef: "spec.validations[0].expression", warning: undefinedField(expressions[0] ?? "", "imagee") },
      { fieldRef: "spec.validations[1].expression", warning: undefinedField(expressions[1] ?? "", "nmae") },
      { fieldRef: "spec.validations[2].expression", warning: undefinedField(expressions[2] ?? "", "maxReplicass") },
    ]);
  });

  it("params is checked against paramKind's schema, reported under each matched kind", () => {
    const expression = "object.spec.replicas <= params.spec.maxReplicas && params.spec.imagess.size() > 0";
    assert.deepEqual(warningsOf({ paramKind: { apiVersion: "example.io/v1", kind: "Limits" }, validations: [{ expression }] }), [
      { fieldRef: "spec.validations[0].expression", warning: undefinedField(expression, "imagess") },
    ]);
    // A paramKind that is not served: params is not typed, nothing reported.
    assert.deepEqual(warningsOf({ paramKind: { apiVersion: "example.io/v1", kind: "Unknown" }, validations: [{ expression }] }), []);
  });

  it("function results: map gives a list of its body's type, filter keeps the element type, [0] and orValue", () => {
    const expressions = [
      "object.spec.template.spec.containers.map(c, c.ports).all(p, p[0].containerPortt > 0)",
      "object.spec.template.spec.containers.filter(c, c.name != '')[0].imagee != ''",
      "object.spec.template.spec.containers.filter(c, c.name != '').all(c, c.imagee != '')",
      "object.spec.template.spec.containers.map(c, c.name != '', c.ports[0]).exists(p, p.containerPortt == 80)",
      "object.?spec.template.orValue(object.spec.template).spekk == null",
    ];
    const warnings = warningsOf({ validations: expressions.map((expression) => ({ expression })) });
    assert.deepEqual(warnings, [
      { fieldRef: "spec.validations[0].expression", warning: undefinedField(expressions[0] ?? "", "containerPortt") },
      { fieldRef: "spec.validations[1].expression", warning: undefinedField(expressions[1] ?? "", "imagee") },
      { fieldRef: "spec.validations[2].expression", warning: undefinedField(expressions[2] ?? "", "imagee") },
      { fieldRef: "spec.validations[3].expression", warning: undefinedField(expressions[3] ?? "", "containerPortt") },
      { fieldRef: "spec.validations[4].expression", warning: undefinedField(expressions[4] ?? "", "spekk") },
    ]);
  });

  it("declared selections through variables and functions are clean; untyped results are not guessed", () => {
    const warnings = warningsOf({
      paramKind: { apiVersion: "example.io/v1", kind: "Limits" },
      variables: [
        { name: "images", expression: "object.spec.template.spec.containers.map(c, c.image)" },
        { name: "computed", expression: "object.spec.replicas + 1" },
      ],
      validations: [
        { expression: "variables.images.all(i, params.spec.images.exists(p, i.startsWith(p.prefix)))" },
        { expression: "variables.images[0] != '' && object.metadata.labels.all(k, k != '')" },
        // A variable that is not a selection: the field walk does not follow it, the typed checker types it (int) and finds nothing wrong.
        { expression: "variables.computed != 0" },
      ],
    });
    assert.deepEqual(warnings, []);
  });

  it("several undefined fields in one expression: each once, in order, joined by newlines", () => {
    const expression = "object.spec.replicass > 0 && object.spec.template.spec.containers.all(c, c.nmae != '' && object.spec.replicass < 9)";
    const [warning] = warningsOf({ validations: [{ expression }] });
    const first = undefinedField(expression, "replicass");
    const column = expression.indexOf(".nmae") + 1;
    assert.equal(
      warning?.warning,
      `${first}\nERROR: <input>:1:${column}: undefined field 'nmae'\n | ${expression}\n | ${".".repeat(column - 1)}^\nERROR: <input>:1:${expression.lastIndexOf(".replicass") + 1}: undefined field 'replicass'\n | ${expression}\n | ${".".repeat(expression.lastIndexOf(".replicass"))}^`,
    );
  });
});
