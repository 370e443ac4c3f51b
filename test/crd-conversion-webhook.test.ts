import { after, before, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiGroup, ORCH_PROFILE } from "../src/api/profile.js";
import { inProcessServer } from "../src/testing/in-process.js";
import { eventually } from "./helpers/wait.js";
import { generateTestPki, startWebhookServer, type TestWebhookServer, type WebhookAnswer } from "../src/testing/webhook-server.js";
import { MemoryStorage } from "../src/storage/memory/memory-storage.js";

type Json = Record<string, unknown>;
type Server = Awaited<ReturnType<typeof inProcessServer>>;

const APIEXTENSIONS = apiGroup(ORCH_PROFILE, "apiextensions");
const CRDS = `/apis/${APIEXTENSIONS}/v1/customresourcedefinitions`;
const GROUP = "conv.example.com";
const NAME = `gadgets.${GROUP}`;
const V1 = `/apis/${GROUP}/v1/namespaces/default/gadgets`;
const V2 = `/apis/${GROUP}/v2/namespaces/default/gadgets`;

/** v1 (storage) holds `host` and `port`; v2 holds them as one `address` ("host:port"). */
function convert(object: Json, desired: string): Json {
  const spec = (object["spec"] as Json | undefined) ?? {};
  if (desired === `${GROUP}/v2`) {
    return { ...object, apiVersion: desired, spec: { address: `${String(spec["host"])}:${String(spec["port"])}` } };
  }
  const [host, port] = String(spec["address"]).split(":");
  return { ...object, apiVersion: desired, spec: { host, port: Number(port) } };
}

/** How the fixture webhook answers: converting, failing with a message, or with a reply that lacks objects. */
let mode: "convert" | "fail" | "short" = "convert";

function answer(review: Json): WebhookAnswer {
  const request = review["request"] as Json;
  const objects = request["objects"] as Json[];
  const desired = String(request["desiredAPIVersion"]);
  const response =
    mode === "fail"
      ? { uid: request["uid"], result: { status: "Failure", message: "the converter is broken" } }
      : {
          uid: request["uid"],
          convertedObjects: (mode === "short" ? objects.slice(1) : objects).map((object) => convert(object, desired)),
          result: { status: "Success" },
        };
  return { raw: JSON.stringify({ apiVersion: review["apiVersion"], kind: "ConversionReview", response }) };
}

function definition(url: string, caBundle: string, reviewVersions: string[], storage = "v1"): Json {
  const version = (name: string, spec: Json): Json => ({
    name,
    served: true,
    storage: name === storage,
    schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: spec } } } },
  });
  return {
    apiVersion: `${APIEXTENSIONS}/v1`,
    kind: "CustomResourceDefinition",
    metadata: { name: NAME },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural: "gadgets", singular: "gadget", kind: "Gadget", listKind: "GadgetList" },
      versions: [version("v1", { host: { type: "string" }, port: { type: "integer" } }), version("v2", { address: { type: "string" } })],
      conversion: { strategy: "Webhook", webhook: { conversionReviewVersions: reviewVersions, clientConfig: { url: `${url}/convert`, caBundle } } },
    },
  };
}

function gadget(name: string, address: string): Json {
  return { apiVersion: `${GROUP}/v2`, kind: "Gadget", metadata: { name, labels: { app: "x" } }, spec: { address } };
}

function reviewsSent(webhook: TestWebhookServer): Json[] {
  return webhook.reviews.map((review) => review["request"] as Json);
}

