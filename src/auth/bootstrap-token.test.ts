import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiObject } from "../api/object.js";
import { ORCH_PROFILE } from "../api/profile.js";
import { bootstrapTokenAuthenticator } from "./bootstrap-token.js";
import type { ObjectReader } from "./object-reader.js";

const NOW = Date.parse("2026-01-01T00:00:00Z");
const b64 = (text: string): string => Buffer.from(text).toString("base64");

function secret(data: Record<string, string>, overrides: { type?: string; deleting?: boolean } = {}): ApiObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: "bootstrap-token-abcdef",
      namespace: ORCH_PROFILE.systemNamespace,
      uid: "u",
      ...(overrides.deleting === true ? { deletionTimestamp: "2025-12-31T00:00:00Z" } : {}),
    },
    type: overrides.type ?? ORCH_PROFILE.bootstrapTokenSecretType,
    data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, b64(value)])),
  };
}

const VALID = { "token-id": "abcdef", "token-secret": "0123456789abcdef", "usage-bootstrap-authentication": "true" };

function reader(object: ApiObject | undefined): ObjectReader {
  return {
    async read(plural, namespace, name) {
      if (object === undefined || plural !== "secrets" || namespace !== object.metadata.namespace || name !== object.metadata.name) return undefined;
      return { revision: 1, object: () => object };
    },
  };
}

function authenticate(object: ApiObject | undefined, token = "abcdef.0123456789abcdef") {
  return bootstrapTokenAuthenticator({
    objects: reader(object),
    namespace: ORCH_PROFILE.systemNamespace,
    secretType: ORCH_PROFILE.bootstrapTokenSecretType,
    now: () => NOW,
  }).authenticateToken(token, []);
}

describe("bootstrapTokenAuthenticator()", () => {
  it("accepts a valid token as system:bootstrap:<id> in system:bootstrappers plus its extra groups", async () => {
    const result = await authenticate(
      secret({ ...VALID, "auth-extra-groups": "system:bootstrappers:nodes,system:bootstrappers:worker-1", expiration: "2026-06-01T00:00:00Z" }),
    );
    assert.deepEqual(result, {
      kind: "ok",
      user: { name: "system:bootstrap:abcdef", groups: ["system:bootstrappers", "system:bootstrappers:nodes", "system:bootstrappers:worker-1"] },
      audiences: [],
    });
  });

  it("has no opinion on tokens of another form", async () => {
    for (const token of ["abcdef.0123456789abcde", "ABCDEF.0123456789abcdef", "abcdef-0123456789abcdef", "a.b.c"]) {
      assert.deepEqual(await authenticate(secret(VALID), token), { kind: "none" }, token);
    }
  });

  const refused: [string, ApiObject | undefined, RegExp][] = [
    ["no secret", undefined, /no bootstrap token/],
    ["the wrong type", secret(VALID, { type: "Opaque" }), /wrong type/],
    ["a secret being deleted", secret(VALID, { deleting: true }), /being deleted/],
    ["another secret", secret({ ...VALID, "token-secret": "ffffffffffffffff" }), /wrong secret/],
    ["another id in the secret", secret({ ...VALID, "token-id": "zzzzzz" }), /another id/],
    ["no authentication usage", secret({ ...VALID, "usage-bootstrap-authentication": "false" }), /not usable/],
    ["an expiration in the past", secret({ ...VALID, expiration: "2025-12-31T23:59:59Z" }), /expired/],
    ["an unparseable expiration", secret({ ...VALID, expiration: "soon" }), /invalid expiration/],
    ["an extra group outside system:bootstrappers:", secret({ ...VALID, "auth-extra-groups": "system:masters" }), /invalid extra group/],
  ];
  for (const [what, object, reason] of refused) {
    it(`refuses a token with ${what}`, async () => {
      const result = await authenticate(object);
      assert.equal(result.kind, "rejected");
      assert.match(result.kind === "rejected" ? result.reason : "", reason);
    });
  }
});
