import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { admissionActivation, compileCondition, evaluateCondition, POLICY_VARIABLES } from "./conditions.js";
import { compile, type VariableSet } from "./environment.js";
import type { AuthorizationQuestion } from "./libraries/authorizer.js";

const SET: VariableSet = { name: "library-extended-test", variables: ["self"] };

async function run(expression: string, self: unknown = {}): Promise<unknown> {
  const compiled = compile(expression, SET);
  if (compiled.kind === "error") return `compile: ${compiled.message}`;
  const result = await compiled.program.evaluate({ self });
  return result.kind === "value" ? result.value : `error: ${result.message}`;
}

/** [expression, expected value or "error: …"/"compile: …" text]. */
const TABLE: readonly (readonly [string, unknown])[] = [
  // strings extension (cel-go version 2, kube 1.29+): every function exists
  ["'hello'.charAt(4)", "o"],
  ["'hello'.charAt(5)", ""],
  ["'hello'.charAt(-1)", "error: index out of range: -1"],
  ["'hello mellow'.indexOf('ello')", 1n],
  ["'hello mellow'.lastIndexOf('ello')", 7n],
  ["'TacoCat'.lowerAscii()", "tacocat"],
  ["'TacoCat'.upperAscii()", "TACOCAT"],
  ["'hello hello'.replace('he', 'we', 1)", "wello hello"],
  ["'a b c'.split(' ')", ["a", "b", "c"]],
  ["'tacocat'.substring(4)", "cat"],
  ["'tacocat'.substring(2, 1)", "error"],
  ["'  \\ttrim\\n '.trim()", "trim"],
  ["['a', 'b'].join('-')", "a-b"],
  // strings.quote
  ["strings.quote('single-quote with \"double quote\"')", '"single-quote with \\"double quote\\""'],
  ["strings.quote('two escape sequences \\a\\n')", '"two escape sequences \\a\\n"'],
  ["strings.quote('tab\\there\\\\')", '"tab\\there\\\\"'],
  ["strings.quote(1)", "compile"],
  // format
  ["'this is a string: %s\\nand an integer: %d'.format(['str', 42])", "this is a string: str\nand an integer: 42"],
  ["'a double substituted with %%s: %s'.format([64.2])", "a double substituted with %s: 64.2"],
  ["'%f'.format([3.14])", "3.140000"],
  ["'%.3f'.format([1.0])", "1.000"],
  ["'%e'.format([2.71828])", "2.718280e+00"],
  ["'%b %x %X %o'.format([5, 26, 26, 30])", "101 1a 1A 36"],
  ["'%x'.format(['Hi'])", "4869"],
  ["'%b'.format([true])", "1"],
  ["'%s %s %s'.format([true, null, [1, 'a']])", 'true null [1, "a"]'],
  ["'%s'.format([duration('1h45m47s')])", "6347s"],
  ["'%s'.format([timestamp('2023-02-03T23:31:20Z')])", "2023-02-03T23:31:20Z"],
  ["'%f'.format([1.0 / 0.0])", "Infinity"],
  ["'%d'.format(['x'])", "error: error during formatting: decimal clause can only be used on integers, was given string"],
  ["'%f'.format([1])", "error: error during formatting: fixed-point clause can only be used on doubles, was given int"],
  ["'%o'.format([1.5])", "error: error during formatting: octal clause can only be used on integers, was given double"],
  ["'%b'.format(['x'])", "error: error during formatting: only integers and bools can be formatted as binary, was given string"],
  ["'%x'.format([1.5])", "error: error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double"],
  ["'%d %d'.format([1])", "error: index 1 out of range"],
  ["'%q'.format([1])", 'error: could not parse formatting clause: unrecognized formatting clause "q"'],
  ["'x'.format('y')", "compile"],
  // semver (kube 1.33)
  ["isSemver('1.0.0')", true],
  ["isSemver('0.1.0-alpha.1+build.5')", true],
  ["isSemver('hello')", false],
  ["isSemver('v1.0')", false],
  ["isSemver('v1.0', true)", true],
  ["isSemver('01.01.01')", false],
  ["isSemver('01.01.01', true)", true],
  ["isSemver('1.0-rc', true)", false],
  ["semver('1.2.3').major()", 1n],
  ["semver('1.2.3').minor()", 2n],
  ["semver('1.2.3').patch()", 3n],
  ["semver('v1.0', true).compareTo(semver('1.0.0'))", 0n],
  ["semver('1.2.3').compareTo(semver('2.0.0'))", -1n],
  ["semver('1.2.3').compareTo(semver('0.1.2'))", 1n],
  ["semver('1.0.0-alpha').isLessThan(semver('1.0.0'))", true],
  ["semver('1.0.0-alpha.2').isGreaterThan(semver('1.0.0-alpha.10'))", false],
  ["semver('1.0.0-alpha.beta').isGreaterThan(semver('1.0.0-alpha.1'))", true],
  ["semver('1.0.0+a').compareTo(semver('1.0.0+b'))", 0n],
  ["semver('200K')", "error: No Major.Minor.Patch elements found"],
  ["semver('1.02.3')", 'error: Minor number must not contain leading zeroes "02"'],
  ["semver('1.2.x')", 'error: Invalid character(s) found in patch number "x"'],
  ["semver('1.2.3-01')", 'error: Numeric PreRelease version must not contain leading zeroes "01"'],
  ["semver('1.2.3-')", "error: Prerelease is empty"],
  ["semver(1)", "compile"],
  // two-variable comprehensions (kube 1.32)
  ["[1, 2, 3].all(i, v, v > i)", true],
  ["[3, 0].all(i, v, v > i)", false],
  ["{'a': 1, 'b': 2}.exists(k, v, k == 'b' && v == 2)", true],
  ["{'a': 1, 'b': 2}.exists(k, v, k == 'c')", false],
  ["[1, 2].existsOne(i, v, v == 2)", true],
  ["[2, 2].existsOne(i, v, v == 2)", false],
  ["[10, 20].transformList(i, v, i * v)", [0n, 20n]],
  ["[10, 20, 30].transformList(i, v, v > 10, v)", [20n, 30n]],
  ["{'a': 1, 'b': 2}.transformMap(k, v, v * 10)['b']", 20n],
  ["{'a': 1, 'b': 2}.transformMap(k, v, k != 'a', v).size()", 1n],
  ["[1, 2].transformMapEntry(i, v, {string(v): i})['2']", 1n],
  ["[1, 1].transformMapEntry(i, v, {v: i})", "error: insert failed: key 1 already exists"],
  ["[0, 1].all(i, v, 1 / v > 0)", "error: division by zero"],
  ["[0, 1].all(i, v, v > 0 && 1 / v > 0)", false],
  ["[0, 1].exists(i, v, 1 / v > 0)", true],
  ["self.all(k, v, v == 1)", true],
  ["[1, 2].all(i, v, v)", "compile: ERROR: <input>:1:1: all() predicate must return bool"],
  ["[1].all(i, i, true)", "compile"],
  ["1.all(i, v, true)", "compile"],
  ["{'a': 1}.all(k, v, k + v == 1)", "compile"],
  // kube's environment has no math extension and no strings version 3
  ["math.greatest(1, 2)", "compile"],
  ["'abc'.reverse()", "compile"],
];

