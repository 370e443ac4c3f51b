import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { before, describe, it } from "node:test";
import { generateCa, issueAdmin } from "../cli/pki-generate.js";
import type { PemPair } from "../cli/pki.js";
import type { ApiRequest, PeerCertificate } from "../request/context.js";
import { parseCaBundle, peerIssuedBy } from "./ca-bundle.js";
import { requestHeaderAuthenticator } from "./request-header.js";
import { x509Authenticator } from "./x509.js";

/** A connection's peer certificate as the listener reports it: the leaf and the CA TLS verified it with. */
function peerOf(client: PemPair, ca: PemPair): PeerCertificate {
  const leaf = new X509Certificate(client.certificate);
  const subject = Object.fromEntries(leaf.subject.split("\n").map((line) => line.split("=") as [string, string]));
  return {
    commonName: subject["CN"] ?? "",
    organizations: subject["O"] === undefined ? [] : [subject["O"]],
    chain: [leaf.raw, new X509Certificate(ca.certificate).raw],
  };
}

function request(peer: PeerCertificate | undefined, rawHeaders: string[] = []): ApiRequest {
  const headers: Record<string, string> = {};
  for (let index = 0; index < rawHeaders.length; index += 2) headers[(rawHeaders[index] ?? "").toLowerCase()] = rawHeaders[index + 1] ?? "";
  return {
    method: "GET",
    path: "/api",
    query: new URLSearchParams(),
    headers,
    rawHeaders,
    body: async () => Buffer.alloc(0),
    peerCertificate: peer,
    signal: new AbortController().signal,
  };
}

describe("client certificates and the authenticating proxy", () => {
  // Two CAs with the same subject (generateCa always names its CA the same): only signatures tell them apart.
  let clientCa: PemPair;
  let proxyCa: PemPair;
  let user: PemPair;
  let proxy: PemPair;
  before(async () => {
    [clientCa, proxyCa] = await Promise.all([generateCa(), generateCa()]);
    [user, proxy] = await Promise.all([issueAdmin(clientCa, "alice"), issueAdmin(proxyCa, "front-proxy")]);
  });

  it("peerIssuedBy() tells which bundle issued a certificate, by signature", () => {
    const clientBundle = parseCaBundle(clientCa.certificate, "client CA");
    const proxyBundle = parseCaBundle(proxyCa.certificate, "proxy CA");
    assert.equal(new X509Certificate(clientCa.certificate).subject, new X509Certificate(proxyCa.certificate).subject);
    assert.equal(peerIssuedBy(peerOf(user, clientCa), clientBundle), true);
    assert.equal(peerIssuedBy(peerOf(user, clientCa), proxyBundle), false);
    assert.equal(peerIssuedBy(peerOf(proxy, proxyCa), proxyBundle), true);
    assert.equal(peerIssuedBy(peerOf(proxy, proxyCa), clientBundle), false);
    // A forged chain naming the client CA as issuer of the proxy's certificate does not verify.
    assert.equal(peerIssuedBy(peerOf(proxy, clientCa), clientBundle), false);
  });

  it("x509 accepts the client CA's certificates (CN user, O groups) and rejects the proxy CA's", async () => {
    const authenticator = x509Authenticator(() => parseCaBundle(clientCa.certificate, "client CA"));
    assert.deepEqual(await authenticator.authenticate(request(peerOf(user, clientCa))), { kind: "ok", user: { name: "alice", groups: ["system:masters"] } });
    assert.equal((await authenticator.authenticate(request(peerOf(proxy, proxyCa)))).kind, "rejected");
    assert.deepEqual(await authenticator.authenticate(request(undefined)), { kind: "none" });
  });

  it("the proxy's headers count only with a certificate from the request-header CA whose CN is allowed", async () => {
    const options = {
      usernameHeaders: ["X-Remote-User", "X-Other-User"],
      groupHeaders: ["X-Remote-Group"],
      extraHeaderPrefixes: ["X-Remote-Extra-"],
      clientCa: () => parseCaBundle(proxyCa.certificate, "proxy CA"),
    };
    const headers = [
      "X-Remote-User",
      "",
      "X-Other-User",
      "bob",
      "X-Remote-Group",
      "devs",
      "X-Remote-Group",
      "a,b",
      "X-Remote-Extra-Acme.com%2Fproject",
      "p1",
      "x-remote-extra-acme.com%2fproject",
      "p2",
      "X-Remote-Extra-Scopes",
      "read",
    ];
    const allowed = requestHeaderAuthenticator({ ...options, allowedNames: ["front-proxy"] });
    assert.deepEqual(await allowed.authenticate(request(peerOf(proxy, proxyCa), headers)), {
      kind: "ok",
      user: { name: "bob", groups: ["devs", "a,b"], extra: { "acme.com/project": ["p1", "p2"], scopes: ["read"] } },
    });
    assert.deepEqual(await allowed.authenticate(request(peerOf(user, clientCa), headers)), { kind: "none" }, "a user certificate is not the proxy");
    assert.deepEqual(await allowed.authenticate(request(undefined, headers)), { kind: "none" }, "headers without a certificate are ignored");
    assert.deepEqual(await allowed.authenticate(request(peerOf(proxy, proxyCa), ["X-Remote-Group", "devs"])), { kind: "none" }, "no user header");
    const otherName = requestHeaderAuthenticator({ ...options, allowedNames: ["another-proxy"] });
    assert.equal((await otherName.authenticate(request(peerOf(proxy, proxyCa), headers))).kind, "rejected");
  });
});
