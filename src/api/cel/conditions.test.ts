import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { admissionActivation, compileCondition, evaluateCondition } from "./conditions.js";
import type { AuthorizationQuestion } from "./libraries/authorizer.js";

async function check(expression: string, inputs: Parameters<typeof admissionActivation>[0]): Promise<unknown> {
  const compiled = compileCondition(expression);
  if (compiled.kind === "error") return `compile: ${compiled.message}`;
  return evaluateCondition(compiled.program, admissionActivation(inputs));
}

const INPUTS = {
  object: { metadata: { name: "a", labels: { team: "x" } }, spec: { replicas: 3 } },
  oldObject: null,
  request: { operation: "CREATE", userInfo: { username: "alice" } },
  namespaceObject: { metadata: { name: "default" } },
};

describe("admission conditions", () => {
  it("evaluates object, oldObject, request and namespaceObject", async () => {
    assert.deepEqual(await check("object.spec.replicas > 2 && oldObject == null", INPUTS), { kind: "value", value: true });
    assert.deepEqual(await check("request.userInfo.username == 'bob'", INPUTS), { kind: "value", value: false });
    assert.deepEqual(await check("namespaceObject.metadata.name == 'default' && object.metadata.labels.team == 'x'", INPUTS), { kind: "value", value: true });
  });

  it("rejects non-bool expressions at compile time and reports runtime errors", async () => {
    assert.match(String(await check("'text'", INPUTS)), /^compile: must evaluate to bool/);
    assert.match(String(await check("unknownVar", INPUTS)), /^compile: ERROR: <input>:1:1:/);
    assert.deepEqual(await check("object.spec.missing == 1", INPUTS), { kind: "error", message: "no such key: missing" });
  });

  it("asks the authorizer through the builder calls, for a service account when named", async () => {
    const questions: AuthorizationQuestion[] = [];
    const authorize = async (question: AuthorizationQuestion) => {
      questions.push(question);
      return { decision: question.verb === "delete" ? ("allow" as const) : ("no-opinion" as const), reason: "test" };
    };
    const inputs = { ...INPUTS, authorize };
    assert.deepEqual(await check("authorizer.group('apps').resource('deployments').namespace('ns').name('d').check('delete').allowed()", inputs), {
      kind: "value",
      value: true,
    });
    assert.deepEqual(await check("authorizer.serviceAccount('kube-system', 'ctl').path('/healthz').check('get').allowed()", inputs), {
      kind: "value",
      value: false,
    });
    assert.deepEqual(questions, [
      { group: "apps", resource: "deployments", namespace: "ns", name: "d", verb: "delete" },
      { path: "/healthz", verb: "get", serviceAccount: { namespace: "kube-system", name: "ctl" } },
    ]);
  });
});
