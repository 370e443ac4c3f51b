import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { listItem } from "../registry/index.js";
import { listChunks } from "./respond.js";

describe("listChunks", () => {
  it("writes the head, the items joined by commas and the end, byte for byte as the joined string encodes, whatever the characters", () => {
    // Items up to ~70 KiB (larger than a chunk), with characters of 1 to 4 UTF-8 bytes.
    const text = fc.oneof(fc.string({ unit: "grapheme", maxLength: 40 }), fc.string({ unit: "binary", maxLength: 40 }), fc.constant("é→𝄞"));
    const item = fc
      .tuple(text, fc.nat({ max: 70_000 }))
      .map(([value, padding]) => JSON.stringify({ value, padding: "x".repeat(padding % 3 === 0 ? padding : padding % 300) }));
    fc.assert(
      fc.property(text, fc.array(item, { maxLength: 30 }), (kind, jsons) => {
        const head = `{"kind":${JSON.stringify(kind)},"items":[`;
        const chunks = [
          ...listChunks(
            head,
            jsons.map((json) => listItem(json)),
          ),
        ];
        assert.deepEqual(Buffer.concat(chunks), Buffer.from(`${head}${jsons.join(",")}]}`));
        assert.ok(chunks.every((chunk) => chunk.length > 0));
      }),
      { numRuns: 200 },
    );
  });

  it("cuts a long list into chunks of about 64 KiB, none far beyond", () => {
    const json = JSON.stringify({ data: "y".repeat(1300) });
    const chunks = [
      ...listChunks(
        '{"items":[',
        Array.from({ length: 500 }, () => listItem(json)),
      ),
    ];
    assert.ok(chunks.length >= 10, `${chunks.length} chunks`);
    for (const chunk of chunks.slice(0, -1))
      assert.ok(chunk.length >= 64 * 1024 && chunk.length < 64 * 1024 + json.length + 2, `chunk of ${chunk.length} bytes`);
  });
});
