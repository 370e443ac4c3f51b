import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { builtinProtoMessages } from "./fields/index.js";
import { zeroKeptFields } from "./presence.js";

describe("fields that keep zero values", () => {
  it("name scalar fields of known messages", () => {
    const messages = builtinProtoMessages();
    const problems: string[] = [];
    for (const [id, names] of zeroKeptFields()) {
      const fields = messages.get(id);
      if (fields === undefined) {
        problems.push(`${id}: no such message`);
        continue;
      }
      for (const name of names) {
        const field = fields.get(name);
        if (field === undefined) problems.push(`${id}.${name}: no such field`);
        else if (field.message !== undefined) problems.push(`${id}.${name}: a message, not a scalar`);
      }
    }
    assert.deepEqual(problems, []);
  });
});
