import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiObject } from "../../api/object.js";
import { KUBERNETES_PROFILE } from "../../api/profile.js";
import { builtinCatalogue } from "../../api/schema/catalogue.js";
import { objectSchemaFor } from "../../api/schema/object-schema.js";
import type { KindResolver, MatchedKind, ParamKindResolver } from "./field-check.js";
import { typeCheckPolicy } from "./policy-type-check.js";

const catalogue = builtinCatalogue(KUBERNETES_PROFILE);

/** A served built-in kind with its catalogue schema (the tree the server's resolver gives). */
function builtin(group: string, version: string, kind: string): MatchedKind {
  const schema = objectSchemaFor(catalogue, { group, version, kind });
  if (schema?.tree === undefined) throw new Error(`no schema for ${kind}`);
  const tree = schema.tree.bind(schema);
  return { group, version, kind, unknownFields: (sample) => schema.unknownFields({ metadata: {}, ...sample }, { prune: false }), tree };
}

const KINDS: Readonly<Record<string, MatchedKind>> = {
  "apps/v1/deployments": builtin("apps", "v1", "Deployment"),
  "apps/v1/statefulsets": builtin("apps", "v1", "StatefulSet"),
  "/v1/namespaces": builtin("", "v1", "Namespace"),
  "/v1/configmaps": builtin("", "v1", "ConfigMap"),
  "apiextensions.k8s.io/v1/customresourcedefinitions": builtin("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
};
const resolveKind: KindResolver = (group, version, resource) => KINDS[`${group}/${version}/${resource}`];
const resolveParamKind: ParamKindResolver = (apiVersion, kind) => (apiVersion === "v1" && kind === "ConfigMap" ? KINDS["/v1/configmaps"] : undefined);

function policy(spec: Record<string, unknown>, resources: readonly string[] = ["deployments"], group = "apps"): ApiObject {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: "p" },
    spec: { matchConstraints: { resourceRules: [{ apiGroups: [group], apiVersions: ["v1"], operations: ["CREATE"], resources }] }, ...spec },
  };
}

function warningsOf(spec: Record<string, unknown>, resources?: readonly string[], group?: string): { fieldRef: string; warning: string }[] {
  return typeCheckPolicy(policy(spec, resources, group), resolveKind, resolveParamKind);
}

/** kube's issue text: position (1-based column of `at`'s first occurrence, or column 1), message, source line, marker. */
function issue(expression: string, at: string | undefined, message: string): string {
  const column = at === undefined ? 1 : expression.indexOf(at) + 1;
  assert.ok(column > 0, `${at} in ${expression}`);
  return `ERROR: <input>:1:${column}: ${message}\n | ${expression}\n | ${".".repeat(column - 1)}^`;
}

const DEPLOYMENT = "apps/v1, Kind=Deployment";

