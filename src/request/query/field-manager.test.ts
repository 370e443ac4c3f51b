import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ApiError } from "../../api/errors.js";
import { managerFromUserAgent, queryFieldManager } from "./field-manager.js";

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

describe("queryFieldManager(): fieldManager and force", () => {
  const create = { kind: "CreateOptions", metaGroup: "meta.orch.io" } as const;
  const apply = { kind: "PatchOptions", metaGroup: "meta.orch.io", apply: true } as const;
  const good: [string, typeof create | typeof apply, { fieldManager: string; force: boolean }][] = [
    ["", create, { fieldManager: "kubectl", force: false }],
    ["fieldManager=", create, { fieldManager: "kubectl", force: false }],
    ["fieldManager=mine", create, { fieldManager: "mine", force: false }],
    ["fieldManager=mine", apply, { fieldManager: "mine", force: false }],
    ["fieldManager=mine&force=true", apply, { fieldManager: "mine", force: true }],
    ["fieldManager=mine&force=True", apply, { fieldManager: "mine", force: true }],
    ["fieldManager=mine&force", apply, { fieldManager: "mine", force: true }],
    ["fieldManager=mine&force=false", apply, { fieldManager: "mine", force: false }],
    ["fieldManager=mine&force=0", apply, { fieldManager: "mine", force: false }],
  ];
  for (const [query, options, want] of good) {
    it(`?${query} (${options.kind}${"apply" in options ? ", apply" : ""}) → ${JSON.stringify(want)}`, () =>
      assert.deepEqual(queryFieldManager(new URLSearchParams(query), "kubectl/v1.30.0", options), want));
  }
  const bad: [string, typeof create | typeof apply, string][] = [
    ["", apply, "fieldManager"],
    ["fieldManager=", apply, "fieldManager"],
    [`fieldManager=${"m".repeat(129)}`, create, "fieldManager"],
    ["fieldManager=tab%09here", create, "fieldManager"],
    ["force=true", create, "force"],
    ["force=false", create, "force"],
  ];
  for (const [query, options, field] of bad) {
    it(`?${query.slice(0, 40)} (${options.kind}) → 422 naming ${field}`, () =>
      assert.throws(
        () => queryFieldManager(new URLSearchParams(query), undefined, options),
        (error: unknown) =>
          error instanceof ApiError &&
          error.code === 422 &&
          error.details?.kind === options.kind &&
          (error.details.causes ?? []).some((cause) => cause.field === field),
      ));
  }
});
