import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ApiError } from "../../../api/errors.js";
import type { ApiObject } from "../../../api/object.js";
import { ORCH_PROFILE } from "../../../api/profile.js";
import { MemoryStorage } from "../../../storage/memory/memory-storage.js";
import { Registry } from "../../registry.js";
import { coreResources } from "./index.js";
import { DEFAULT_SERVICE_NETWORK } from "./service-network.js";
import { tokenRequestHandler, type TokenRequestClaims } from "./token-request.js";

describe("tokenRequestHandler()", () => {
  const storage = new MemoryStorage();
  const registry = new Registry(coreResources(ORCH_PROFILE, DEFAULT_SERVICE_NETWORK), storage);
  const issued: TokenRequestClaims[] = [];
  const handler = tokenRequestHandler(ORCH_PROFILE, {
    apiAudiences: ["https://api"],
    issue: async (claims) => {
      issued.push(claims);
      return { token: `token-${issued.length}`, expiresAt: Date.parse("2030-01-01T00:00:00Z") };
    },
  });
  const uids: Record<string, string> = {};
  const create = (object: Partial<ApiObject>, options: { name?: string; dryRun?: boolean } = {}) =>
    handler.create({
      namespace: "default",
      name: options.name ?? "builder",
      object: { metadata: {}, ...object },
      user: undefined,
      dryRun: options.dryRun ?? false,
      lookup: (group, version, plural) => registry.find(group, version, plural),
    });
  const rejects = (promise: Promise<unknown>, code: number, message: RegExp) =>
    assert.rejects(promise, (error: unknown) => error instanceof ApiError && error.code === code && message.test(error.message));

  before(async () => {
    for (const [plural, object] of [
      ["namespaces", { metadata: { name: "default" } }],
      ["serviceaccounts", { metadata: { name: "builder", namespace: "default" } }],
      ["pods", { metadata: { name: "web", namespace: "default" }, spec: { serviceAccountName: "builder", nodeName: "node-1" } }],
      ["pods", { metadata: { name: "other", namespace: "default" }, spec: {} }],
      ["secrets", { metadata: { name: "anchor", namespace: "default" } }],
      ["nodes", { metadata: { name: "node-1" } }],
    ] as const) {
      const store = registry.find("", "v1", plural);
      assert.ok(store !== undefined);
      const created = await store.create(object.metadata.namespace ?? "", {
        apiVersion: "v1",
        kind: store.definition.kind,
        ...structuredClone(object),
      } as ApiObject);
      uids[`${plural}/${object.metadata.name}`] = created.metadata.uid ?? "";
    }
  });
  after(async () => {
    await storage.close();
  });

  it("defaults audiences to the API's and the lifetime to one hour (3600 seconds, as kube)", async () => {
    const response = await create({ spec: {} });
    assert.equal(response["kind"], "TokenRequest");
    assert.equal(response["apiVersion"], "authentication.orch.io/v1");
    assert.deepEqual(response["spec"], { audiences: ["https://api"], expirationSeconds: 3600, boundObjectRef: null });
    assert.deepEqual(response["status"], { token: "token-1", expirationTimestamp: "2030-01-01T00:00:00Z" });
    assert.deepEqual(issued.at(-1), {
      namespace: "default",
      serviceAccount: { name: "builder", uid: uids["serviceaccounts/builder"] },
      audiences: ["https://api"],
      expirationSeconds: 3600,
    });
  });

  it("binds to a pod (naming its node) or a secret by uid", async () => {
    await create({ spec: { boundObjectRef: { apiVersion: "v1", kind: "Pod", name: "web" } } });
    assert.deepEqual(
      [issued.at(-1)?.pod, issued.at(-1)?.node],
      [
        { name: "web", uid: uids["pods/web"] },
        { name: "node-1", uid: uids["nodes/node-1"] },
      ],
    );
    await create({ spec: { boundObjectRef: { apiVersion: "v1", kind: "Secret", name: "anchor", uid: uids["secrets/anchor"] } } });
    assert.deepEqual(issued.at(-1)?.secret, { name: "anchor", uid: uids["secrets/anchor"] });
  });

  const refused: [string, Partial<ApiObject>, number, RegExp, string?][] = [
    ["a lifetime under ten minutes", { spec: { expirationSeconds: 599 } }, 422, /less than 10 minutes/],
    ["a lifetime over 2^32 seconds", { spec: { expirationSeconds: 2 ** 32 + 1 } }, 422, /larger than 2\^32/],
    ["a missing account", { spec: {} }, 404, /serviceaccounts "ghost" not found/, "ghost"],
    ["a missing bound pod", { spec: { boundObjectRef: { apiVersion: "v1", kind: "Pod", name: "gone" } } }, 404, /pods "gone" not found/],
    ["a pod of another account", { spec: { boundObjectRef: { apiVersion: "v1", kind: "Pod", name: "other" } } }, 400, /different serviceaccount/],
    [
      "a stale bound uid",
      { spec: { boundObjectRef: { apiVersion: "v1", kind: "Secret", name: "anchor", uid: "stale" } } },
      409,
      /does not match the UID in record/,
    ],
    [
      "an unsupported kind, named as Go prints a GroupVersionKind",
      { spec: { boundObjectRef: { apiVersion: "apps/v1", kind: "Deployment", name: "x" } } },
      400,
      /^cannot bind token to object of type apps\/v1, Kind=Deployment$/,
    ],
    [
      "an unsupported core kind (its empty group before the slash)",
      { spec: { boundObjectRef: { apiVersion: "v1", kind: "ConfigMap", name: "x" } } },
      400,
      /^cannot bind token to object of type \/v1, Kind=ConfigMap$/,
    ],
    [
      "a Node (kubectl 1.31+ offers it; kube 1.30's gate is off)",
      { spec: { boundObjectRef: { apiVersion: "v1", kind: "Node", name: "n1" } } },
      400,
      /^cannot bind token to a Node object as the "ServiceAccountTokenNodeBinding" feature-gate is disabled$/,
    ],
    ["a body naming another account", { metadata: { name: "someone-else" }, spec: {} }, 400, /does not match/],
  ];
  for (const [what, object, code, message, name] of refused) {
    it(`refuses ${what} with ${code}`, async () => {
      const before = issued.length;
      await rejects(create(object, { name }), code, message);
      assert.equal(issued.length, before, "nothing is signed");
    });
  }

  it("signs nothing on a dry run", async () => {
    const before = issued.length;
    const response = await create({ spec: {} }, { dryRun: true });
    assert.equal((response["status"] as { token: string }).token, "");
    assert.equal(issued.length, before);
  });
});
