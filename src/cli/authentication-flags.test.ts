import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FlagError, parseArgs } from "./flags.js";

function config(argv: string[]) {
  const parsed = parseArgs(argv);
  if (parsed.kind !== "config") throw new Error("expected a config");
  return parsed.config;
}

describe("parseArgs() authentication flags", () => {
  it("defaults: anonymous on, no proxy, no bootstrap tokens, webhook v1beta1 cached 2m", () => {
    const parsed = config([]);
    assert.equal(parsed.anonymousAuth, true);
    assert.equal(parsed.enableBootstrapTokenAuth, false);
    assert.deepEqual([parsed.requestHeaderUsernameHeaders, parsed.serviceAccountIssuers, parsed.apiAudiences, parsed.serviceAccountKeyFiles], [[], [], [], []]);
    assert.equal(parsed.authenticationTokenWebhookVersion, "v1beta1");
    assert.equal(parsed.authenticationTokenWebhookCacheTtlMs, 120_000);
  });

  it("reads lists comma-separated and repeated, and repeatable files and issuers", () => {
    const parsed = config([
      "--requestheader-client-ca-file=/p/ca.crt",
      "--requestheader-username-headers=X-Remote-User,X-Other",
      "--requestheader-username-headers",
      "X-Third",
      "--requestheader-group-headers=X-Remote-Group",
      "--requestheader-extra-headers-prefix=X-Remote-Extra-",
      "--requestheader-allowed-names=front-proxy,aggregator",
      "--service-account-key-file=/k/a.pub",
      "--service-account-key-file=/k/b.pub",
      "--service-account-signing-key-file=/k/a.key",
      "--service-account-issuer=https://one",
      "--service-account-issuer=https://two",
      "--api-audiences=https://one,vault",
      "--enable-bootstrap-token-auth",
      "--authentication-token-webhook-config-file=/w/config",
      "--authentication-token-webhook-version=v1",
      "--authentication-token-webhook-cache-ttl=30s",
      "--anonymous-auth=false",
    ]);
    assert.deepEqual(parsed.requestHeaderUsernameHeaders, ["X-Remote-User", "X-Other", "X-Third"]);
    assert.deepEqual(parsed.requestHeaderAllowedNames, ["front-proxy", "aggregator"]);
    assert.equal(parsed.requestHeaderClientCaFile, "/p/ca.crt");
    assert.deepEqual(parsed.serviceAccountKeyFiles, ["/k/a.pub", "/k/b.pub"]);
    assert.equal(parsed.serviceAccountSigningKeyFile, "/k/a.key");
    assert.deepEqual(parsed.serviceAccountIssuers, ["https://one", "https://two"]);
    assert.deepEqual(parsed.apiAudiences, ["https://one", "vault"]);
    assert.equal(parsed.enableBootstrapTokenAuth, true);
    assert.equal(parsed.authenticationTokenWebhookConfigFile, "/w/config");
    assert.equal(parsed.authenticationTokenWebhookVersion, "v1");
    assert.equal(parsed.authenticationTokenWebhookCacheTtlMs, 30_000);
    assert.equal(parsed.anonymousAuth, false);
  });

  const bad: [string[], RegExp][] = [
    [["--authentication-token-webhook-version=v2"], /must be v1 or v1beta1/],
    [["--authentication-token-webhook-cache-ttl=soon"], /--authentication-token-webhook-cache-ttl/],
    [["--requestheader-client-ca-file=/p/ca.crt"], /must be given together/],
    [["--requestheader-username-headers=X-Remote-User"], /must be given together/],
    [["--enable-bootstrap-token-auth=maybe"], /must be true or false/],
  ];
  for (const [argv, message] of bad) {
    it(`refuses ${argv.join(" ")}`, () => {
      assert.throws(
        () => parseArgs(argv),
        (error: unknown) => error instanceof FlagError && message.test(error.message),
      );
    });
  }
});
