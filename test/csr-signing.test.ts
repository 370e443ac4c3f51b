// The CSR signing path end to end, under --compat kubernetes (kubectl's certificate commands
// hard-code kube's group): a request made with openssl, created and approved with kubectl, signed
// by csrsigning with the cluster CA, and the certificate then authenticates to the server.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { apiGroup, KUBERNETES_PROFILE } from "../src/api/profile.js";
import { json, request } from "./helpers/http.js";
import { kubectlFor, resolveKubectl, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

const profile = KUBERNETES_PROFILE;
const KUBECTL = resolveKubectl("default");

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

/** A new EC key and a PEM certificate request for `subject` (openssl's `/CN=…/O=…` form), with optional extra `req` arguments. */
function opensslRequest(dir: string, name: string, subject: string, extra: readonly string[] = []): { key: string; request: string } {
  const keyPath = join(dir, `${name}.key`);
  const requestPath = join(dir, `${name}.csr`);
  execFileSync(
    "openssl",
    ["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", keyPath, "-out", requestPath, "-subj", subject, ...extra],
    {
      stdio: "pipe",
    },
  );
  return { key: readFileSync(keyPath, "utf8"), request: readFileSync(requestPath, "utf8") };
}

describe(`CSR signing: openssl request, kubectl ${KUBECTL.version} approve, signed certificate authenticates (kubernetes profile)`, () => {
  const server = useTestServer({ profile });
  let kubectl: Kubectl;
  before(() => {
    kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, KUBECTL);
  });

  const create = async (name: string, request: string, spec: Record<string, unknown>): Promise<void> => {
    const path = join(server().dataDir, `${name}.json`);
    writeFileSync(
      path,
      JSON.stringify({
        apiVersion: `${apiGroup(profile, "certificates")}/v1`,
        kind: "CertificateSigningRequest",
        metadata: { name },
        spec: { request: Buffer.from(request).toString("base64"), ...spec },
      }),
    );
    ok(await kubectl(["create", "-f", path]));
  };
  const read = async (name: string): Promise<Record<string, unknown>> =>
    JSON.parse(ok(await kubectl(["get", "csr", name, "-o", "json"]))) as Record<string, unknown>;
  const statusOf = (csr: Record<string, unknown>): { certificate?: string; conditions?: { type: string; reason?: string; message?: string }[] } =>
    (csr["status"] ?? {}) as { certificate?: string; conditions?: { type: string; reason?: string; message?: string }[] };

  it("signs an approved client request with the cluster CA for expirationSeconds; the certificate is answered as its CN and O", async () => {
    const dir = server().dataDir;
    const { key, request: pem } = opensslRequest(dir, "jane", "/CN=jane/O=dev-team");
    await create("jane", pem, { signerName: profile.apiServerClientSigner, usages: ["digital signature", "client auth"], expirationSeconds: 3600 });
    assert.equal(statusOf(await read("jane")).certificate, undefined, "nothing is signed before approval");
    ok(await kubectl(["certificate", "approve", "jane"]));
    const encoded = await waitFor(async () => statusOf(await read("jane")).certificate, { what: "the signed certificate", timeoutMs: 15_000 });
    const issued = Buffer.from(encoded, "base64").toString("utf8");
    assert.match(issued, /^-----BEGIN CERTIFICATE-----\n/);
    const certificate = new X509Certificate(issued);
    assert.ok(certificate.verify(new X509Certificate(server().server.caCertificate).publicKey), "issued by the cluster CA");
    assert.equal(certificate.ca, false);
    assert.match(certificate.subject, /CN=jane/);
    const lifetimeMs = Date.parse(certificate.validTo) - Date.now();
    assert.ok(lifetimeMs > 3000_000 && lifetimeMs <= 3600_000, `valid for about an hour, not the default year (${lifetimeMs} ms left)`);
    assert.match(certificate.keyUsage?.join(",") ?? "", /1\.3\.6\.1\.5\.5\.7\.3\.2/, "extended key usage client auth");

    const credentials = { url: server().server.url, ca: server().server.caCertificate, cert: issued, key };
    const review = await request(credentials, "POST", `/apis/${apiGroup(profile, "authentication")}/v1/selfsubjectreviews`, {
      body: { apiVersion: `${apiGroup(profile, "authentication")}/v1`, kind: "SelfSubjectReview" },
    });
    assert.equal(review.status, 201, review.body);
    const user = ((json(review)["status"] as Record<string, unknown>)["userInfo"] ?? {}) as { username?: string; groups?: string[] };
    assert.equal(user.username, "jane");
    assert.ok(user.groups?.includes("dev-team"), `groups ${JSON.stringify(user.groups)}`);
  });

  it("the client signer refuses system:masters at create (CertificateSubjectRestriction)", async () => {
    const { request: pem } = opensslRequest(server().dataDir, "root", "/CN=root/O=system:masters");
    const path = join(server().dataDir, "root.json");
    writeFileSync(
      path,
      JSON.stringify({
        apiVersion: `${apiGroup(profile, "certificates")}/v1`,
        kind: "CertificateSigningRequest",
        metadata: { name: "root" },
        spec: { request: Buffer.from(pem).toString("base64"), signerName: profile.apiServerClientSigner, usages: ["client auth"] },
      }),
    );
    const refused = await kubectl(["create", "-f", path]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /system:masters group is not allowed/);
  });

  it("an approved request that breaks its signer's rules gets Failed (SignerValidationFailure) and no certificate", async () => {
    const { request: pem } = opensslRequest(server().dataDir, "server-usage", "/CN=svc");
    await create("server-usage", pem, { signerName: profile.apiServerClientSigner, usages: ["server auth"] });
    ok(await kubectl(["certificate", "approve", "server-usage"]));
    const failed = await waitFor(async () => statusOf(await read("server-usage")).conditions?.find((condition) => condition.type === "Failed"), {
      what: "the Failed condition",
      timeoutMs: 15_000,
    });
    assert.equal(failed.reason, "SignerValidationFailure");
    assert.equal(failed.message, "invalid usage for client certificate: server auth");
    assert.equal(statusOf(await read("server-usage")).certificate, undefined);
  });

  it("v1 refuses the legacy-unknown signer", async () => {
    const { request: pem } = opensslRequest(server().dataDir, "legacy", "/CN=legacy");
    const path = join(server().dataDir, "legacy.json");
    writeFileSync(
      path,
      JSON.stringify({
        apiVersion: `${apiGroup(profile, "certificates")}/v1`,
        kind: "CertificateSigningRequest",
        metadata: { name: "legacy" },
        spec: { request: Buffer.from(pem).toString("base64"), signerName: profile.legacyUnknownSigner, usages: ["client auth"] },
      }),
    );
    const refused = await kubectl(["create", "-f", path]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /the legacy signerName is not allowed via this API version/);
  });
});