describe("policy type checking of whole expressions (typed object, params, variables)", () => {
  it("reports operators and functions applied to the wrong types, in cel-go's words at the operator or call", () => {
    const cases: [string, string, string][] = [
      ['object.spec.replicas == "3"', "==", "found no matching overload for '_==_' applied to '(int, string)'"],
      ["size(object.spec.replicas) > 0", "(", "found no matching overload for 'size' applied to '(int)'"],
      ["object.metadata.name.startsWith(1)", "(", "found no matching overload for 'startsWith' applied to 'string.(int)'"],
      ["object.spec.template.spec.containers.all(c, c.image > 3)", ">", "found no matching overload for '_>_' applied to '(string, int)'"],
    ];
    const warnings = warningsOf({ validations: cases.map(([expression]) => ({ expression })) });
    assert.deepEqual(
      warnings,
      cases.map(([expression, at, message], index) => ({
        fieldRef: `spec.validations[${index}].expression`,
        warning: `${DEPLOYMENT}: ${issue(expression, at, message)}`,
      })),
    );
  });

  it("variables are checked too: a string plus an int", () => {
    const expression = "object.metadata.name + 1";
    assert.deepEqual(warningsOf({ variables: [{ name: "n", expression }], validations: [{ expression: "true" }] }), [
      {
        fieldRef: "spec.variables[0].expression",
        warning: `${DEPLOYMENT}: ${issue(expression, "+", "found no matching overload for '_+_' applied to '(string, int)'")}`,
      },
    ]);
  });

  it("params of a ConfigMap paramKind: data values are strings", () => {
    const expression = "object.spec.replicas > params.data.maxReplicas";
    assert.deepEqual(warningsOf({ paramKind: { apiVersion: "v1", kind: "ConfigMap" }, validations: [{ expression }] }), [
      {
        fieldRef: "spec.validations[0].expression",
        warning: `${DEPLOYMENT}: ${issue(expression, ">", "found no matching overload for '_>_' applied to '(int, string)'")}`,
      },
    ]);
    // int(...) of the string is the right way: clean.
    assert.deepEqual(
      warningsOf({ paramKind: { apiVersion: "v1", kind: "ConfigMap" }, validations: [{ expression: "object.spec.replicas <= int(params.data.maxReplicas)" }] }),
      [],
    );
  });

  it("result types: validations and matchConditions bool, messageExpression string, audit annotation values string", () => {
    const replicas = "object.spec.replicas";
    const warnings = warningsOf({
      matchConditions: [{ name: "m", expression: replicas }],
      validations: [{ expression: replicas, messageExpression: "object.spec.template.spec.containers" }],
      auditAnnotations: [{ key: "k", valueExpression: "object.spec.paused" }],
    });
    const wrong = (expression: string, wanted: string, type: string): string =>
      `${DEPLOYMENT}: ${issue(expression, undefined, `must evaluate to ${wanted}, but the expression's type is ${type}`)}`;
    assert.deepEqual(warnings, [
      { fieldRef: "spec.matchConditions[0].expression", warning: wrong(replicas, "bool", "int") },
      { fieldRef: "spec.validations[0].expression", warning: wrong(replicas, "bool", "int") },
      { fieldRef: "spec.validations[0].messageExpression", warning: wrong("object.spec.template.spec.containers", "string", "list<schema.core.v1.Container>") },
      { fieldRef: "spec.auditAnnotations[0].valueExpression", warning: wrong("object.spec.paused", "string or null", "bool") },
    ]);
  });

  it("a variable's checked type flows into the expressions after it", () => {
    const expression = "variables.replicas == 'three'";
    const warnings = warningsOf({
      variables: [
        { name: "replicas", expression: "object.spec.replicas" },
        { name: "images", expression: "object.spec.template.spec.containers.map(c, c.image)" },
        { name: "count", expression: "size(variables.images) + variables.replicas" },
      ],
      validations: [
        { expression },
        { expression: "variables.images.all(i, i.startsWith('r/')) && variables.count > 0" },
        { expression: "variables.count.startsWith('1')" },
      ],
    });
    assert.deepEqual(warnings, [
      {
        fieldRef: "spec.validations[0].expression",
        warning: `${DEPLOYMENT}: ${issue(expression, "==", "found no matching overload for '_==_' applied to '(int, string)'")}`,
      },
      {
        fieldRef: "spec.validations[2].expression",
        warning: `${DEPLOYMENT}: ${issue("variables.count.startsWith('1')", "(", "found no matching overload for 'startsWith' applied to 'int.(string)'")}`,
      },
    ]);
  });

  it("each matched kind is checked and reported on its own line, in kube's order", () => {
    const expression = 'object.spec.replicas == "3"';
    const [warning] = warningsOf({ validations: [{ expression }] }, ["statefulsets", "deployments"]);
    const text = issue(expression, "==", "found no matching overload for '_==_' applied to '(int, string)'");
    assert.equal(warning?.warning, `${DEPLOYMENT}: ${text}\napps/v1, Kind=StatefulSet: ${text}`);
  });

  it("correct expressions over object, oldObject, params, request, namespaceObject and authorizer give no warning", () => {
    const expressions = [
      "object.spec.replicas <= 5 && object.metadata.name.startsWith('web')",
      "oldObject == null || oldObject.spec.replicas <= object.spec.replicas",
      "object.spec.template.spec.containers.all(c, c.image.startsWith('registry/') && c.ports.all(p, p.containerPort > 1024))",
      "!has(object.spec.strategy) || object.spec.strategy.type != 'Recreate'",
      "object.metadata.labels.all(k, k.size() < 64) && object.?metadata.annotations['a'].orValue('') == ''",
      "object.spec.template.spec.containers.exists(c, c.resources.limits['cpu'] != '')",
      // int-or-string is dyn: either kind of comparison checks.
      "object.spec.strategy.rollingUpdate.maxSurge == 1 || object.spec.strategy.rollingUpdate.maxSurge == '25%'",
      "!has(object.metadata.creationTimestamp) || object.metadata.creationTimestamp < timestamp('2030-01-01T00:00:00Z')",
      "object.metadata.deletionTimestamp == null && object.spec.template != null",
      "request.userInfo.groups.exists(g, g == 'admins') && request.operation == 'CREATE' && !request.dryRun",
      "namespaceObject.metadata.labels['env'] == 'prod' && params.data.size() > 0 && int(params.data.max) > 0",
      "authorizer.group('apps').resource('deployments').namespace(object.metadata.namespace).check('create').allowed()",
      "quantity('1').isLessThan(quantity('2')) && '10.0.0.1'.startsWith('10.') && url('https://a/b').getHost() == 'a'",
    ];
    const warnings = warningsOf({
      paramKind: { apiVersion: "v1", kind: "ConfigMap" },
      validations: expressions.map((expression) => ({ expression, messageExpression: "'replicas: ' + string(object.spec.replicas)" })),
      auditAnnotations: [
        { key: "a", valueExpression: "object.metadata.name" },
        { key: "b", valueExpression: "null" },
      ],
    });
    assert.deepEqual(warnings, []);
  });

  it("recursive definitions end: a CustomResourceDefinition's schema is typed to every depth", () => {
    const warnings = warningsOf(
      {
        validations: [
          { expression: "object.spec.versions.all(v, v.schema.openAPIV3Schema.properties.all(k, p, p.properties.all(n, q, q.type != '')))" },
          { expression: "object.spec.versions[0].schema.openAPIV3Schema.properties['spec'].maxItems == 'many'" },
        ],
      },
      ["customresourcedefinitions"],
      "apiextensions.k8s.io",
    );
    const expression = "object.spec.versions[0].schema.openAPIV3Schema.properties['spec'].maxItems == 'many'";
    assert.deepEqual(warnings, [
      {
        fieldRef: "spec.validations[1].expression",
        warning: `apiextensions.k8s.io/v1, Kind=CustomResourceDefinition: ${issue(expression, "==", "found no matching overload for '_==_' applied to '(int, string)'")}`,
      },
    ]);
  });
});