describe("CEL: kube's strings v2, semver and two-variable comprehensions", () => {
  for (const [expression, expected] of TABLE) {
    it(expression, async () => {
      const actual = await run(expression, { a: 1n, b: 1n });
      if (expected === "compile" || expected === "error") assert.match(String(actual), new RegExp(`^${expected}: `));
      else assert.deepEqual(actual, expected);
    });
  }
});

describe("CEL: authorizer.requestResource and selectors", () => {
  const request = { resource: { group: "apps", version: "v1", resource: "deployments" }, subResource: "scale", namespace: "ns", name: "web" };
  const activation = (asked: AuthorizationQuestion[]) =>
    admissionActivation({
      object: null,
      oldObject: null,
      namespaceObject: null,
      request,
      authorize: async (question) => {
        asked.push(question);
        return question.fieldSelector === "bad selector"
          ? { decision: "no-opinion", reason: "", error: "invalid selector" }
          : { decision: "allow", reason: "ok" };
      },
    });
  const evaluate = async (expression: string, asked: AuthorizationQuestion[]): Promise<unknown> => {
    const compiled = compileCondition(expression, POLICY_VARIABLES);
    if (compiled.kind === "error") return `compile: ${compiled.message}`;
    const result = await evaluateCondition(compiled.program, activation(asked));
    return result.kind === "value" ? result.value : `error: ${result.message}`;
  };

  it("requestResource asks about the request's own group, resource, subresource, namespace and name", async () => {
    const asked: AuthorizationQuestion[] = [];
    assert.equal(await evaluate("authorizer.requestResource.check('custom-verb').allowed()", asked), true);
    assert.deepEqual(asked, [{ group: "apps", resource: "deployments", subresource: "scale", namespace: "ns", name: "web", verb: "custom-verb" }]);
  });

  it("requestResource of a service account keeps the request's scope and asks as the account", async () => {
    const asked: AuthorizationQuestion[] = [];
    assert.equal(await evaluate("authorizer.serviceAccount('kube-system', 'ctl').requestResource.check('get').allowed()", asked), true);
    assert.deepEqual(asked[0]?.serviceAccount, { namespace: "kube-system", name: "ctl" });
    assert.equal(asked[0]?.resource, "deployments");
  });

  it("fieldSelector and labelSelector are passed on; an errored decision says why", async () => {
    const asked: AuthorizationQuestion[] = [];
    const expression =
      "authorizer.group('').resource('pods').namespace('ns').fieldSelector('spec.nodeName=n1').labelSelector('app=web').check('list').allowed()";
    assert.equal(await evaluate(expression, asked), true);
    assert.equal(asked[0]?.fieldSelector, "spec.nodeName=n1");
    assert.equal(asked[0]?.labelSelector, "app=web");
    assert.equal(await evaluate("authorizer.group('').resource('pods').fieldSelector('bad selector').check('list').errored()", asked), true);
    assert.equal(
      await evaluate("authorizer.group('').resource('pods').fieldSelector('bad selector').check('list').error() == 'invalid selector'", asked),
      true,
    );
  });

  it("requestResource is a resource check, not a string", async () => {
    assert.match(String(await evaluate("authorizer.requestResource == 'x'", [])), /^compile: /);
  });
});
