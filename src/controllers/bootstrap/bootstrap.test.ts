import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { base64url, compactVerify } from "jose";
import { metaGroup, ORCH_PROFILE } from "../../api/profile.js";
import { registryClient } from "../../registry/index.js";
import { inProcessServer } from "../../testing/in-process.js";
import { CLUSTER_INFO } from "./bootstrap-signer.js";
import { waitFor } from "../../../test/helpers/wait.js";
import { InformerFactory } from "../runtime/informer.js";
import { tokenCleanerController } from "./token-cleaner.js";
import { SECRETS as SECRETS_REF } from "./tokens.js";

const profile = ORCH_PROFILE;
const SECRETS = `/api/v1/namespaces/${profile.systemNamespace}/secrets`;
const INFO = `/api/v1/namespaces/${profile.publicNamespace}/configmaps/${CLUSTER_INFO}`;

type Server = Awaited<ReturnType<typeof inProcessServer>>;

function tokenSecret(id: string, secret: string, extra: Record<string, string> = {}): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: `bootstrap-token-${id}` },
    type: profile.bootstrapTokenSecretType,
    stringData: { "token-id": id, "token-secret": secret, "usage-bootstrap-signing": "true", ...extra },
  };
}

async function until<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** Verifies a detached signature as the spec says a client must: payload put back between the dots, HS256 only, the whole token as key. */
async function verifies(signature: string, content: string, token: string): Promise<boolean> {
  const [header, , mac] = signature.split(".");
  try {
    await compactVerify(`${header}.${base64url.encode(content)}.${mac}`, new TextEncoder().encode(token), { algorithms: ["HS256"] });
    return true;
  } catch {
    return false;
  }
}

describe("bootstrapsigner: cluster-info signed by the bootstrap tokens", () => {
  let server: Server;
  const data = async (): Promise<Record<string, string>> => ((await server.call("GET", INFO)).json["data"] ?? {}) as Record<string, string>;
  const signatures = async (): Promise<string[]> =>
    Object.keys(await data())
      .filter((key) => key.startsWith(profile.jwsConfigMapKeyPrefix))
      .sort();
  before(async () => {
    server = await inProcessServer({ controllers: ["*", "bootstrapsigner"] });
    const info = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: CLUSTER_INFO },
      data: { [profile.clusterInfoConfigKey]: "apiVersion: v1\nkind: Config\n" },
    };
    assert.equal((await server.call("POST", `/api/v1/namespaces/${profile.publicNamespace}/configmaps`, { body: info })).status, 201);
  });
  after(async () => server.stop());

  it("adds a JWS that verifies with the token (HS256) and not with another", async () => {
    assert.equal((await server.call("POST", SECRETS, { body: tokenSecret("abcdef", "0123456789abcdef") })).status, 201);
    const signature = await until(async () => (await data())[`${profile.jwsConfigMapKeyPrefix}abcdef`], "the signature");
    const content = (await data())[profile.clusterInfoConfigKey] ?? "";
    assert.equal(await verifies(signature, content, "abcdef.0123456789abcdef"), true);
    assert.equal(await verifies(signature, content, "abcdef.fedcba9876543210"), false);
    assert.equal(await verifies(signature, `${content}# edited\n`, "abcdef.0123456789abcdef"), false);
  });

  it("follows tokens coming and going, ignores tokens not for signing or expired, and re-signs edited content", async () => {
    assert.equal((await server.call("POST", SECRETS, { body: tokenSecret("ghijkl", "0123456789ghijkl") })).status, 201);
    assert.equal((await server.call("POST", SECRETS, { body: tokenSecret("mnopqr", "0123456789mnopqr", { "usage-bootstrap-signing": "false" }) })).status, 201);
    assert.equal((await server.call("POST", SECRETS, { body: tokenSecret("stuvwx", "0123456789stuvwx", { expiration: "2001-01-01T00:00:00Z" }) })).status, 201);
    await until(async () => ((await signatures()).length === 2 ? true : undefined), "two signatures");
    assert.deepEqual(await signatures(), [`${profile.jwsConfigMapKeyPrefix}abcdef`, `${profile.jwsConfigMapKeyPrefix}ghijkl`]);
    assert.equal((await server.call("DELETE", `${SECRETS}/bootstrap-token-abcdef`)).status, 200);
    await until(async () => ((await signatures()).length === 1 ? true : undefined), "the deleted token's signature to go");
    assert.deepEqual(await signatures(), [`${profile.jwsConfigMapKeyPrefix}ghijkl`]);

    const edited = {
      ...(await server.call("GET", INFO)).json,
      data: { ...(await data()), [profile.clusterInfoConfigKey]: "apiVersion: v1\nkind: Config\nclusters: []\n" },
    };
    assert.equal((await server.call("PUT", INFO, { body: edited })).status, 200);
    const resigned = await until(async () => {
      const current = await data();
      const signature = current[`${profile.jwsConfigMapKeyPrefix}ghijkl`] ?? "";
      return (await verifies(signature, current[profile.clusterInfoConfigKey] ?? "", "ghijkl.0123456789ghijkl")) ? signature : undefined;
    }, "the signature over the edited content");
    assert.ok(resigned.includes(".."), "detached: the payload part is empty");
  });
});

