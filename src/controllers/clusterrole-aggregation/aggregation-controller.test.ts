import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ApiObject } from "../../api/object.js";
import { aggregatedRules, labelSelectorRequirements } from "./aggregation-controller.js";

function role(name: string, labels: Record<string, string>, rules: unknown[], aggregationRule?: unknown): ApiObject {
  return { kind: "ClusterRole", metadata: { name, labels }, rules, ...(aggregationRule === undefined ? {} : { aggregationRule }) };
}

const READ_PODS = { verbs: ["get"], apiGroups: [""], resources: ["pods"] };
const READ_CMS = { verbs: ["get"], apiGroups: [""], resources: ["configmaps"] };

describe("aggregatedRules()", () => {
  const admin = role("admin", {}, [], {
    clusterRoleSelectors: [{ matchLabels: { "to-admin": "true" } }, { matchExpressions: [{ key: "tier", operator: "In", values: ["gold"] }] }],
  });
  const cases: readonly [string, ApiObject[], unknown[] | undefined][] = [
    ["is undefined for a role without an aggregationRule", [], undefined],
    ["is empty when nothing matches", [role("x", { other: "true" }, [READ_PODS])], []],
    [
      "collects matching roles' rules in name order",
      [role("b", { "to-admin": "true" }, [READ_CMS]), role("a", { tier: "gold" }, [READ_PODS])],
      [READ_PODS, READ_CMS],
    ],
    ["keeps each rule once", [role("a", { "to-admin": "true" }, [READ_PODS]), role("b", { "to-admin": "true" }, [READ_PODS, READ_CMS])], [READ_PODS, READ_CMS]],
    ["needs the label value to match", [role("a", { "to-admin": "false" }, [READ_PODS])], []],
    ["skips the role itself", [role("admin", { "to-admin": "true" }, [READ_PODS])], []],
  ];
  for (const [name, others, expected] of cases) {
    it(name, () => {
      const subject = name.startsWith("is undefined") ? role("plain", {}, []) : admin;
      assert.deepEqual(aggregatedRules(subject, [subject, ...others]), expected);
    });
  }

  it("labelSelectorRequirements() reads matchLabels and every operator, and refuses unknown ones", () => {
    assert.deepEqual(
      labelSelectorRequirements({
        matchLabels: { a: "1" },
        matchExpressions: [
          { key: "b", operator: "NotIn", values: ["x"] },
          { key: "c", operator: "Exists" },
          { key: "d", operator: "DoesNotExist" },
        ],
      }),
      [
        { op: "in", key: "a", values: ["1"] },
        { op: "notin", key: "b", values: ["x"] },
        { op: "exists", key: "c" },
        { op: "!exists", key: "d" },
      ],
    );
    assert.equal(labelSelectorRequirements({ matchExpressions: [{ key: "b", operator: "Near" }] }), undefined);
    assert.deepEqual(labelSelectorRequirements({}), []);
  });
});
