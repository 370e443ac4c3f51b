import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ApiError } from "../../api/errors.js";
import {
  parseQueryBoolean,
  queryBoolean,
  queryDryRun,
  queryFieldSelector,
  queryFieldValidation,
  queryIncludeObject,
  queryInteger,
  queryLabelSelector,
  queryPropagationPolicy,
  queryResourceVersion,
  queryResourceVersionMatch,
  queryTimeout,
} from "./index.js";

const q = (text: string): URLSearchParams => new URLSearchParams(text);

/** Asserts `run` throws an ApiError with this code and reason whose message or causes name `parameter`. */
function assertRefused(run: () => unknown, parameter: string, code = 400): ApiError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ApiError, `expected an ApiError, got ${String(caught)}`);
  assert.equal(caught.code, code);
  assert.equal(caught.reason, code === 400 ? "BadRequest" : "Invalid");
  const fields = (caught.details?.causes ?? []).map((cause) => cause.field);
  assert.ok(fields.includes(parameter) || caught.message.includes(parameter), `${caught.message} does not name ${parameter}`);
  return caught;
}

describe("parseQueryBoolean(): kube's query conversion of booleans", () => {
  const cases: [string, boolean][] = [
    ["true", true],
    ["True", true],
    ["TRUE", true],
    ["1", true],
    ["", true],
    ["maybe", true],
    ["yes", true],
    ["t", true],
    ["f", true],
    ["no", true],
    ["false", false],
    ["False", false],
    ["FALSE", false],
    ["fAlSe", false],
    ["0", false],
    ["00", true],
    [" false", true],
  ];
  for (const [text, want] of cases) it(`${JSON.stringify(text)} → ${String(want)}`, () => assert.equal(parseQueryBoolean(text), want));
});

describe("queryBoolean(): a parameter's first value", () => {
  const cases: [string, boolean | undefined][] = [
    ["", undefined],
    ["other=1", undefined],
    ["watch", true],
    ["watch=", true],
    ["watch=True", true],
    ["watch=maybe", true],
    ["watch=false", false],
    ["watch=0", false],
    ["watch=0&watch=1", false],
    ["watch=1&watch=0", true],
  ];
  for (const [text, want] of cases) it(`?${text} → ${String(want)}`, () => assert.equal(queryBoolean(q(text), "watch"), want));
});

describe("queryInteger(): Go's strconv.ParseInt, 400 naming the parameter", () => {
  const good: [string, number | undefined][] = [
    ["", undefined],
    ["limit=0", 0],
    ["limit=500", 500],
    ["limit=-1", -1],
    ["limit=%2B7", 7],
    ["limit=007", 7],
    ["limit=9223372036854775807", Number(2n ** 63n - 1n)],
  ];
  for (const [text, want] of good) it(`?${text} → ${String(want)}`, () => assert.equal(queryInteger(q(text), "limit"), want));
  const bad: [string, string][] = [
    ["limit=abc", 'invalid value for limit: strconv.ParseInt: parsing "abc": invalid syntax'],
    ["limit=", 'invalid value for limit: strconv.ParseInt: parsing "": invalid syntax'],
    ["limit=1.5", 'invalid value for limit: strconv.ParseInt: parsing "1.5": invalid syntax'],
    ["limit=1e3", 'invalid value for limit: strconv.ParseInt: parsing "1e3": invalid syntax'],
    ["limit=%201", 'invalid value for limit: strconv.ParseInt: parsing " 1": invalid syntax'],
    ["limit=0x10", 'invalid value for limit: strconv.ParseInt: parsing "0x10": invalid syntax'],
    ["limit=1_000", 'invalid value for limit: strconv.ParseInt: parsing "1_000": invalid syntax'],
    ["limit=9223372036854775808", 'invalid value for limit: strconv.ParseInt: parsing "9223372036854775808": value out of range'],
  ];
  for (const [text, message] of bad) it(`?${text} → 400`, () => assert.equal(assertRefused(() => queryInteger(q(text), "limit"), "limit").message, message));
  it("names whichever parameter it parses", () => {
    assertRefused(() => queryInteger(q("timeoutSeconds=soon"), "timeoutSeconds"), "timeoutSeconds");
    assertRefused(() => queryInteger(q("gracePeriodSeconds=x"), "gracePeriodSeconds"), "gracePeriodSeconds");
  });
});

