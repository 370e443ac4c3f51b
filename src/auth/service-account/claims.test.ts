import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../../api/profile.js";
import { boundTokenPayload, claimNames, legacyTokenPayload, parseBoundClaims, parseLegacyClaims, parseServiceAccountUserName } from "./claims.js";

describe("service-account claims", () => {
  for (const [profile, domain, legacyIssuer] of [
    [ORCH_PROFILE, "orch.io", "orch/serviceaccount"],
    [KUBERNETES_PROFILE, "kubernetes.io", "kubernetes/serviceaccount"],
  ] as const) {
    it(`use the ${profile.name} profile's names and round-trip`, () => {
      const names = claimNames(profile);
      const claims = { namespace: "team", serviceAccount: { name: "builder", uid: "u1" }, pod: { name: "web", uid: "u2" } };
      const payload = boundTokenPayload(names, { issuer: "https://issuer", audiences: ["a"], issuedAt: 100, expiresAt: 200, id: "jti", claims });
      assert.deepEqual(Object.keys(payload), ["aud", "exp", "iat", "iss", "jti", domain, "nbf", "sub"], "kube's claim order");
      assert.equal(payload["sub"], "system:serviceaccount:team:builder");
      assert.deepEqual(parseBoundClaims(names, payload), claims);
      const legacy = legacyTokenPayload(names, { namespace: "team", serviceAccount: { name: "builder", uid: "u1" }, secretName: "builder-token" });
      assert.equal(legacy["iss"], legacyIssuer);
      assert.equal(legacy[`${domain}/serviceaccount/secret.name`], "builder-token");
      assert.deepEqual(parseLegacyClaims(names, legacy), { namespace: "team", secretName: "builder-token", serviceAccount: { name: "builder", uid: "u1" } });
    });
  }

  it("parse service-account user names and nothing else", () => {
    assert.deepEqual(parseServiceAccountUserName("system:serviceaccount:team:builder"), { namespace: "team", name: "builder" });
    for (const name of ["alice", "system:serviceaccount:team", "system:serviceaccount::x", "system:serviceaccount:a:b:c"])
      assert.equal(parseServiceAccountUserName(name), undefined, name);
  });

  it("refuse bound claims without namespace or account", () => {
    const names = claimNames(ORCH_PROFILE);
    assert.equal(parseBoundClaims(names, { "orch.io": { serviceaccount: { name: "x" } } }), undefined);
    assert.equal(parseBoundClaims(names, { "orch.io": { namespace: "team" } }), undefined);
    assert.equal(parseBoundClaims(names, { "orch.io": { namespace: "team", serviceaccount: { name: "x" }, pod: "web" } }), undefined);
  });
});
