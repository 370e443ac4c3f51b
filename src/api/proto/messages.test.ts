import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { PROTO_MESSAGE_FILES } from "./fields/index.js";
import { parseMessages, validateMessages, type ProtoMessages } from "./messages.js";

describe("parseMessages()", () => {
  it("reads scalar and message-typed fields in declaration order", () => {
    const parsed = parseMessages([{ "a.v1.Thing": "name=1 spec=3:a.v1.ThingSpec  labels=2" }]);
    const thing = parsed.get("a.v1.Thing");
    assert.deepEqual(
      [...(thing?.entries() ?? [])],
      [
        ["name", { number: 1 }],
        ["spec", { number: 3, message: "a.v1.ThingSpec" }],
        ["labels", { number: 2 }],
      ],
    );
  });

  it("reads a message without fields", () => {
    assert.equal(parseMessages([{ "a.v1.Empty": "" }]).get("a.v1.Empty")?.size, 0);
  });

  const malformed: readonly [string, ProtoMessages[], RegExp][] = [
    ["a field without a number", [{ "a.v1.T": "name" }], /malformed field "name"/],
    ["a negative number", [{ "a.v1.T": "name=-1" }], /malformed field/],
    ["a field named twice", [{ "a.v1.T": "name=1 name=2" }], /field name is declared twice/],
    ["a message declared in two files", [{ "a.v1.T": "name=1" }, { "a.v1.T": "name=1" }], /a\.v1\.T is declared twice/],
  ];
  for (const [what, files, error] of malformed) {
    it(`refuses ${what}`, () => assert.throws(() => parseMessages(files), error));
  }
});

describe("validateMessages()", () => {
  it("accepts references to declared messages and to leaf ids", () => {
    const parsed = parseMessages([
      { "a.v1.T": "metadata=1:meta.v1.ObjectMeta at=2:meta.v1.Time size=3:resource.Quantity" },
      { "meta.v1.ObjectMeta": "name=1" },
    ]);
    assert.deepEqual(validateMessages(parsed), []);
  });

  it("reports numbers used twice, numbers below one and unknown messages", () => {
    const parsed = parseMessages([{ "a.v1.T": "a=1 b=1 c=0 d=4:a.v1.Missing" }]);
    assert.deepEqual(validateMessages(parsed), [
      "a.v1.T.b: number 1 is already a's",
      "a.v1.T.c: number 0 is not positive",
      "a.v1.T.d: unknown message a.v1.Missing",
    ]);
  });
});

describe("the data files", () => {
  it("each parse on their own, and all parse together and validate", () => {
    for (const file of PROTO_MESSAGE_FILES) assert.doesNotThrow(() => parseMessages([file]), `file with ${Object.keys(file)[0] ?? "no message"}`);
    assert.deepEqual(validateMessages(parseMessages(PROTO_MESSAGE_FILES)), []);
  });

  it("name messages <package>.<version>.<Message>", () => {
    const wrong = PROTO_MESSAGE_FILES.flatMap((file) => Object.keys(file)).filter(
      (id) => !/^[a-z0-9]+\.v[0-9]+(?:(?:alpha|beta)[0-9]+)?\.[A-Z][A-Za-z0-9]*$/.test(id),
    );
    assert.deepEqual(wrong, []);
  });
});
