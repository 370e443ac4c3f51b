import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { describe, it } from "node:test";
import { generateCa } from "../../../cli/pki-generate.js";
import { generateTestRequest, type TestRequestOptions } from "../../../testing/csr.js";
import { parseRequest } from "../csr.js";
import { loadAuthority } from "./authority.js";
import { issuedLifetimeMs } from "./csr-signing-controller.js";
import { apiServerClientRule, legacyUnknownRule, nodeClientRule, nodeServingRule, type SignerRule } from "./signer-rules.js";

const NODE = "CN=system:node:n1, O=system:nodes";
const CLIENT = ["key encipherment", "digital signature", "client auth"];

async function parsed(options: TestRequestOptions) {
  return parseRequest(Buffer.from((await generateTestRequest(options)).request).toString("base64"));
}

describe("built-in signer rules", () => {
  const cases: { name: string; rule: SignerRule; request: TestRequestOptions; usages: string[]; refusal: string | undefined }[] = [
    {
      name: "apiserver-client accepts client auth",
      rule: apiServerClientRule,
      request: { subject: "CN=jane, O=dev" },
      usages: ["client auth"],
      refusal: undefined,
    },
    {
      name: "apiserver-client refuses server auth",
      rule: apiServerClientRule,
      request: { subject: "CN=jane" },
      usages: ["client auth", "server auth"],
      refusal: "invalid usage for client certificate: server auth",
    },
    {
      name: "apiserver-client needs client auth",
      rule: apiServerClientRule,
      request: { subject: "CN=jane" },
      usages: ["digital signature"],
      refusal: "missing required usage for client certificate: client auth",
    },
    { name: "node client accepts a node subject", rule: nodeClientRule, request: { subject: NODE }, usages: CLIENT, refusal: undefined },
    {
      name: "node client refuses another organization",
      rule: nodeClientRule,
      request: { subject: "CN=system:node:n1, O=dev" },
      usages: CLIENT,
      refusal: "subject organization is not system:nodes",
    },
    {
      name: "node client refuses a non-node CN",
      rule: nodeClientRule,
      request: { subject: "CN=n1, O=system:nodes" },
      usages: CLIENT,
      refusal: "subject common name does not begin with system:node:",
    },
    {
      name: "node client refuses DNS names",
      rule: nodeClientRule,
      request: { subject: NODE, dnsNames: ["n1"] },
      usages: CLIENT,
      refusal: "DNS subjectAltNames are not allowed",
    },
    {
      name: "node client refuses IP names",
      rule: nodeClientRule,
      request: { subject: NODE, ips: ["10.0.0.1"] },
      usages: CLIENT,
      refusal: "IP subjectAltNames are not allowed",
    },
    {
      name: "node client needs exactly the three usages",
      rule: nodeClientRule,
      request: { subject: NODE },
      usages: ["client auth"],
      refusal: "usages did not match [digital signature key encipherment client auth]",
    },
    {
      name: "node serving accepts DNS and IP names",
      rule: nodeServingRule,
      request: { subject: NODE, dnsNames: ["n1"], ips: ["10.0.0.1"] },
      usages: CLIENT,
      refusal: undefined,
    },
    {
      name: "node serving also accepts kube's server auth set",
      rule: nodeServingRule,
      request: { subject: NODE, dnsNames: ["n1"] },
      usages: ["key encipherment", "digital signature", "server auth"],
      refusal: undefined,
    },
    {
      name: "node serving needs a DNS or IP name",
      rule: nodeServingRule,
      request: { subject: NODE },
      usages: CLIENT,
      refusal: "DNS or IP subjectAltName is required",
    },
    {
      name: "node serving refuses email names",
      rule: nodeServingRule,
      request: { subject: NODE, dnsNames: ["n1"], emails: ["a@b.c"] },
      usages: CLIENT,
      refusal: "email subject alt names are not allowed",
    },
    {
      name: "node serving refuses URI names",
      rule: nodeServingRule,
      request: { subject: NODE, dnsNames: ["n1"], uris: ["spiffe://x/y"] },
      usages: CLIENT,
      refusal: "URI subject alt names are not allowed",
    },
    {
      name: "node serving refuses a non-node subject",
      rule: nodeServingRule,
      request: { subject: "CN=web", dnsNames: ["n1"] },
      usages: CLIENT,
      refusal: "subject organization is not system:nodes",
    },
    {
      name: "legacy-unknown accepts anything",
      rule: legacyUnknownRule,
      request: { subject: "CN=x", emails: ["a@b.c"] },
      usages: ["cert sign"],
      refusal: undefined,
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, async () => {
      assert.equal(testCase.rule(await parsed(testCase.request), testCase.usages), testCase.refusal);
    });
  }
});

describe("issuedLifetimeMs()", () => {
  const hour = 3600_000;
  it("is the flag's duration without expirationSeconds", () => assert.equal(issuedLifetimeMs(8760 * hour, undefined), 8760 * hour));
  it("is expirationSeconds when shorter", () => assert.equal(issuedLifetimeMs(8760 * hour, 3600), hour));
  it("never exceeds the flag's duration", () => assert.equal(issuedLifetimeMs(hour, 7200), hour));
  it("is at least 10 minutes", () => assert.equal(issuedLifetimeMs(hour, 60), 600_000));
});

describe("loadAuthority().issue()", () => {
  it("copies subject and alternative names, sets the usages, never the CA flag, and stops at the CA's expiry", async () => {
    const ca = await generateCa();
    const authority = await loadAuthority(ca);
    const request = await parsed({ subject: NODE, dnsNames: ["n1.example"], ips: ["10.0.0.7"] });
    const now = Date.now();
    const pem = await authority.issue(request, ["digital signature", "key encipherment", "server auth"], { ttlMs: 3600_000, nowMs: now });
    const certificate = new X509Certificate(pem);
    assert.equal(certificate.ca, false);
    assert.ok(certificate.verify(new X509Certificate(ca.certificate).publicKey));
    assert.match(certificate.subject, /CN=system:node:n1/);
    assert.match(certificate.subject, /O=system:nodes/);
    assert.match(certificate.subjectAltName ?? "", /DNS:n1\.example/);
    assert.match(certificate.subjectAltName ?? "", /IP Address:10\.0\.0\.7/);
    assert.deepEqual(certificate.keyUsage, ["1.3.6.1.5.5.7.3.1"]);
    assert.equal(Date.parse(certificate.validTo), Math.floor((now + 3600_000) / 1000) * 1000);
    const long = new X509Certificate(await authority.issue(request, ["client auth"], { ttlMs: 100 * 365 * 24 * 3600_000, nowMs: now }));
    assert.equal(long.validTo, new X509Certificate(ca.certificate).validTo, "capped at the CA's own expiry");
  });
});
