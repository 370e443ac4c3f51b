// The etcd backend over mutual TLS (--etcd-cafile/--etcd-certfile/--etcd-keyfile): a member that
// requires client certificates serves a client that has one and refuses one that has none.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { isStorageError } from "../errors.js";
import { type EtcdCluster, startEtcdCluster } from "./etcd-member.js";
import { EtcdStorage } from "./etcd-storage.js";
import { RANGE_REQUEST, RANGE_RESPONSE } from "./etcd-wire.js";
import { H2Unary } from "./h2-unary.js";

/** A CA, a serving certificate for 127.0.0.1 and a client certificate, made with openssl. */
function makePki(dir: string): Record<"ca" | "serverCert" | "serverKey" | "clientCert" | "clientKey", string> {
  const path = (name: string): string => join(dir, name);
  const openssl = (...args: string[]): void => void execFileSync("openssl", args, { stdio: "ignore" });
  openssl(
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    path("ca.key"),
    "-out",
    path("ca.crt"),
    "-subj",
    "/CN=etcd-ca",
    "-days",
    "1",
  );
  for (const [name, extension] of [
    ["server", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n"],
    ["client", "extendedKeyUsage=clientAuth\n"],
  ] as const) {
    writeFileSync(path(`${name}.ext`), extension);
    openssl(
      "req",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      path(`${name}.key`),
      "-out",
      path(`${name}.csr`),
      "-subj",
      `/CN=${name}`,
    );
    openssl(
      "x509",
      "-req",
      "-in",
      path(`${name}.csr`),
      "-CA",
      path("ca.crt"),
      "-CAkey",
      path("ca.key"),
      "-CAcreateserial",
      "-out",
      path(`${name}.crt`),
      "-days",
      "1",
      "-extfile",
      path(`${name}.ext`),
    );
  }
  return { ca: path("ca.crt"), serverCert: path("server.crt"), serverKey: path("server.key"), clientCert: path("client.crt"), clientKey: path("client.key") };
}

describe("EtcdStorage over mutual TLS", { timeout: 60_000 }, () => {
  let dir: string;
  let cluster: EtcdCluster;
  let pki: ReturnType<typeof makePki>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "orch-etcd-tls-"));
    pki = makePki(dir);
    cluster = await startEtcdCluster({ tls: { caFile: pki.ca, certFile: pki.serverCert, keyFile: pki.serverKey } });
  });

  after(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads, writes and watches with a client certificate", async () => {
    assert.match(cluster.endpoints[0] ?? "", /^https:/);
    const storage = await EtcdStorage.open({
      endpoints: cluster.endpoints,
      prefix: "/tls",
      tls: { ca: readFileSync(pki.ca), cert: readFileSync(pki.clientCert), key: readFileSync(pki.clientKey) },
    });
    const stop = new AbortController();
    try {
      // A watch too: on the hand-framed connection over TLS once it is up.
      const events = storage.watch("/", storage.currentRevision(), stop.signal)[Symbol.asyncIterator]();
      const first = events.next();
      const revision = await storage.create("/a", "v");
      assert.deepEqual(await storage.get("/a"), { key: "/a", value: "v", modRevision: revision, createRevision: revision });
      const event = await first;
      assert.ok(!event.done && event.value.key === "/a" && event.value.value === "v" && event.value.revision === revision);
    } finally {
      stop.abort();
      await storage.close();
    }
  });

  it("serves Range and Txn on its own HTTP/2 connection over TLS (ALPN h2), not only through grpc-js", async () => {
    const direct = new H2Unary({
      endpoints: cluster.endpoints,
      tls: { ca: readFileSync(pki.ca), cert: readFileSync(pki.clientCert), key: readFileSync(pki.clientKey) },
    });
    try {
      const message = RANGE_REQUEST.serialize({ key: Buffer.from("/tls/a"), countOnly: true });
      let result = await direct.call("/etcdserverpb.KV/Range", message, 2000);
      // The first calls answer unsent while the connection is made.
      for (let attempt = 0; result.kind === "unsent" && attempt < 200; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        result = await direct.call("/etcdserverpb.KV/Range", message, 2000);
      }
      assert.equal(result.kind, "ok", JSON.stringify(result));
      assert.ok(result.kind === "ok" && RANGE_RESPONSE.deserialize(result.message).header.revision > 0);
    } finally {
      direct.close();
    }
  });

  it("is refused without a client certificate", async () => {
    await assert.rejects(
      EtcdStorage.open({ endpoints: cluster.endpoints, prefix: "/tls", tls: { ca: readFileSync(pki.ca) }, requestTimeoutMs: 3_000 }),
      (error: unknown) => isStorageError(error, "Unavailable") || isStorageError(error, "Timeout"),
    );
  });
});
