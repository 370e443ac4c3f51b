import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { managerFromUserAgent, omitManagedFields } from "./field-manager-options.js";

describe("managerFromUserAgent(): kube's default field manager", () => {
  const cases: [string | undefined, string][] = [
    ["kubectl/v1.30.13 (linux/amd64) kubernetes/abc", "kubectl"],
    ["kube-controller-manager/v1.30.0 (linux/amd64) kubernetes/abc/system:serviceaccount:kube-system:deployment-controller", "kube-controller-manager"],
    ["no-slash at all", "no-slash at all"],
    ["tab\there/1", "tabhere"],
    ["", ""],
    [undefined, ""],
    [`${"x".repeat(200)}/1`, "x".repeat(128)],
    [`${"é".repeat(100)}/1`, "é".repeat(64)],
  ];
  for (const [userAgent, manager] of cases) {
    it(`${JSON.stringify(userAgent)?.slice(0, 40) ?? "undefined"} → ${JSON.stringify(manager.slice(0, 20))}`, () =>
      assert.equal(managerFromUserAgent(userAgent), manager));
  }
});

describe("omitManagedFields(): the read-time option", () => {
  const cases: [string, boolean][] = [
    ["", false],
    ["omitManagedFields", true],
    ["omitManagedFields=true", true],
    ["omitManagedFields=1", true],
    ["omitManagedFields=false", false],
  ];
  for (const [query, expected] of cases) {
    it(`?${query} → ${String(expected)}`, () => assert.equal(omitManagedFields(new URLSearchParams(query)), expected));
  }

  it("refuses values that are not booleans with 400", () => {
    assert.throws(
      () => omitManagedFields(new URLSearchParams("omitManagedFields=maybe")),
      (error: unknown) => error instanceof Error && "code" in error && error.code === 400,
    );
  });
});
