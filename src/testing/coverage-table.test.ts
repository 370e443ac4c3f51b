import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../api/profile.js";
import { COVERAGE_BEGIN, COVERAGE_END, kindCoverageTable } from "./coverage-table.js";

const DOCUMENT = new URL("../../../docs/api-coverage.md", import.meta.url);

describe("docs/api-coverage.md's table of every group/version/kind", () => {
  it("is what the served catalogue gives (run `npm run docs:kinds` after changing kinds)", () => {
    const document = readFileSync(DOCUMENT, "utf8");
    const begin = document.indexOf(COVERAGE_BEGIN);
    const end = document.indexOf(COVERAGE_END);
    assert.ok(begin >= 0 && end > begin, "the generated section markers are present");
    assert.equal(document.slice(begin + COVERAGE_BEGIN.length, end).trim(), kindCoverageTable());
  });

  it("lists each kind once per version, with a schema and protobuf numbers for every one", () => {
    for (const table of [kindCoverageTable(), kindCoverageTable(KUBERNETES_PROFILE)]) {
      const rows = table
        .split("\n")
        .slice(2)
        .map((line) => line.split(" | ").map((cell) => cell.replace(/^\| |\s\|$/g, "")));
      const keys = rows.map((row) => `${row[0]} ${row[1]} ${row[2]}`);
      assert.equal(new Set(keys).size, keys.length);
      assert.deepEqual(
        rows.filter((row) => row[7] !== "yes" || row[9] !== "yes").map((row) => `${row[0]} ${row[1]}`),
        [],
      );
      assert.ok(keys.some((key) => key.startsWith("`apps/v1` Deployment")));
    }
  });
});
