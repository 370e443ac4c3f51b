import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { BUILTIN_KINDS } from "../../api/schema/kinds/index.js";
import { columnsFor } from "./index.js";
import { tableKeys } from "./_testing.js";

/**
 * Served kinds that print with the default Name and Created At, as kube-apiserver 1.30 prints
 * them (it has no columns for these either). A new kind must be added to the tables or here.
 */
const DEFAULT_KINDS: Readonly<Record<string, string>> = {
  "/LimitRange": "kube has no printer for it",
  "/Binding": "create-only, never listed",
  "policy/Eviction": "create-only, never listed",
  "policy/PodSecurityPolicy": "removed in 1.25, so 1.30 has no columns for it",
  "rbac.authorization/Role": "kube has no printer for roles",
  "rbac.authorization/ClusterRole": "kube has no printer for roles",
  "apiextensions/CustomResourceDefinition": "its server prints CRDs with the default table",
  "authentication/TokenReview": "create-only, never listed",
  "authentication/SelfSubjectReview": "create-only, never listed",
  "authentication/TokenRequest": "create-only, never listed",
  "authorization/SubjectAccessReview": "create-only, never listed",
  "authorization/LocalSubjectAccessReview": "create-only, never listed",
  "authorization/SelfSubjectAccessReview": "create-only, never listed",
  "authorization/SelfSubjectRulesReview": "create-only, never listed",
};

const served = [...new Set(BUILTIN_KINDS.map((declaration) => `${declaration.group}/${declaration.kind}`))];

describe("every served kind has its table, or deliberately the default", () => {
  for (const key of served) {
    it(key, () => {
      const hasColumns = columnsFor(key.slice(0, key.lastIndexOf("/")), key.slice(key.lastIndexOf("/") + 1)) !== undefined;
      assert.notEqual(
        hasColumns,
        key in DEFAULT_KINDS,
        hasColumns ? `${key} has columns and is listed as default` : `${key} has neither columns nor a place in DEFAULT_KINDS`,
      );
    });
  }

  it("tables and defaults name only served kinds", () => {
    const known = new Set(served);
    assert.deepEqual(
      [...tableKeys(() => true), ...Object.keys(DEFAULT_KINDS)].filter((key) => !known.has(key)),
      [],
    );
  });
});