describe("CustomResourceDefinition conversion webhooks", () => {
  let server: Server;
  let webhook: TestWebhookServer;
  let caBundle = "";
  const storage = new MemoryStorage();

  before(async () => {
    const pki = generateTestPki(["converter.default.svc"]);
    caBundle = pki.caBundle;
    webhook = await startWebhookServer(pki, (review) => answer(review));
    server = await inProcessServer({ storage });
    const created = await server.call("POST", CRDS, { body: definition(webhook.url, caBundle, ["v1"]) });
    assert.equal(created.status, 201, created.text);
    await eventually(async () => ((await server.call("GET", V2)).status === 200 ? true : undefined));
  });
  beforeEach(() => {
    mode = "convert";
    webhook.reset();
  });
  after(async () => {
    await server.server.stop();
    await webhook.close();
  });

  it("refuses conversion settings kube refuses (422)", async () => {
    const spec = (conversion: Json): Json => {
      const crd = definition(webhook.url, caBundle, ["v1"]);
      return { ...crd, metadata: { name: `others.${GROUP}` }, spec: { ...(crd["spec"] as Json), names: { plural: "others", kind: "Other" }, conversion } };
    };
    const cases: [Json, string][] = [
      [{ strategy: "Webhook" }, "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook"],
      [
        { strategy: "Webhook", webhook: { conversionReviewVersions: ["v1"], clientConfig: { url: "http://127.0.0.1/convert" } } },
        `spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      ],
      [
        { strategy: "Webhook", webhook: { conversionReviewVersions: ["v9"], clientConfig: { url: `${webhook.url}/convert` } } },
        'spec.conversion.conversionReviewVersions: Invalid value: []string{"v9"}: must include at least one of v1, v1beta1',
      ],
      [
        { strategy: "None", webhook: { conversionReviewVersions: ["v1"], clientConfig: { url: `${webhook.url}/convert` } } },
        "spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook",
      ],
    ];
    for (const [conversion, expected] of cases) {
      const response = await server.call("POST", CRDS, { body: spec(conversion) });
      assert.equal(response.status, 422, response.text);
      const causes = (((response.json["details"] as Json)["causes"] as Json[] | undefined) ?? []).map(
        (cause) => `${String(cause["field"])}: ${String(cause["message"])}`,
      );
      assert.ok(causes.includes(expected), causes.join("\n"));
    }
  });

  it("stores an object written at v2 in the storage version v1, converted by a v1 ConversionReview", async () => {
    const created = await server.call("POST", V2, { body: gadget("a", "example.org:8080") });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json["spec"], { address: "example.org:8080" });
    const stored = JSON.parse((await storage.get(`/${GROUP}/gadgets/default/a`)).value) as Json;
    assert.equal(stored["apiVersion"], `${GROUP}/v1`);
    assert.deepEqual(stored["spec"], { host: "example.org", port: 8080 });
    const review = webhook.reviews[0];
    assert.equal(review?.["apiVersion"], `${APIEXTENSIONS}/v1`);
    assert.equal(review?.["kind"], "ConversionReview");
    assert.equal((review?.["request"] as Json)["desiredAPIVersion"], `${GROUP}/v1`);
  });

  it("serves the object at both versions: v2 through the webhook, v1 (the stored form) without a call", async () => {
    await server.call("POST", V2, { body: gadget("b", "b.example:1") });
    webhook.reset();
    const atV1 = await server.call("GET", `${V1}/b`);
    assert.equal(atV1.status, 200, atV1.text);
    assert.deepEqual(atV1.json["spec"], { host: "b.example", port: 1 });
    assert.equal(webhook.reviews.length, 0);
    const atV2 = await server.call("GET", `${V2}/b`);
    assert.equal(atV2.status, 200, atV2.text);
    assert.equal(atV2.json["apiVersion"], `${GROUP}/v2`);
    assert.deepEqual(atV2.json["spec"], { address: "b.example:1" });
    assert.equal((atV2.json["metadata"] as Json)["resourceVersion"], (atV1.json["metadata"] as Json)["resourceVersion"]);
    assert.deepEqual((atV2.json["metadata"] as Json)["labels"], { app: "x" });
  });

  it("converts a list in one batched review", async () => {
    for (const name of ["l1", "l2", "l3"]) await server.call("POST", V2, { body: gadget(name, `${name}.example:2`) });
    webhook.reset();
    const list = await server.call("GET", V2);
    assert.equal(list.status, 200, list.text);
    const items = list.json["items"] as Json[];
    assert.ok(items.length >= 3);
    assert.ok(items.every((item) => item["apiVersion"] === `${GROUP}/v2` && typeof (item["spec"] as Json)["address"] === "string"));
    assert.equal(webhook.reviews.length, 1);
    assert.equal((reviewsSent(webhook)[0]?.["objects"] as Json[]).length, items.length);
  });

  it("updates through the webhook both ways (the old object converted for the update, the new one back to storage)", async () => {
    const current = await server.call("GET", `${V2}/a`);
    const updated = await server.call("PUT", `${V2}/a`, { body: { ...current.json, spec: { address: "example.org:9090" } } });
    assert.equal(updated.status, 200, updated.text);
    const stored = JSON.parse((await storage.get(`/${GROUP}/gadgets/default/a`)).value) as Json;
    assert.deepEqual(stored["spec"], { host: "example.org", port: 9090 });
    const desired = reviewsSent(webhook).map((request) => request["desiredAPIVersion"]);
    assert.ok(desired.includes(`${GROUP}/v1`) && desired.includes(`${GROUP}/v2`), String(desired));
  });

  it("a failing webhook fails reads with 500 and the webhook's message, and fails the whole list", async () => {
    mode = "fail";
    const got = await server.call("GET", `${V2}/a`);
    assert.equal(got.status, 500, got.text);
    assert.equal(got.json["reason"], "InternalError");
    assert.equal(got.json["message"], `Internal error occurred: conversion webhook for ${GROUP}/v1, Kind=Gadget failed: the converter is broken`);
    const list = await server.call("GET", V2);
    assert.equal(list.status, 500, list.text);
    assert.match(String(list.json["message"]), /the converter is broken/);
    const create = await server.call("POST", V2, { body: gadget("refused", "x:1") });
    assert.equal(create.status, 500, create.text);
    assert.equal((await server.call("GET", `${V1}/refused`)).status, 404);
    // The storage version needs no conversion and keeps working.
    assert.equal((await server.call("GET", `${V1}/a`)).status, 200);
  });

  it("refuses an answer with the wrong number of objects", async () => {
    mode = "short";
    const got = await server.call("GET", `${V2}/a`);
    assert.equal(got.status, 500, got.text);
    assert.match(String(got.json["message"]), /conversion webhook for conv\.example\.com\/v1, Kind=Gadget failed: returned 0 objects, expected 1/);
  });

  it("watches at v2 see converted events", async () => {
    const list = await server.call("GET", V2);
    const revision = String((list.json["metadata"] as Json)["resourceVersion"]);
    const watching = server.call("GET", `${V2}?watch=1&resourceVersion=${revision}&timeoutSeconds=2`);
    await server.call("POST", V1, { body: { apiVersion: `${GROUP}/v1`, kind: "Gadget", metadata: { name: "w" }, spec: { host: "w.example", port: 7 } } });
    const events = (await watching).text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Json);
    const added = events.find((event) => event["type"] === "ADDED" && ((event["object"] as Json)["metadata"] as Json)["name"] === "w");
    assert.deepEqual((added?.["object"] as Json | undefined)?.["spec"], { address: "w.example:7" });
  });

  it("watches are served from the watch cache (no storage watch opened), the state and each change converted per watcher", async () => {
    const original = storage.watch.bind(storage);
    let storageWatches = 0;
    storage.watch = (...args: Parameters<typeof original>) => {
      storageWatches += 1;
      return original(...args);
    };
    try {
      await server.call("POST", V1, {
        body: { apiVersion: `${GROUP}/v1`, kind: "Gadget", metadata: { name: "cached" }, spec: { host: "c.example", port: 9 } },
      });
      webhook.reset();
      const watching = server.call("GET", `${V2}?watch=1&resourceVersion=0&timeoutSeconds=2&labelSelector=app%3Dx`);
      await server.call("POST", V2, { body: gadget("cached-later", "l.example:10") });
      const events = (await watching).text
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Json);
      const byName = new Map(events.map((event) => [String(((event["object"] as Json)["metadata"] as Json)["name"]), event]));
      // The state: objects with label app=x only ("cached" has none), at v2 through the webhook.
      assert.equal(byName.has("cached"), false, "the label selector applies");
      const later = byName.get("cached-later");
      assert.equal(later?.["type"], "ADDED");
      assert.equal((later?.["object"] as Json)["apiVersion"], `${GROUP}/v2`);
      assert.deepEqual((later?.["object"] as Json)["spec"], { address: "l.example:10" });
      assert.ok(
        reviewsSent(webhook).some((review) => review["desiredAPIVersion"] === `${GROUP}/v2`),
        "converted by the webhook",
      );
      assert.equal(storageWatches, 0, "no storage watch for the request: the cache served it");
    } finally {
      storage.watch = original;
    }
  });

  it("a watch whose events fail to convert ends with an ERROR event carrying the webhook's failure", async () => {
    mode = "fail";
    const got = await server.call("GET", `${V2}?watch=1&resourceVersion=0&timeoutSeconds=2`);
    const events = got.text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Json);
    const last = events.at(-1);
    assert.equal(last?.["type"], "ERROR");
    assert.equal((last?.["object"] as Json)["code"], 500);
    assert.match(String((last?.["object"] as Json)["message"]), /conversion webhook for conv\.example\.com\/v1, Kind=Gadget failed: the converter is broken/);
  });

  it("calls a service-addressed webhook through the Service's endpoints, verifying <name>.<namespace>.svc", async () => {
    const service = { apiVersion: "v1", kind: "Service", metadata: { name: "converter" }, spec: { ports: [{ name: "https", port: 443, targetPort: 9443 }] } };
    assert.equal((await server.call("POST", "/api/v1/namespaces/default/services", { body: service })).status, 201);
    const endpoints = {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name: "converter" },
      subsets: [{ addresses: [{ ip: "127.0.0.1" }], ports: [{ name: "https", port: webhook.port }] }],
    };
    assert.equal((await server.call("POST", "/api/v1/namespaces/default/endpoints", { body: endpoints })).status, 201);
    const crd = definition(webhook.url, caBundle, ["v1"]);
    const spec = crd["spec"] as Json;
    const byService = {
      ...crd,
      metadata: { name: `sgadgets.${GROUP}` },
      spec: {
        ...spec,
        names: { plural: "sgadgets", singular: "sgadget", kind: "SGadget", listKind: "SGadgetList" },
        conversion: {
          strategy: "Webhook",
          webhook: { conversionReviewVersions: ["v1"], clientConfig: { caBundle, service: { namespace: "default", name: "converter", path: "/convert" } } },
        },
      },
    };
    assert.equal((await server.call("POST", CRDS, { body: byService })).status, 201);
    const path = `/apis/${GROUP}/v2/namespaces/default/sgadgets`;
    webhook.reset();
    const created = await eventually(async () => {
      const response = await server.call("POST", path, { body: { ...gadget("s", "s.example:5"), kind: "SGadget" } });
      return response.status === 201 ? response : undefined;
    });
    assert.deepEqual(created.json["spec"], { address: "s.example:5" });
    const stored = JSON.parse((await storage.get(`/${GROUP}/sgadgets/default/s`)).value) as Json;
    assert.deepEqual(stored["spec"], { host: "s.example", port: 5 });
    assert.ok(webhook.count("/convert") > 0);
    // Without the Service, kube's converter reports its REST client's error as it is: the URL with client-go's timeout, then the resolver's.
    assert.equal((await server.call("DELETE", "/api/v1/namespaces/default/services/converter")).status, 200);
    const failed = await eventually(async () => {
      const response = await server.call("GET", `${path}/s`);
      return response.status === 500 ? response : undefined;
    });
    assert.equal(
      failed.json["message"],
      `Internal error occurred: conversion webhook for ${GROUP}/v1, Kind=SGadget failed: Post "https://converter.default.svc:443/convert?timeout=30s": service "converter" not found`,
    );
  });

  it("speaks v1beta1 ConversionReviews to a webhook that accepts only those, and records stored versions as the storage version moves", async () => {
    const current = await server.call("GET", `${CRDS}/${NAME}`);
    const next = definition(webhook.url, caBundle, ["v9", "v1beta1"], "v2");
    const updated = await server.call("PUT", `${CRDS}/${NAME}`, {
      body: { ...next, metadata: current.json["metadata"], status: current.json["status"] },
    });
    assert.equal(updated.status, 200, updated.text);
    const stored = await eventually(async () => {
      const crd = await server.call("GET", `${CRDS}/${NAME}`);
      const versions = (crd.json["status"] as Json)["storedVersions"] as string[];
      return versions.length === 2 ? versions : undefined;
    });
    assert.deepEqual(stored, ["v1", "v2"]);
    webhook.reset();
    // Served at v1 now needs a conversion from the new storage version for new objects…
    await eventually(async () => {
      const created = await server.call("POST", V1, {
        body: { apiVersion: `${GROUP}/v1`, kind: "Gadget", metadata: { name: "n" }, spec: { host: "n", port: 3 } },
      });
      return created.status === 201 ? true : undefined;
    });
    const raw = JSON.parse((await storage.get(`/${GROUP}/gadgets/default/n`)).value) as Json;
    assert.equal(raw["apiVersion"], `${GROUP}/v2`);
    assert.ok(webhook.reviews.length > 0 && webhook.reviews.every((review) => review["apiVersion"] === `${APIEXTENSIONS}/v1beta1`));
    // …and objects stored at v1 before the change are read at v2 through the webhook.
    const old = await server.call("GET", `${V2}/b`);
    assert.equal(old.status, 200, old.text);
    assert.deepEqual(old.json["spec"], { address: "b.example:1" });
  });
});
