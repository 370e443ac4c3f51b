import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { columnsOf } from "./custom-resources.js";

describe("columnsOf() (custom resource printer columns)", () => {
  it("serves Name and Age for a version without printer columns (kube's serveDefaultColumnsIfEmpty)", () => {
    for (const declared of [undefined, []]) {
      const columns = columnsOf(declared);
      assert.deepEqual(
        columns.map((column) => [column.name, column.type]),
        [
          ["Name", "string"],
          ["Age", "date"],
        ],
      );
      assert.match(columns[1]?.description ?? "", /^CreationTimestamp is a timestamp representing the server time when this object was created\./);
    }
  });

  it("serves exactly the declared columns after Name, adding no Age", () => {
    const columns = columnsOf([
      { name: "Ready", type: "string", jsonPath: '.status.conditions[?(@.type == "Ready")].status' },
      { name: "Issuer", type: "string", jsonPath: ".spec.issuerRef.name", priority: 1 },
    ]);
    assert.deepEqual(
      columns.map((column) => [column.name, column.priority ?? 0]),
      [
        ["Name", 0],
        ["Ready", 0],
        ["Issuer", 1],
      ],
    );
  });
});