describe("tokencleaner with an injected clock", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer({ controllers: ["*", "-tokencleaner"] });
  });
  after(async () => server.stop());

  it("deletes bootstrap token Secrets once expired, asks to look again at the expiry before, keeps the others", async () => {
    const client = registryClient(server.server.registry, metaGroup(profile));
    const informers = new InformerFactory((resource) => server.server.registry.feed(resource.group, resource.version, resource.plural));
    const expires = Date.parse("2030-01-01T00:00:00Z");
    let clock = expires - 1000;
    const cleaner = tokenCleanerController({ client, informers, profile, now: () => clock });
    assert.equal((await server.call("POST", SECRETS, { body: tokenSecret("aaaaaa", "0123456789aaaaaa", { expiration: "2030-01-01T00:00:00Z" }) })).status, 201);
    assert.equal((await server.call("POST", SECRETS, { body: tokenSecret("bbbbbb", "0123456789bbbbbb") })).status, 201);
    const secrets = informers.informer(SECRETS_REF);
    await until(async () => secrets.get(profile.systemNamespace, "bootstrap-token-bbbbbb"), "the informer to see both tokens");
    assert.deepEqual([...cleaner.initialKeys()], [`${profile.systemNamespace}/bootstrap-token-aaaaaa`], "only tokens with an expiration are queued");
    assert.equal(await cleaner.reconcile(`${profile.systemNamespace}/bootstrap-token-aaaaaa`), 1000, "looked at again at the expiry");
    assert.equal(await cleaner.reconcile(`${profile.systemNamespace}/bootstrap-token-bbbbbb`), undefined);
    clock = expires;
    assert.equal(await cleaner.reconcile(`${profile.systemNamespace}/bootstrap-token-aaaaaa`), undefined);
    assert.equal((await server.call("GET", `${SECRETS}/bootstrap-token-aaaaaa`)).status, 404);
    assert.equal((await server.call("GET", `${SECRETS}/bootstrap-token-bbbbbb`)).status, 200);
  });
});

describe("tokencleaner running on the work queue", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer({ controllers: ["*", "tokencleaner"] });
  });
  after(async () => server.stop());

  it("deletes a token that expired already, and one that expires later when its time comes", async () => {
    const soon = new Date(Math.ceil((Date.now() + 4000) / 1000) * 1000).toISOString().replace(/\.\d+Z$/, "Z");
    assert.equal((await server.call("POST", SECRETS, { body: tokenSecret("cccccc", "0123456789cccccc", { expiration: "2001-01-01T00:00:00Z" }) })).status, 201);
    assert.equal((await server.call("POST", SECRETS, { body: tokenSecret("dddddd", "0123456789dddddd", { expiration: soon }) })).status, 201);
    const gone = async (id: string): Promise<boolean> => (await server.call("GET", `${SECRETS}/bootstrap-token-${id}`)).status === 404;
    await waitFor(() => gone("cccccc"), { what: "the expired token to go", timeoutMs: 30_000 });
    await waitFor(() => gone("dddddd"), { what: "the later token to go", timeoutMs: 30_000 });
    // Seen gone no earlier than its expiration: deleted then, not at creation.
    assert.ok(Date.now() >= Date.parse(soon), "deleted at its expiration, not before");
  });
});
