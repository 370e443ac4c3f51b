import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { apiGroup, metaGroup, ORCH_PROFILE } from "../../api/profile.js";
import { generateCa } from "../../cli/pki-generate.js";
import { registryClient } from "../../registry/index.js";
import { generateTestRequest } from "../../testing/csr.js";
import { inProcessServer } from "../../testing/in-process.js";
import { InformerFactory } from "../runtime/informer.js";
import { CSR_RETENTION_MS, csrCleanerController } from "./cleaner/csr-cleaner-controller.js";
import { csrResource, viewCsr } from "./csr.js";

const profile = ORCH_PROFILE;
const certificates = apiGroup(profile, "certificates");
const rbac = apiGroup(profile, "rbac.authorization");
const CSRS = `/apis/${certificates}/v1/certificatesigningrequests`;
const SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

type Server = Awaited<ReturnType<typeof inProcessServer>>;

async function until<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

async function nodeClientRequest(server: Server, name: string, as: "node1" | "alice" | "admin", subject = "CN=system:node:n1, O=system:nodes"): Promise<void> {
  const { request } = await generateTestRequest({ subject });
  const created = await server.call("POST", CSRS, {
    as,
    body: {
      apiVersion: `${certificates}/v1`,
      kind: "CertificateSigningRequest",
      metadata: { name },
      spec: {
        request: Buffer.from(request).toString("base64"),
        signerName: profile.nodeClientSigner,
        usages: ["digital signature", "key encipherment", "client auth"],
      },
    },
  });
  assert.equal(created.status, 201, created.text);
}

interface CsrStatus {
  readonly certificate?: string;
  readonly conditions?: readonly {
    readonly type: string;
    readonly reason?: string;
    readonly message?: string;
    readonly lastUpdateTime?: string;
    readonly lastTransitionTime?: string;
  }[];
}

async function statusOf(server: Server, name: string): Promise<CsrStatus> {
  return ((await server.call("GET", `${CSRS}/${name}`)).json["status"] ?? {}) as CsrStatus;
}

describe("csrapproving + csrsigning (in process, orch profile)", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer({ clusterCa: await generateCa() });
    // alice may create requests, not ask for node client certificates.
    const role = {
      apiVersion: `${rbac}/v1`,
      kind: "ClusterRole",
      metadata: { name: "csr-creator" },
      rules: [{ apiGroups: [certificates], resources: ["certificatesigningrequests"], verbs: ["create", "get"] }],
    };
    assert.equal((await server.call("POST", `/apis/${rbac}/v1/clusterroles`, { body: role })).status, 201);
    const binding = {
      apiVersion: `${rbac}/v1`,
      kind: "ClusterRoleBinding",
      metadata: { name: "alice-csr" },
      roleRef: { apiGroup: rbac, kind: "ClusterRole", name: "csr-creator" },
      subjects: [{ kind: "User", name: "alice", apiGroup: rbac }],
    };
    assert.equal((await server.call("POST", `/apis/${rbac}/v1/clusterrolebindings`, { body: binding })).status, 201);
    // Nodes may create requests (kube's system:node-bootstrapper role), nothing more yet.
    const nodes = {
      ...binding,
      metadata: { name: "nodes-bootstrap" },
      roleRef: { ...binding.roleRef, name: "system:node-bootstrapper" },
      subjects: [{ kind: "Group", name: "system:nodes", apiGroup: rbac }],
    };
    assert.equal((await server.call("POST", `/apis/${rbac}/v1/clusterrolebindings`, { body: nodes })).status, 201);
  });
  after(async () => server.stop());

  it("approves through nodeclient for a requester who may create it, and leaves requests pending whose requester may not", async () => {
    await nodeClientRequest(server, "alice-for-node", "alice");
    await nodeClientRequest(server, "node-before-binding", "node1");
    // The admin (system:masters) may create nodeclient; named to sort last, so the pass that
    // approves it has looked at the two above first.
    await nodeClientRequest(server, "zz-marker", "admin", "CN=system:node:n9, O=system:nodes");
    const marker = await until(
      async () => (await statusOf(server, "zz-marker")).conditions?.find((condition) => condition.type === "Approved"),
      "the marker's approval",
    );
    assert.equal(marker.message, "Auto approving kubelet client certificate after SubjectAccessReview.");
    assert.equal((await statusOf(server, "alice-for-node")).conditions, undefined);
    assert.equal((await statusOf(server, "node-before-binding")).conditions, undefined);
  });

  it("approves (AutoApproved) and then signs a node's own client request once it may create selfnodeclient", async () => {
    const binding = {
      apiVersion: `${rbac}/v1`,
      kind: "ClusterRoleBinding",
      metadata: { name: "nodes-renew-self" },
      roleRef: { apiGroup: rbac, kind: "ClusterRole", name: `system:certificates.${profile.apiDomain}:certificatesigningrequests:selfnodeclient` },
      subjects: [{ kind: "Group", name: "system:nodes", apiGroup: rbac }],
    };
    // The role is one of the default cluster roles.
    assert.equal((await server.call("GET", `/apis/${rbac}/v1/clusterroles/${binding.roleRef.name}`)).status, 200);
    assert.equal((await server.call("POST", `/apis/${rbac}/v1/clusterrolebindings`, { body: binding })).status, 201);
    await nodeClientRequest(server, "node-self", "node1");
    const status = await until(async () => {
      const current = await statusOf(server, "node-self");
      return current.certificate === undefined ? undefined : current;
    }, "the signed node certificate");
    const approved = status.conditions?.find((condition) => condition.type === "Approved");
    assert.equal(approved?.reason, "AutoApproved");
    assert.equal(approved?.message, "Auto approving self kubelet client certificate after SubjectAccessReview.");
    // metav1.Time: whole seconds.
    assert.match(String(approved?.lastUpdateTime), SECONDS);
    assert.match(String(approved?.lastTransitionTime), SECONDS);
    assert.match(Buffer.from(status.certificate ?? "", "base64").toString("utf8"), /^-----BEGIN CERTIFICATE-----/);
    // alice's request for a node's certificate is not her own and she may not create nodeclient.
    assert.equal((await statusOf(server, "alice-for-node")).conditions, undefined);
  });

  it("marks an approved request its signer refuses Failed (SignerValidationFailure), stamped in whole seconds", async () => {
    const { request } = await generateTestRequest({ subject: "CN=someone" });
    const body = {
      apiVersion: `${certificates}/v1`,
      kind: "CertificateSigningRequest",
      metadata: { name: "server-usage" },
      spec: { request: Buffer.from(request).toString("base64"), signerName: profile.apiServerClientSigner, usages: ["server auth"] },
    };
    assert.equal((await server.call("POST", CSRS, { body })).status, 201);
    const current = (await server.call("GET", `${CSRS}/server-usage`)).json;
    const approval = { ...current, status: { conditions: [{ type: "Approved", status: "True", reason: "Test" }] } };
    assert.equal((await server.call("PUT", `${CSRS}/server-usage/approval`, { body: approval })).status, 200);
    const failed = await until(
      async () => (await statusOf(server, "server-usage")).conditions?.find((condition) => condition.type === "Failed"),
      "the Failed condition",
    );
    assert.equal(failed.reason, "SignerValidationFailure");
    assert.equal(failed.message, "invalid usage for client certificate: server auth");
    assert.deepEqual(
      (await statusOf(server, "server-usage")).conditions?.map((condition) => condition.type),
      ["Approved", "Failed"],
      "the status write keeps Approved where it was (kube's preserveConditionInstances)",
    );
    assert.match(String(failed.lastUpdateTime), SECONDS);
    assert.equal((await statusOf(server, "server-usage")).certificate, undefined);
  });

  it("refuses a status.certificate that is not PEM CERTIFICATE blocks", async () => {
    const current = (await server.call("GET", `${CSRS}/node-before-binding`)).json;
    const approval = { ...current, status: { conditions: [{ type: "Approved", status: "True", reason: "Test" }] } };
    assert.equal((await server.call("PUT", `${CSRS}/node-before-binding/approval`, { body: approval })).status, 200);
    // Whether or not the signer got there first, a key block is never a certificate.
    const latest = (await server.call("GET", `${CSRS}/node-before-binding`)).json;
    const keyBlock = Buffer.from("-----BEGIN PRIVATE KEY-----\nMAA=\n-----END PRIVATE KEY-----\n").toString("base64");
    const refused = await server.call("PUT", `${CSRS}/node-before-binding/status`, {
      body: { ...latest, status: { ...(latest["status"] as object), certificate: keyBlock } },
    });
    assert.equal(refused.status, 422, refused.text);
    assert.match(refused.text, /only CERTIFICATE PEM blocks are allowed|updates may not modify existing certificate content/);
  });
});

