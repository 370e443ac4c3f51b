import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../../testing/in-process.js";
import { TEST_CSR_REQUEST } from "../../../testing/csr.js";
import { generateCa } from "../../../cli/pki-generate.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

const CSRS = "/apis/certificates.orch.io/v1/certificatesigningrequests";

const conditions = (csr: Json): Json[] => ((csr["status"] as Json | undefined)?.["conditions"] as Json[] | undefined) ?? [];

describe("CertificateSigningRequest: requester, approval and status as kube's strategies treat them", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(async () => {
    await server.stop();
  });

  async function create(name: string): Promise<Json> {
    const created = await server.call("POST", CSRS, {
      body: {
        apiVersion: "certificates.orch.io/v1",
        kind: "CertificateSigningRequest",
        metadata: { name },
        spec: { request: TEST_CSR_REQUEST, signerName: "example.com/signer", usages: ["client auth"], username: "mallory", groups: ["system:masters"] },
        status: { conditions: [{ type: "Approved", status: "True", reason: "Self" }] },
      },
    });
    assert.equal(created.status, 201, created.text);
    return created.json;
  }

  it("records the authenticated requester, never the body's, and starts without status", async () => {
    const csr = await create("requester");
    const spec = csr["spec"] as Json;
    assert.equal(spec["username"], "admin");
    assert.deepEqual(spec["groups"], ["system:masters", "system:authenticated"]);
    assert.deepEqual(csr["status"], {});
  });

  it("approval sets only the conditions (timestamps filled in); spec changes in the body are ignored", async () => {
    const csr = await create("approve-me");
    const body = {
      ...csr,
      spec: { ...(csr["spec"] as Json), signerName: "example.com/other" },
      status: { certificate: "Zm9v", conditions: [{ type: "Approved", status: "True", reason: "Reviewed", message: "ok" }] },
    };
    const approved = await server.call("PUT", `${CSRS}/approve-me/approval`, { body });
    assert.equal(approved.status, 200, approved.text);
    const [condition] = conditions(approved.json);
    assert.equal(condition?.["type"], "Approved");
    assert.match(String(condition?.["lastUpdateTime"]), /Z$/);
    assert.match(String(condition?.["lastTransitionTime"]), /Z$/);
    assert.equal((approved.json["spec"] as Json)["signerName"], "example.com/signer");
    assert.equal((approved.json["status"] as Json)["certificate"], undefined, "approval does not issue");
  });

  it("status writes keep the approval conditions and may add the certificate; no write removes Approved", async () => {
    const current = (await server.call("GET", `${CSRS}/approve-me`)).json;
    const certificate = Buffer.from((await generateCa()).certificate).toString("base64");
    const signed = await server.call("PUT", `${CSRS}/approve-me/status`, { body: { ...current, status: { certificate } } });
    assert.equal(signed.status, 200, signed.text);
    const issued = await server.call("PUT", `${CSRS}/approve-me/status`, {
      body: { ...signed.json, status: { certificate, conditions: [{ type: "Failed", status: "True", reason: "Nope" }] } },
    });
    assert.equal(issued.status, 200, issued.text);
    assert.deepEqual(
      conditions(issued.json)
        .map((condition) => condition["type"])
        .sort(),
      ["Approved", "Failed"],
    );
    assert.equal((issued.json["status"] as Json)["certificate"], certificate);
    const changed = await server.call("PUT", `${CSRS}/approve-me/status`, {
      body: { ...issued.json, status: { ...(issued.json["status"] as Json), certificate: "Zm9v" } },
    });
    assert.equal(changed.status, 422);
    assert.match(String(changed.json["message"]), /updates may not modify existing certificate content/);
    const removed = await server.call("PUT", `${CSRS}/approve-me/approval`, { body: { ...issued.json, status: { conditions: [] } } });
    assert.equal(removed.status, 422);
    assert.match(String(removed.json["message"]), /updates may not remove a condition of type "Approved"/);
  });

  it("an update of the object changes metadata only: spec and status stay", async () => {
    const current = (await server.call("GET", `${CSRS}/approve-me`)).json;
    const updated = await server.call("PUT", `${CSRS}/approve-me`, {
      body: {
        ...current,
        metadata: { ...(current["metadata"] as Json), labels: { team: "a" } },
        spec: { ...(current["spec"] as Json), usages: ["server auth"] },
      },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual((updated.json["spec"] as Json)["usages"], ["client auth"]);
    assert.deepEqual(((updated.json["metadata"] as Json)["labels"] as Json)["team"], "a");
    assert.equal(conditions(updated.json).length, 2);
  });
});