describe("queryTimeout(): the request's `timeout` duration", () => {
  const good: [string, number | undefined][] = [
    ["", undefined],
    ["timeout=", undefined],
    ["timeout=30s", 30_000],
    ["timeout=1m30s", 90_000],
    ["timeout=250ms", 250],
    ["timeout=0", 0],
  ];
  for (const [text, want] of good) it(`?${text} → ${String(want)}`, () => assert.equal(queryTimeout(q(text)), want));
  for (const text of ["timeout=30", "timeout=abc", "timeout=1d"]) {
    it(`?${text} → 400 in kube's words`, () => {
      const error = assertRefused(() => queryTimeout(q(text)), "timeout");
      assert.match(error.message, /^invalid timeout specified in the request URL - time: invalid duration "/);
    });
  }
});

describe("queryLabelSelector() and queryFieldSelector()", () => {
  it("parse good selectors and treat absent or empty as everything", () => {
    assert.deepEqual(queryLabelSelector(q("")), []);
    assert.deepEqual(queryLabelSelector(q("labelSelector=")), []);
    assert.equal(queryLabelSelector(q("labelSelector=app%3Dweb,tier!%3Ddb")).length, 2);
    assert.deepEqual(queryFieldSelector(q("")), []);
    assert.equal(queryFieldSelector(q("fieldSelector=metadata.name%3Dx")).length, 1);
  });
  it("refuse selectors that do not parse with 400 naming the parameter", () => {
    assertRefused(() => queryLabelSelector(q("labelSelector=a%20in%20(b")), "labelSelector");
    assertRefused(() => queryFieldSelector(q("fieldSelector=metadata.name%20in%20(x)")), "fieldSelector");
  });
});

describe("queryResourceVersion()", () => {
  it("returns a revision or 0 as given, undefined when absent or empty", () => {
    assert.equal(queryResourceVersion(q("")), undefined);
    assert.equal(queryResourceVersion(q("resourceVersion=")), undefined);
    assert.equal(queryResourceVersion(q("resourceVersion=0")), "0");
    assert.equal(queryResourceVersion(q("resourceVersion=42")), "42");
  });
  it("refuses other values with 400 naming resourceVersion", () => {
    assertRefused(() => queryResourceVersion(q("resourceVersion=abc")), "resourceVersion");
    assertRefused(() => queryResourceVersion(q("resourceVersion=-1")), "resourceVersion");
  });
});

describe("enum parameters", () => {
  it("resourceVersionMatch: Exact or NotOlderThan, else kube's NotSupported naming it", () => {
    assert.deepEqual(queryResourceVersionMatch(q("")), { value: undefined });
    assert.deepEqual(queryResourceVersionMatch(q("resourceVersionMatch=")), { value: undefined });
    assert.deepEqual(queryResourceVersionMatch(q("resourceVersionMatch=Exact")), { value: "Exact" });
    assert.deepEqual(queryResourceVersionMatch(q("resourceVersionMatch=NotOlderThan")), { value: "NotOlderThan" });
    const bad = queryResourceVersionMatch(q("resourceVersionMatch=exact"));
    assert.equal(bad.value, undefined);
    assert.deepEqual(bad.error, {
      type: "FieldValueNotSupported",
      field: "resourceVersionMatch",
      message: 'Unsupported value: "exact": supported values: "Exact", "NotOlderThan", ""',
    });
  });

  it("fieldValidation: Warn by default; Strict, Warn, Ignore; else 422 naming the options kind and the parameter", () => {
    const options = { kind: "CreateOptions", metaGroup: "meta.orch.io" } as const;
    assert.equal(queryFieldValidation(q(""), options), "Warn");
    assert.equal(queryFieldValidation(q("fieldValidation="), options), "Warn");
    for (const mode of ["Strict", "Warn", "Ignore"]) assert.equal(queryFieldValidation(q(`fieldValidation=${mode}`), options), mode);
    const error = assertRefused(() => queryFieldValidation(q("fieldValidation=strict"), options), "fieldValidation", 422);
    assert.equal(error.details?.kind, "CreateOptions");
  });

  it("dryRun: absent false; empty or All true; anything else 422 naming the options kind and dryRun", () => {
    const options = { kind: "CreateOptions", metaGroup: "meta.orch.io" } as const;
    assert.equal(queryDryRun(q(""), options), false);
    assert.equal(queryDryRun(q("dryRun"), options), true);
    assert.equal(queryDryRun(q("dryRun=All"), options), true);
    assert.equal(queryDryRun(q("dryRun=All&dryRun=All"), options), true);
    assert.throws(
      () => queryDryRun(q("dryRun=All&dryRun=true"), options),
      (error) => error instanceof ApiError && error.code === 422,
    );
    try {
      queryDryRun(q("dryRun=Some"), options);
      assert.fail("dryRun=Some was accepted");
    } catch (error) {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 422);
      assert.equal(error.details?.kind, "CreateOptions");
      assert.equal(error.message, 'CreateOptions.meta.orch.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"');
    }
  });

  it("propagationPolicy: Foreground, Background, Orphan; else 422 DeleteOptions naming it; not with orphanDependents", () => {
    assert.equal(queryPropagationPolicy(q(""), "meta.orch.io"), undefined);
    for (const policy of ["Foreground", "Background", "Orphan"]) assert.equal(queryPropagationPolicy(q(`propagationPolicy=${policy}`), "meta.orch.io"), policy);
    const error = assertRefused(() => queryPropagationPolicy(q("propagationPolicy=Later"), "meta.orch.io"), "propagationPolicy", 422);
    assert.equal(error.details?.kind, "DeleteOptions");
    assert.match(error.message, /Unsupported value: "Later": supported values: "Foreground", "Background", "Orphan", "nil"/);
    assertRefused(() => queryPropagationPolicy(q("propagationPolicy=Orphan&orphanDependents=true"), "meta.orch.io"), "propagationPolicy", 422);
  });

  it("includeObject: Metadata by default; None, Metadata, Object; else 400 in kube's words", () => {
    assert.equal(queryIncludeObject(q("")), "Metadata");
    assert.equal(queryIncludeObject(q("includeObject=")), "Metadata");
    for (const value of ["None", "Metadata", "Object"]) assert.equal(queryIncludeObject(q(`includeObject=${value}`)), value);
    const error = assertRefused(() => queryIncludeObject(q("includeObject=All")), "includeObject");
    assert.equal(error.message, `Unable to convert to Table as requested: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`);
  });
});