describe("csrcleaner with an injected clock", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer({ controllers: ["*", "-csrcleaner", "-csrapproving"] });
  });
  after(async () => server.stop());

  it("deletes a request 1 hour after its last status change, not before", async () => {
    const client = registryClient(server.server.registry, metaGroup(profile));
    await nodeClientRequest(server, "pending", "admin");
    await nodeClientRequest(server, "denied", "admin");
    const created = Date.parse(String(((await server.call("GET", `${CSRS}/pending`)).json["metadata"] as Record<string, unknown>)["creationTimestamp"]));
    const later = new Date(created + CSR_RETENTION_MS / 2).toISOString();
    const denied = (await server.call("GET", `${CSRS}/denied`)).json;
    const denial = {
      ...denied,
      status: { conditions: [{ type: "Denied", status: "True", reason: "Test", lastUpdateTime: later, lastTransitionTime: later }] },
    };
    assert.equal((await server.call("PUT", `${CSRS}/denied/approval`, { body: denial })).status, 200);

    const informers = new InformerFactory((resource) => server.server.registry.feed(resource.group, resource.version, resource.plural));
    let clock = created + CSR_RETENTION_MS - 1000;
    const cleaner = csrCleanerController({ client, informers, profile, now: () => clock });
    const requests = informers.informer(csrResource(profile));
    await until(
      async () => (viewCsr(requests.get("", "denied") ?? { metadata: {} }).conditions.length > 0 ? true : undefined),
      "the informer to see the denial",
    );
    assert.deepEqual([...cleaner.initialKeys()].sort(), ["denied", "pending"]);
    assert.equal(await cleaner.reconcile("pending"), 1000, "looked at again at its deadline");
    assert.equal(await cleaner.reconcile("denied"), Date.parse(later) + CSR_RETENTION_MS - clock, "the denied one counts from its status change");
    clock = created + CSR_RETENTION_MS + 1000;
    assert.equal(await cleaner.reconcile("pending"), undefined);
    assert.equal((await server.call("GET", `${CSRS}/pending`)).status, 404);
    assert.equal((await server.call("GET", `${CSRS}/denied`)).status, 200);
    clock = Date.parse(later) + CSR_RETENTION_MS + 1000;
    assert.equal(await cleaner.reconcile("denied"), undefined);
    assert.equal((await server.call("GET", `${CSRS}/denied`)).status, 404);
  });
});
