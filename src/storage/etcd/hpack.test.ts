import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HpackDecoder, huffmanDecode } from "./hpack.js";

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ""), "hex");

describe("HPACK decoder", () => {
  it("decodes Huffman-coded strings (RFC 7541 C.4.1)", () => {
    const bytes = hex("f1e3 c2e5 f23a 6ba0 ab90 f4ff");
    assert.equal(huffmanDecode(bytes, 0, bytes.length), "www.example.com");
  });

  it("decodes RFC 7541's request examples in order, keeping the dynamic table between blocks (C.4)", () => {
    const decoder = new HpackDecoder();
    assert.deepEqual(decoder.decode(hex("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff")), [
      [":method", "GET"],
      [":scheme", "http"],
      [":path", "/"],
      [":authority", "www.example.com"],
    ]);
    // 0xbe: dynamic entry 62, the :authority the first block added.
    assert.deepEqual(decoder.decode(hex("8286 84be 5886 a8eb 1064 9cbf")), [
      [":method", "GET"],
      [":scheme", "http"],
      [":path", "/"],
      [":authority", "www.example.com"],
      ["cache-control", "no-cache"],
    ]);
    assert.deepEqual(decoder.decode(hex("8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf")), [
      [":method", "GET"],
      [":scheme", "https"],
      [":path", "/index.html"],
      [":authority", "www.example.com"],
      ["custom-key", "custom-value"],
    ]);
  });

  it("evicts the oldest entries past the table size (RFC 7541 C.6, a 256-octet table)", () => {
    const decoder = new HpackDecoder();
    // A size update to 256 first, then C.6.1 and C.6.2's response blocks.
    decoder.decode(Buffer.from([0x3f, 0xe1, 0x01]));
    decoder.decode(
      hex("4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3"),
    );
    const second = decoder.decode(hex("4883 640e ffc1 c0bf"));
    assert.deepEqual(second, [
      [":status", "307"],
      ["cache-control", "private"],
      ["date", "Mon, 21 Oct 2013 20:13:21 GMT"],
      ["location", "https://www.example.com"],
    ]);
    // The first block's ":status: 302" was evicted to make room: four entries (62–65), 66 is past the table.
    assert.deepEqual(decoder.decode(Buffer.from([0x80 | 65])), [["cache-control", "private"]]);
    assert.throws(() => decoder.decode(Buffer.from([0x80 | 66])), RangeError);
  });

  it("refuses truncated blocks and indexes past the table", () => {
    assert.throws(() => new HpackDecoder().decode(hex("8286 8441 8cf1 e3")), RangeError);
    assert.throws(() => new HpackDecoder().decode(Buffer.from([0xbe])), RangeError);
    assert.throws(() => new HpackDecoder().decode(Buffer.from([0x80])), RangeError);
  });
});
