import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import type { ResourceDefinition } from "../registry/definition.js";
import type { Registry } from "../registry/index.js";
import { inProcessServer } from "../testing/in-process.js";
import { createAggregatedDiscovery } from "./aggregated-discovery.js";
import { aggregatedDiscovery } from "./discovery.js";

const API_VERSION = "apidiscovery.orch.io/v2";

/** The document's body as JSON. */
function parsed(body: Uint8Array): unknown {
  return JSON.parse(Buffer.from(body).toString("utf8")) as unknown;
}

function settled(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe("aggregated discovery kept ready", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  let registry: Registry;
  let template: ResourceDefinition;
  const widgets = (group: string, overrides: Partial<ResourceDefinition> = {}): ResourceDefinition => ({
    ...template,
    group,
    version: "v1",
    kind: "Widget",
    plural: "widgets",
    singular: "widget",
    shortNames: [],
    categories: [],
    ...overrides,
  });

  before(async () => {
    server = await inProcessServer({ controllers: [] });
    registry = server.server.registry;
    const configMaps = registry.find("", "v1", "configmaps");
    if (configMaps === undefined) throw new Error("configmaps are not served");
    template = configMaps.definition;
  });
  after(async () => {
    await server.stop();
  });

  it("serves the same document as one built whole, after installs, an update and an uninstall", async () => {
    const discovery = createAggregatedDiscovery(registry, { settleMs: 60_000 });
    const whole = (scope: "core" | "groups"): unknown => aggregatedDiscovery(registry, scope, API_VERSION);
    assert.deepEqual(parsed(discovery.document("groups", API_VERSION).body), whole("groups"));
    assert.deepEqual(parsed(discovery.document("core", API_VERSION).body), whole("core"));
    await registry.install("one", [widgets("one.example.com")]);
    await registry.install("two", [widgets("two.example.com")]);
    assert.deepEqual(parsed(discovery.document("groups", API_VERSION).body), whole("groups"));
    await registry.install("one", [widgets("one.example.com", { shortNames: ["wd"], categories: ["all"] })]);
    const updated = parsed(discovery.document("groups", API_VERSION).body);
    assert.deepEqual(updated, whole("groups"));
    assert.match(JSON.stringify(updated), /"shortNames":\["wd"\]/);
    registry.uninstall("one");
    registry.uninstall("two");
    const after = discovery.document("groups", API_VERSION);
    assert.deepEqual(parsed(after.body), whole("groups"));
    assert.doesNotMatch(Buffer.from(after.body).toString("utf8"), /one\.example\.com|two\.example\.com/);
    assert.deepEqual(parsed(discovery.document("core", API_VERSION).body), whole("core"));
  });

  it("changes the ETag with the content and gives identical content the same ETag; each spelling and scope has its own", async () => {
    const discovery = createAggregatedDiscovery(registry, { settleMs: 60_000 });
    const before = discovery.document("groups", API_VERSION);
    assert.match(before.etag, /^"[0-9A-F]{32}"$/);
    await registry.install("three", [widgets("three.example.com")]);
    const during = discovery.document("groups", API_VERSION);
    assert.notEqual(during.etag, before.etag);
    registry.uninstall("three");
    const again = discovery.document("groups", API_VERSION);
    assert.notEqual(again, before, "rebuilt after the change");
    assert.equal(again.etag, before.etag);
    assert.deepEqual(Buffer.from(again.body), Buffer.from(before.body));
    assert.notEqual(discovery.document("groups", "apidiscovery.k8s.io/v2").etag, before.etag);
    assert.notEqual(discovery.document("core", API_VERSION).etag, before.etag);
  });

  it("builds a document at most once per change, whoever asks", async () => {
    const discovery = createAggregatedDiscovery(registry, { settleMs: 60_000 });
    const first = discovery.document("groups", API_VERSION);
    assert.equal(discovery.document("groups", API_VERSION), first);
    assert.equal(discovery.builds, 1);
    await registry.install("four", [widgets("four.example.com")]);
    const second = discovery.document("groups", API_VERSION);
    assert.notEqual(second, first);
    for (let index = 0; index < 5; index++) assert.equal(discovery.document("groups", API_VERSION), second);
    assert.equal(discovery.builds, 2);
    registry.uninstall("four");
  });

  it("rebuilds a document asked for since its last build off the request path once changes settle, with its gzip when gzip was asked for", async () => {
    const discovery = createAggregatedDiscovery(registry, { settleMs: 5 });
    const first = discovery.document("groups", API_VERSION);
    assert.deepEqual(gunzipSync(await first.gzipped()), Buffer.from(first.body));
    assert.equal(first.gzipped(), first.gzipped(), "one gzip per document");
    // A burst of changes: one rebuild after it, none per change.
    await registry.install("five", [widgets("five.example.com")]);
    await registry.install("six", [widgets("six.example.com")]);
    await settled(100);
    assert.equal(discovery.builds, 2);
    const rebuilt = discovery.document("groups", API_VERSION);
    assert.equal(discovery.builds, 2, "the request found it built");
    assert.match(Buffer.from(rebuilt.body).toString("utf8"), /six\.example\.com/);
    assert.deepEqual(gunzipSync(await rebuilt.gzipped()), Buffer.from(rebuilt.body));
    // Asked for since: rebuilt after the next change; then, not asked for since that rebuild, left to the next request.
    registry.uninstall("five");
    await settled(100);
    assert.equal(discovery.builds, 3);
    registry.uninstall("six");
    await settled(100);
    assert.equal(discovery.builds, 3);
    assert.doesNotMatch(Buffer.from(discovery.document("groups", API_VERSION).body).toString("utf8"), /six\.example\.com/);
    assert.equal(discovery.builds, 4);
  });

  it("sends a client that accepts gzip the document's kept gzip through the server's filters, and 304 to its ETag", async () => {
    const many = Array.from({ length: 500 }, (_, index) => `g${index}.many.example.com`);
    for (const group of many) await registry.install(group, [widgets(group)]);
    try {
      const accept = `application/json;g=apidiscovery.orch.io;v=v2;as=APIGroupDiscoveryList`;
      const plain = await server.call("GET", "/apis", { headers: { accept } });
      assert.ok(Buffer.byteLength(plain.text) > 128 * 1024, `over the compression threshold: ${Buffer.byteLength(plain.text)}`);
      const first = await server.raw("GET", "/apis", { headers: { accept, "accept-encoding": "gzip" } });
      const second = await server.raw("GET", "/apis", { headers: { accept, "accept-encoding": "gzip" } });
      assert.equal(first.headers["content-encoding"], "gzip");
      assert.ok(first.body instanceof Uint8Array);
      assert.equal(second.body, first.body, "compressed once");
      assert.equal(gunzipSync(first.body).toString("utf8"), plain.text);
      assert.equal(first.headers["etag"], plain.headers["etag"]);
      const revalidated = await server.raw("GET", "/apis", { headers: { accept, "accept-encoding": "gzip", "if-none-match": String(plain.headers["etag"]) } });
      assert.equal(revalidated.status, 304);
      // A filter that replaces the body (?pretty) gets its own gzip, not the kept one.
      const pretty = await server.raw("GET", "/apis?pretty=true", { headers: { accept, "accept-encoding": "gzip" } });
      assert.ok(pretty.body instanceof Uint8Array);
      assert.equal(gunzipSync(pretty.body).toString("utf8"), `${JSON.stringify(JSON.parse(plain.text), null, 2)}\n`);
    } finally {
      for (const group of many) registry.uninstall(group);
    }
  });
});
