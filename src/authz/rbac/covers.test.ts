import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { breakdownRule, compactRules, covers } from "./covers.js";
import { compactRule, type PolicyRule } from "./policy.js";

interface Case {
  readonly name: string;
  readonly owner: readonly PolicyRule[];
  readonly servant: readonly PolicyRule[];
  readonly missing: readonly PolicyRule[];
}

const CASES: readonly Case[] = [
  {
    name: "covers a subset of verbs",
    owner: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }],
    servant: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
    missing: [],
  },
  {
    name: "reports each missing verb",
    owner: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
    servant: [{ verbs: ["get", "delete"], apiGroups: [""], resources: ["pods"] }],
    missing: [{ verbs: ["delete"], apiGroups: [""], resources: ["pods"] }],
  },
  {
    name: "covers everything with cluster-admin's rules",
    owner: [
      { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
      { verbs: ["*"], nonResourceURLs: ["*"] },
    ],
    servant: [
      { verbs: ["escalate"], apiGroups: ["x"], resources: ["y/z"] },
      { verbs: ["get"], nonResourceURLs: ["/a"] },
    ],
    missing: [],
  },
  {
    name: "covers a sub-resource through */sub",
    owner: [{ verbs: ["get"], apiGroups: ["apps"], resources: ["*/scale"] }],
    servant: [{ verbs: ["get"], apiGroups: ["apps"], resources: ["deployments/scale"] }],
    missing: [],
  },
  {
    name: "does not cover a resource through */sub",
    owner: [{ verbs: ["get"], apiGroups: ["apps"], resources: ["*/scale"] }],
    servant: [{ verbs: ["get"], apiGroups: ["apps"], resources: ["deployments"] }],
    missing: [{ verbs: ["get"], apiGroups: ["apps"], resources: ["deployments"] }],
  },
  {
    name: "covers named objects with an unnamed rule",
    owner: [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }],
    servant: [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["a"] }],
    missing: [],
  },
  {
    name: "does not cover all objects with a named rule",
    owner: [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["a"] }],
    servant: [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }],
    missing: [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }],
  },
  {
    name: "covers non-resource paths under a trailing *",
    owner: [{ verbs: ["get"], nonResourceURLs: ["/logs/*"] }],
    servant: [{ verbs: ["get"], nonResourceURLs: ["/logs/a/b"] }],
    missing: [],
  },
  {
    name: "does not cover another group",
    owner: [{ verbs: ["*"], apiGroups: [""], resources: ["*"] }],
    servant: [{ verbs: ["get"], apiGroups: ["apps"], resources: ["deployments"] }],
    missing: [{ verbs: ["get"], apiGroups: ["apps"], resources: ["deployments"] }],
  },
  {
    name: "pieces of one rule may be covered by different owner rules",
    owner: [
      { verbs: ["get"], apiGroups: [""], resources: ["pods"] },
      { verbs: ["list"], apiGroups: [""], resources: ["pods"] },
    ],
    servant: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }],
    missing: [],
  },
];

describe("covers()", () => {
  for (const entry of CASES) {
    it(entry.name, () => {
      const result = covers(entry.owner, entry.servant);
      assert.deepEqual(result.missing, entry.missing);
      assert.equal(result.covered, entry.missing.length === 0);
    });
  }

  it("breakdownRule() splits a rule per group, resource, verb and name", () => {
    assert.equal(breakdownRule({ verbs: ["get", "list"], apiGroups: ["", "apps"], resources: ["a", "b"], resourceNames: ["x", "y"] }).length, 16);
    assert.deepEqual(breakdownRule({ verbs: ["get"], nonResourceURLs: ["/a", "/b"] }), [
      { nonResourceURLs: ["/a"], verbs: ["get"] },
      { nonResourceURLs: ["/b"], verbs: ["get"] },
    ]);
  });

  it("compactRules() merges the verbs of one group, resource and name, keeping the rest apart (kube's CompactRules)", () => {
    const missing = covers(
      [],
      [
        { verbs: ["get", "list"], apiGroups: ["", "apps"], resources: ["secrets"] },
        { verbs: ["delete", "get"], apiGroups: [""], resources: ["secrets"] },
        { verbs: ["get", "update"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["a"] },
        { verbs: ["get"], nonResourceURLs: ["/logs", "/metrics"] },
      ],
    ).missing;
    assert.deepEqual(compactRules(missing).map(compactRule), [
      '{NonResourceURLs:["/logs"], Verbs:["get"]}',
      '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "delete" "get"]}',
      '{APIGroups:["apps"], Resources:["secrets"], Verbs:["get" "list"]}',
      '{APIGroups:[""], Resources:["configmaps"], ResourceNames:["a"], Verbs:["get" "update"]}',
    ]);
    const twoNames = { verbs: ["get"], apiGroups: [""], resources: ["pods"], resourceNames: ["a", "b"] };
    assert.deepEqual(compactRules([twoNames, twoNames]), [twoNames, twoNames], "a rule naming two objects is not simple");
  });
});
