import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { inProcessServer } from "../testing/in-process.js";
import { nameOf, WatchReader } from "../testing/watch-reader.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

const NAMESPACE = "query";
const BASE = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
const TABLE = "application/json;as=Table;g=meta.orch.io;v=v1";

/** The fields a Status's causes name. */
function causeFields(status: Json): unknown[] {
  const details = status["details"] as { causes?: { field?: string }[] } | undefined;
  return (details?.causes ?? []).map((cause) => cause.field);
}

describe("query parameters through the whole pipeline", () => {
  let server: Server;
  const controllers: AbortController[] = [];
  const readers: WatchReader[] = [];

  before(async () => {
    server = await inProcessServer();
    assert.equal((await server.call("POST", "/api/v1/namespaces", { body: { metadata: { name: NAMESPACE } } })).status, 201);
    for (const name of ["one", "two"]) assert.equal((await server.call("POST", BASE, { body: { metadata: { name }, data: { a: "b" } } })).status, 201);
  });
  after(async () => {
    for (const controller of controllers) controller.abort();
    for (const reader of readers) await reader.close();
    await server.stop();
  });

  async function openWatch(query: string): Promise<WatchReader> {
    const controller = new AbortController();
    controllers.push(controller);
    const response = await server.raw("GET", `${BASE}?${query}`, { signal: controller.signal });
    assert.equal(response.status, 200);
    const reader = new WatchReader(response);
    readers.push(reader);
    return reader;
  }

  async function expectRefused(method: string, path: string, parameter: string, code = 400): Promise<Json> {
    const response = await server.call(method, path);
    assert.equal(response.status, code, `${method} ${path}: ${response.text}`);
    assert.equal(response.json["kind"], "Status");
    assert.equal(response.json["reason"], code === 400 ? "BadRequest" : "Invalid");
    const named = causeFields(response.json).includes(parameter) || String(response.json["message"]).includes(parameter);
    assert.ok(named, `${String(response.json["message"])} does not name ${parameter}`);
    return response.json;
  }

  for (const query of ["watch=True", "watch=maybe", "watch", "watch=", "watch=1", "watch=TRUE"]) {
    it(`?${query} watches (kube's boolean: anything but 0 and false)`, async () => {
      const reader = await openWatch(query);
      const events = await reader.next(2);
      assert.deepEqual(
        events.map((event) => [event.type, nameOf(event)]),
        [
          ["ADDED", "one"],
          ["ADDED", "two"],
        ],
      );
    });
  }

  for (const query of ["watch=false", "watch=False", "watch=FALSE", "watch=0"]) {
    it(`?${query} lists`, async () => {
      const response = await server.call("GET", `${BASE}?${query}`);
      assert.equal(response.status, 200);
      assert.equal(response.json["kind"], "ConfigMapList");
      assert.equal((response.json["items"] as unknown[]).length, 2);
    });
  }

  it("?limit=abc and ?limit= are 400 naming limit, in Go's words", async () => {
    const status = await expectRefused("GET", `${BASE}?limit=abc`, "limit");
    assert.equal(status["message"], 'invalid value for limit: strconv.ParseInt: parsing "abc": invalid syntax');
    await expectRefused("GET", `${BASE}?limit=`, "limit");
    await expectRefused("GET", `${BASE}?limit=1.5`, "limit");
  });

  it("?limit=1 pages and a negative limit means no limit", async () => {
    const paged = await server.call("GET", `${BASE}?limit=1`);
    assert.equal((paged.json["items"] as unknown[]).length, 1);
    const negative = await server.call("GET", `${BASE}?limit=-1`);
    assert.equal(negative.status, 200);
    assert.equal((negative.json["items"] as unknown[]).length, 2);
  });

  it("?timeoutSeconds=abc is 400 naming timeoutSeconds", async () => {
    await expectRefused("GET", `${BASE}?timeoutSeconds=abc`, "timeoutSeconds");
    await expectRefused("GET", `${BASE}?watch=1&timeoutSeconds=abc`, "timeoutSeconds");
  });

  it("?timeoutSeconds=-1: a list ignores it, a watch has already expired and ends at once", async () => {
    const list = await server.call("GET", `${BASE}?timeoutSeconds=-1`);
    assert.equal(list.status, 200);
    assert.equal(list.json["kind"], "ConfigMapList");
    const reader = await openWatch("watch=1&timeoutSeconds=-1");
    const rest = await reader.rest();
    assert.ok(rest.every((event) => event.type === "ADDED"));
  });

  it("allowWatchBookmarks and sendInitialEvents are kube booleans (?allowWatchBookmarks=yes is true)", async () => {
    const reader = await openWatch("watch=1&sendInitialEvents=True&allowWatchBookmarks=yes&resourceVersionMatch=NotOlderThan");
    const events = await reader.next(3);
    assert.deepEqual(
      events.map((event) => event.type),
      ["ADDED", "ADDED", "BOOKMARK"],
    );
    // sendInitialEvents=false is still "given": forbidden on a list as kube forbids it.
    await expectRefused("GET", `${BASE}?sendInitialEvents=false`, "sendInitialEvents", 422);
  });

  it("?resourceVersion=abc is 400; ?resourceVersionMatch=exact is 422 naming it", async () => {
    await expectRefused("GET", `${BASE}?resourceVersion=abc`, "resourceVersion");
    await expectRefused("GET", `${BASE}/one?resourceVersion=abc`, "resourceVersion");
    await expectRefused("GET", `${BASE}?resourceVersion=1&resourceVersionMatch=exact`, "resourceVersionMatch", 422);
  });

  it("selectors that do not parse are 400 naming the parameter", async () => {
    await expectRefused("GET", `${BASE}?labelSelector=a%20in%20(b`, "labelSelector");
    await expectRefused("GET", `${BASE}?fieldSelector=metadata.name%20in%20(x)`, "fieldSelector");
  });

  it("?includeObject of a Table: None works, an unknown value is 400 in kube's words", async () => {
    const none = await server.call("GET", `${BASE}?includeObject=None`, { headers: { accept: TABLE } });
    assert.equal(none.status, 200);
    const rows = none.json["rows"] as { object?: unknown }[];
    assert.equal(rows.length, 2);
    assert.ok(rows.every((row) => row.object === undefined || row.object === null));
    const bad = await server.call("GET", `${BASE}?includeObject=All`, { headers: { accept: TABLE } });
    assert.equal(bad.status, 400);
    assert.match(String(bad.json["message"]), /^Unable to convert to Table as requested: includeObject: Invalid value: "All"/);
    // Only a Table reads it, as only kube's Table conversion does.
    assert.equal((await server.call("GET", `${BASE}?includeObject=All`)).status, 200);
  });

  it("?timeout must be a Go duration (400 in kube's words)", async () => {
    const status = await expectRefused("GET", `${BASE}/one?timeout=abc`, "timeout");
    assert.equal(status["message"], 'invalid timeout specified in the request URL - time: invalid duration "abc"');
    assert.equal((await server.call("GET", `${BASE}/one?timeout=30s`)).status, 200);
  });

  it("?omitManagedFields=True is true (one boolean parser for every parameter)", async () => {
    const full = await server.call("GET", `${BASE}/one`);
    assert.notEqual((full.json["metadata"] as Json)["managedFields"], undefined);
    const slim = await server.call("GET", `${BASE}/one?omitManagedFields=True`);
    assert.equal((slim.json["metadata"] as Json)["managedFields"], undefined);
    const kept = await server.call("GET", `${BASE}/one?omitManagedFields=false`);
    assert.notEqual((kept.json["metadata"] as Json)["managedFields"], undefined);
  });

  it("?dryRun=Some is 422 naming dryRun (as kube validates CreateOptions); ?dryRun=All writes nothing", async () => {
    const body = { metadata: { name: "dry" } };
    const bad = await server.call("POST", `${BASE}?dryRun=Some`, { body });
    assert.equal(bad.status, 422);
    assert.deepEqual(causeFields(bad.json), ["dryRun"]);
    assert.equal((await server.call("POST", `${BASE}?dryRun=All`, { body })).status, 201);
    assert.equal((await server.call("GET", `${BASE}/dry`)).status, 404);
  });

  it("?fieldValidation=strict is 422 naming fieldValidation", async () => {
    const response = await server.call("POST", `${BASE}?fieldValidation=strict`, { body: { metadata: { name: "fv" } } });
    assert.equal(response.status, 422);
    assert.deepEqual(causeFields(response.json), ["fieldValidation"]);
  });

  it("DeleteOptions in the query: gracePeriodSeconds is an integer, propagationPolicy one of kube's", async () => {
    await expectRefused("DELETE", `${BASE}/two?gracePeriodSeconds=soon`, "gracePeriodSeconds");
    const status = await expectRefused("DELETE", `${BASE}/two?propagationPolicy=Later`, "propagationPolicy", 422);
    assert.equal((status["details"] as Json)["kind"], "DeleteOptions");
    await expectRefused("DELETE", `${BASE}/two?propagationPolicy=Orphan&orphanDependents=true`, "propagationPolicy", 422);
    assert.equal((await server.call("GET", `${BASE}/two`)).status, 200, "refused deletes delete nothing");
    const deleted = await server.call("DELETE", `${BASE}/two?gracePeriodSeconds=0&propagationPolicy=Background`);
    assert.equal(deleted.status, 200);
    assert.equal((await server.call("GET", `${BASE}/two`)).status, 404);
  });
});
