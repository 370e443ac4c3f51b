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

describe("a JSON list's body: one string or chunks, by size", () => {
  it("streams a list of few items but more than one chunk of JSON, and answers a small one as one string with its length", async () => {
    const { inProcessServer } = await import("../testing/in-process.js");
    const server = await inProcessServer();
    try {
      for (const [namespace, bytes] of [
        ["few-large", 1500],
        ["few-small", 100],
      ] as const) {
        assert.equal(
          (await server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } } })).status,
          201,
        );
        for (let index = 0; index < 60; index++) {
          const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${index}` }, data: { v: "x".repeat(bytes) } };
          assert.equal((await server.call("POST", `/api/v1/namespaces/${namespace}/configmaps`, { body })).status, 201);
        }
      }
      // 60 items of ~1.6 KB (~95 KB of JSON): more than a chunk, so streamed although under 256 items.
      const large = await server.raw("GET", "/api/v1/namespaces/few-large/configmaps");
      assert.equal(large.status, 200);
      assert.ok(typeof large.body !== "string" && !(large.body instanceof Uint8Array), "streamed");
      const chunks: Buffer[] = [];
      for await (const chunk of large.body as AsyncIterable<string | Uint8Array>) chunks.push(Buffer.from(chunk));
      assert.ok(chunks.length >= 2, `${chunks.length} chunks`);
      const listed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { items: { metadata: { name: string } }[] };
      assert.equal(listed.items.length, 60);
      // 60 items of ~0.2 KB: one string.
      const small = await server.raw("GET", "/api/v1/namespaces/few-small/configmaps");
      assert.equal(typeof small.body, "string");
      assert.equal((JSON.parse(small.body as string) as { items: unknown[] }).items.length, 60);
    } finally {
      await server.stop();
    }
  });
});
