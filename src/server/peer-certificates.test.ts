import assert from "node:assert/strict";
import http2 from "node:http2";
import https from "node:https";
import { after, before, describe, it } from "node:test";
import { createTestCa, issueCertificate, type TestCa } from "../../test/helpers/certs.js";
import type { PeerCertificate } from "../request/context.js";
import { type HttpServer, startHttpServer } from "./http-server.js";
import { PeerCertificates } from "./peer-certificates.js";

const peer = (name: string): PeerCertificate => ({ commonName: name, organizations: [], chain: [] });

describe("PeerCertificates", () => {
  it("hands out one object per chain, made once", () => {
    const shared = new PeerCertificates();
    let made = 0;
    const make = (): PeerCertificate => {
      made++;
      return peer("u");
    };
    const first = shared.get("a,b", make);
    const again = shared.get("a,b", make);
    const other = shared.get("a,c", make);
    assert.equal(again, first);
    assert.notEqual(other, first);
    assert.equal(made, 2);
  });

  it("makes an entry again after its lifetime", () => {
    let now = 0;
    const shared = new PeerCertificates({ lifetimeMs: 1000, now: () => now });
    const first = shared.get("a", () => peer("u"));
    now = 999;
    assert.equal(
      shared.get("a", () => peer("u")),
      first,
    );
    now = 1000;
    const renewed = shared.get("a", () => peer("u"));
    assert.notEqual(renewed, first);
    assert.equal(
      shared.get("a", () => peer("u")),
      renewed,
    );
  });

  it("keeps at most maxChains, dropping the oldest", () => {
    const shared = new PeerCertificates({ maxChains: 2 });
    const a = shared.get("a", () => peer("a"));
    const b = shared.get("b", () => peer("b"));
    shared.get("c", () => peer("c"));
    assert.equal(shared.size, 2);
    assert.equal(
      shared.get("b", () => peer("b")),
      b,
    );
    assert.notEqual(
      shared.get("a", () => peer("a")),
      a,
    );
  });
});

describe("the listener's client certificates", () => {
  let ca: TestCa;
  let server: HttpServer;
  const seen: (PeerCertificate | undefined)[] = [];
  const errors: (string | undefined)[] = [];

  before(async () => {
    ca = await createTestCa();
    const serving = await issueCertificate(ca, { subject: "CN=serving", server: true, dnsNames: ["localhost"], ips: ["127.0.0.1"] });
    server = await startHttpServer({
      tls: { certificate: serving.cert, key: serving.key, clientCa: ca.certificate },
      host: "127.0.0.1",
      port: 0,
      handler: async ({ request }) => {
        seen.push(request.peerCertificate);
        errors.push(request.peerCertificateError);
        return { status: 200, headers: { "content-type": "text/plain" }, body: "ok" };
      },
    });
  });
  after(() => server.stop(1000));

  /** One GET on a connection of its own (no agent: no reuse). */
  function getOwnConnection(client: { cert: string; key: string }): Promise<number> {
    return new Promise((resolve, reject) => {
      const request = https.request(
        { host: "127.0.0.1", port: server.port, path: "/", agent: false, ca: ca.certificate, servername: "localhost", ...client },
        (response) => {
          response.resume();
          response.once("end", () => resolve(response.statusCode ?? 0));
        },
      );
      request.once("error", reject);
      request.end();
    });
  }

  it("shares one certificate between connections presenting the same chain, and not with another", async () => {
    const alice = await issueCertificate(ca, { subject: "CN=alice, O=team", server: false });
    const bob = await issueCertificate(ca, { subject: "CN=bob", server: false });
    seen.length = 0;
    assert.deepEqual([await getOwnConnection(alice), await getOwnConnection(alice), await getOwnConnection(bob)], [200, 200, 200]);
    const [first, second, third] = seen;
    assert.equal(first?.commonName, "alice");
    assert.deepEqual(first?.organizations, ["team"]);
    assert.equal(first?.chain?.length, 2, "leaf and CA");
    assert.equal(second, first, "the second connection gets the same object");
    assert.equal(third?.commonName, "bob");
    assert.notEqual(third, first);
  });

  /** One GET on an HTTP/2 connection of its own. */
  async function getOwnSession(client: { cert: string; key: string }): Promise<number> {
    const session = http2.connect(`https://127.0.0.1:${server.port}`, { ca: ca.certificate, servername: "localhost", ...client });
    try {
      return await new Promise<number>((resolve, reject) => {
        const stream = session.request({ ":path": "/" });
        let status = 0;
        stream.on("response", (headers) => {
          status = Number(headers[":status"]);
        });
        stream.resume();
        stream.once("end", () => resolve(status));
        stream.once("error", reject);
      });
    } finally {
      session.close();
    }
  }

  it("shares it between HTTP/2 connections too", async () => {
    const carol = await issueCertificate(ca, { subject: "CN=carol", server: false });
    seen.length = 0;
    assert.deepEqual([await getOwnSession(carol), await getOwnSession(carol), await getOwnConnection(carol)], [200, 200, 200]);
    const [first, second, third] = seen;
    assert.equal(first?.commonName, "carol");
    assert.equal(second, first);
    assert.equal(third, first, "and with an HTTP/1.1 connection of the same client");
  });

  it("never hands on a certificate TLS did not verify, on every connection, but says why (the authenticators refuse it)", async () => {
    const stranger = await createTestCa("stranger");
    const mallory = await issueCertificate(stranger, { subject: "CN=alice, O=team", server: false });
    seen.length = 0;
    errors.length = 0;
    assert.deepEqual([await getOwnConnection(mallory), await getOwnConnection(mallory)], [200, 200]);
    assert.deepEqual(seen, [undefined, undefined]);
    assert.equal(errors.length, 2);
    for (const error of errors) assert.match(error ?? "", /UNABLE_TO_VERIFY_LEAF_SIGNATURE|unable to verify|self.signed|unable to get/i);
  });
});
