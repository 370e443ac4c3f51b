import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "../../api/errors.js";
import { ORCH_PROFILE } from "../../api/profile.js";
import { bodyFormat } from "../decode.js";
import { negotiate, type NegotiationOptions } from "../negotiate.js";
import { errorResponse } from "../status.js";
import { protobufCodec, protobufMediaTypes } from "./codec.js";

const wire = { codec: protobufCodec(ORCH_PROFILE), mediaTypes: protobufMediaTypes(ORCH_PROFILE) };
const BUILTIN: NegotiationOptions = { metaGroup: "meta.orch.io", tables: true, clientApiDomains: ["k8s.io"], protobuf: wire };
const CUSTOM: NegotiationOptions = { metaGroup: "meta.orch.io", tables: true, clientApiDomains: ["k8s.io"] };
const query = new URLSearchParams();
const PB = ORCH_PROFILE.protobufMediaType;
const CLIENT_PB = ORCH_PROFILE.clientProtobufMediaTypes[0] ?? "";

function rejects(action: () => unknown, code: number, message: RegExp): void {
  assert.throws(action, (error: unknown) => error instanceof ApiError && error.code === code && message.test(error.message));
}

describe("protobuf negotiation", () => {
  it("a built-in kind: protobuf first wins, in the spelling asked for; quality values order the entries", () => {
    assert.deepEqual(negotiate(`${PB}, application/json`, BUILTIN, query), { kind: "protobuf", ...{ codec: wire.codec, mediaType: PB } });
    assert.equal((negotiate(CLIENT_PB, BUILTIN, query) as { mediaType?: string }).mediaType, CLIENT_PB);
    assert.equal(negotiate(`${PB};q=0.4, application/json;q=0.9`, BUILTIN, query).kind, "json");
    assert.equal(negotiate(`application/json;q=0.5, ${PB}`, BUILTIN, query).kind, "protobuf");
    assert.equal(negotiate(`${PB};as=Table;g=meta.orch.io;v=v1, application/json`, BUILTIN, query).kind, "json", "Tables have no protobuf form");
    const partial = negotiate(`${PB};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`, BUILTIN, query);
    assert.equal(partial.kind === "partial" && partial.protobuf?.mediaType, PB);
  });

  it("a custom resource: protobuf-then-JSON gets JSON; protobuf only is 406 listing what is supported", () => {
    assert.equal(negotiate(`${PB}, application/json`, CUSTOM, query).kind, "json");
    rejects(() => negotiate(PB, CUSTOM, query), 406, /^only the following media types are accepted: application\/json, application\/yaml$/);
    rejects(() => negotiate("text/plain", BUILTIN, query), 406, new RegExp(`application/yaml, ${PB.replace(/\./g, "\\.")}$`));
  });

  it("request bodies: protobuf for kinds that have it, 415 naming the accepted types otherwise; patches stay JSON", () => {
    assert.equal(bodyFormat(CLIENT_PB, ["json", "yaml", "protobuf"], wire.mediaTypes), "protobuf");
    assert.equal(bodyFormat(`${PB}; charset=binary`, ["json", "yaml", "protobuf"], wire.mediaTypes), "protobuf");
    rejects(() => bodyFormat(PB, ["json", "yaml"], wire.mediaTypes), 415, /accepted media types include: application\/json, application\/yaml$/);
    rejects(() => bodyFormat(PB, ["json-patch", "merge-patch", "strategic-merge-patch", "apply-patch"], wire.mediaTypes), 415, /json-patch/);
  });

  it("a Status error is protobuf when the client prefers it, JSON otherwise", () => {
    const error = new ApiError(404, "NotFound", 'configmaps "x" not found');
    const protobuf = errorResponse(error, { accept: `${CLIENT_PB}, application/json`, wire });
    assert.equal(protobuf.headers["content-type"], CLIENT_PB);
    const status = wire.codec.decode(protobuf.body as Buffer);
    assert.deepEqual([status["kind"], status["reason"], status["code"], status["message"]], ["Status", "NotFound", 404, 'configmaps "x" not found']);
    assert.equal(errorResponse(error, { accept: `application/json, ${PB}`, wire }).headers["content-type"], "application/json");
  });
});
