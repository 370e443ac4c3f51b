import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector, SelectorParseError } from "./selector.js";

const LABELS = { app: "web", tier: "front", version: "3" };

const LABEL_CASES: ReadonlyArray<readonly [string, boolean]> = [
  ["", true],
  ["app=web", true],
  ["app==web", true],
  ["app=db", false],
  ["app!=db", true],
  ["app!=web", false],
  ["missing!=x", true],
  ["app in (web,db)", true],
  ["app in (db)", false],
  ["app notin (db, cache)", true],
  ["app notin (web)", false],
  ["missing notin (web)", true],
  ["tier", true],
  ["missing", false],
  ["!missing", true],
  ["!app", false],
  ["app=web,tier=front", true],
  ["app=web,tier=back", false],
  ["app in (web,db),!missing,tier", true],
  ["version>2", true],
  ["version<2", false],
  ["example.com/key=x", false],
];

describe("parseLabelSelector() and matchesLabels()", () => {
  for (const [selector, want] of LABEL_CASES) {
    it(`matches "${selector}" → ${want}`, () => {
      assert.equal(matchesLabels(parseLabelSelector(selector), LABELS), want);
    });
  }
  for (const bad of ["app=", "a b=c", "=x", "app in (a", "app=web,", "version>x", "app=we b"]) {
    it(`rejects "${bad}"`, () => {
      if (bad === "app=") {
        // An empty value is legal in kube (`app=` matches app with empty value).
        assert.equal(matchesLabels(parseLabelSelector(bad), { app: "" }), true);
        return;
      }
      assert.throws(() => parseLabelSelector(bad), SelectorParseError);
    });
  }
});

describe("parseLabelSelector() answers kube-apiserver's texts", () => {
  const VALUE_RULE =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  const cases: ReadonlyArray<readonly [string, string]> = [
    ["a in (b", "unable to parse requirement: found '', expected: ',' or ')'"],
    ["a===", "unable to parse requirement: found '=', expected: identifier"],
    ["a=b=c", "found '=', expected: ',' or 'end of string'"],
    ["a b", "unable to parse requirement: found 'b', expected: '=', '!=', '==', 'in', notin'"],
    ["a in b", "unable to parse requirement: found 'b' expected: '('"],
    ["=x", "found '=', expected: !, identifier, or 'end of string'"],
    ["a,", "found '', expected: identifier after ','"],
    ["a=b,,c", "found ',', expected: identifier after ','"],
    ["!a=b", "found '=', expected: ',' or 'end of string'"],
    ["a>x", `unable to parse requirement: values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer`],
    ["a=-bad", `unable to parse requirement: values[0][a]: Invalid value: "-bad": ${VALUE_RULE}`],
    [
      "a_=b",
      `unable to parse requirement: <nil>: Invalid value: "a_": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ],
  ];
  for (const [selector, message] of cases) {
    it(`"${selector}" → ${message.slice(0, 60)}…`, () => {
      assert.throws(() => parseLabelSelector(selector), { name: "SelectorParseError", message });
    });
  }

  it("reads kube's grammar: keywords as values, empty values in sets, no space before a set", () => {
    assert.deepEqual(parseLabelSelector("x in (in)"), [{ op: "in", key: "x", values: ["in"] }]);
    assert.deepEqual(parseLabelSelector("a in (x,,y)"), [{ op: "in", key: "a", values: ["", "x", "y"] }]);
    assert.deepEqual(parseLabelSelector("a notin(b , c)"), [{ op: "notin", key: "a", values: ["b", "c"] }]);
    assert.deepEqual(parseLabelSelector("a in ()"), [{ op: "in", key: "a", values: [""] }]);
  });
});

describe("parseFieldSelector() and matchesFields()", () => {
  const fields = new Map([
    ["metadata.name", "a,b"],
    ["metadata.namespace", "default"],
    ["status.phase", "Running"],
  ]);
  const cases: ReadonlyArray<readonly [string, boolean]> = [
    ["metadata.namespace=default", true],
    ["metadata.namespace==default", true],
    ["metadata.namespace!=default", false],
    ["metadata.name=a\\,b", true],
    ["metadata.namespace=default,status.phase=Running", true],
    ["metadata.namespace=default,status.phase!=Running", false],
    ["spec.nodeName=", true],
  ];
  for (const [selector, want] of cases) {
    it(`matches "${selector}" → ${want}`, () => {
      assert.equal(matchesFields(parseFieldSelector(selector), fields), want);
    });
  }
  it("rejects a requirement without an operator, naming the whole selector then the term (kube's text); skips empty terms", () => {
    assert.throws(() => parseFieldSelector("metadata.name"), SelectorParseError);
    assert.throws(() => parseFieldSelector("a=b,c"), { message: "invalid selector: 'a=b,c'; can't understand 'c'" });
    assert.deepEqual(parseFieldSelector("a=b,,"), [{ field: "a", op: "=", value: "b" }]);
  });
});
