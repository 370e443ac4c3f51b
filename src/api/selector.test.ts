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
  it("rejects a requirement without an operator", () => {
    assert.throws(() => parseFieldSelector("metadata.name"), SelectorParseError);
  });
});
