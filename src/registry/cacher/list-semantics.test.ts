import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { inProcessServer } from "../../testing/in-process.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

function meta(object: Json): Json {
  return object["metadata"] as Json;
}

function names(list: Json): string[] {
  return (list["items"] as Json[]).map((item) => String(meta(item)["name"]));
}

/**
 * One test per cell of the spec's get and list resourceVersion tables. Fixture: a, b created
 * (rvB = b's version), then c created after rvB.
 */
describe("resourceVersion semantics of get and list", () => {
  let server: Server;
  let rvB = "";
  let rvC = "";
  const base = "/api/v1/namespaces/rv/configmaps";
  const list = async (query: string): Promise<{ status: number; json: Json }> => server.call("GET", `${base}?${query}`);

  before(async () => {
    server = await inProcessServer({ futureRevisionWaitMs: 150 });
    await server.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "rv" } } });
    await server.call("POST", base, { body: { metadata: { name: "a" } } });
    rvB = String(meta((await server.call("POST", base, { body: { metadata: { name: "b" } } })).json)["resourceVersion"]);
    rvC = String(meta((await server.call("POST", base, { body: { metadata: { name: "c" } } })).json)["resourceVersion"]);
  });
  after(async () => {
    await server.stop();
  });

  describe("get", () => {
    it("rv unset reads the most recent state", async () => {
      await server.call("PATCH", `${base}/a`, { body: { data: { v: "1" } }, headers: { "content-type": "application/merge-patch+json" } });
      const response = await server.call("GET", `${base}/a`);
      assert.deepEqual(response.json["data"], { v: "1" });
    });
    it('rv "0" reads any version', async () => {
      const response = await server.call("GET", `${base}/b?resourceVersion=0`);
      assert.equal(response.status, 200);
      assert.equal(meta(response.json)["name"], "b");
    });
    it("another rv reads a state not older than it", async () => {
      const response = await server.call("GET", `${base}/b?resourceVersion=${rvB}`);
      assert.equal(response.status, 200);
      assert.ok(Number(meta(response.json)["resourceVersion"]) >= Number(rvB) || meta(response.json)["resourceVersion"] === rvB);
    });
    it("an unreached rv waits briefly, then is 504 with Retry-After", async () => {
      const response = await server.call("GET", `${base}/b?resourceVersion=99999999`);
      assert.equal(response.status, 504);
      assert.equal(response.headers["Retry-After"], "1");
      assert.match(String(response.json["message"]), /Too large resource version/);
    });
  });

  describe("list without resourceVersionMatch", () => {
    it("limit unset, rv unset: most recent, including a write made just before", async () => {
      await server.call("POST", base, { body: { metadata: { name: "fresh" } } });
      const response = await list("");
      assert.ok(names(response.json).includes("fresh"));
      assert.equal(
        meta(response.json)["resourceVersion"],
        String(Math.max(...(response.json["items"] as Json[]).map((item) => Number(meta(item)["resourceVersion"])))),
      );
      await server.call("DELETE", `${base}/fresh`);
    });
    it('limit unset, rv "0": any version', async () => {
      const response = await list("resourceVersion=0");
      assert.equal(response.status, 200);
      assert.ok(names(response.json).includes("a"));
    });
    it("limit unset, other rv: not older than it", async () => {
      const response = await list(`resourceVersion=${rvB}`);
      assert.deepEqual(names(response.json), ["a", "b", "c"]);
      assert.ok(Number(meta(response.json)["resourceVersion"]) >= Number(rvC));
    });
    it("limit unset, unreached rv: 504", async () => {
      assert.equal((await list("resourceVersion=99999999")).status, 504);
    });
    it("limit=n, rv unset: most recent", async () => {
      const response = await list("limit=2");
      assert.deepEqual(names(response.json), ["a", "b"]);
      assert.equal(meta(response.json)["remainingItemCount"], 1);
    });
    it('limit=n, rv "0": any version, whole from the cache with the limit ignored (kube 1.30)', async () => {
      const response = await list("limit=2&resourceVersion=0");
      assert.equal(response.status, 200);
      assert.deepEqual(names(response.json), ["a", "b", "c"]);
      assert.equal(meta(response.json)["continue"], undefined);
      assert.equal(meta(response.json)["remainingItemCount"], undefined);
    });
    it("limit=n, other rv: exactly that version", async () => {
      const response = await list(`limit=10&resourceVersion=${rvB}`);
      assert.deepEqual(names(response.json), ["a", "b"]);
      assert.equal(meta(response.json)["resourceVersion"], rvB);
    });
    it("limit=n with continue, rv unset: the token's exact version", async () => {
      const first = await list(`limit=1&resourceVersion=${rvB}`);
      const token = encodeURIComponent(String(meta(first.json)["continue"]));
      const next = await list(`limit=5&continue=${token}`);
      assert.deepEqual(names(next.json), ["b"]);
      assert.equal(meta(next.json)["resourceVersion"], rvB);
    });
    it('limit=n with continue, rv "0": treated as the token, exact', async () => {
      const first = await list(`limit=1&resourceVersion=${rvB}`);
      const token = encodeURIComponent(String(meta(first.json)["continue"]));
      const next = await list(`limit=5&resourceVersion=0&continue=${token}`);
      assert.equal(next.status, 200);
      assert.deepEqual(names(next.json), ["b"]);
    });
    it("limit=n with continue, other rv: 400", async () => {
      const first = await list("limit=1");
      const token = encodeURIComponent(String(meta(first.json)["continue"]));
      const next = await list(`limit=5&resourceVersion=${rvB}&continue=${token}`);
      assert.equal(next.status, 400);
      assert.equal(next.json["reason"], "BadRequest");
    });
  });

  describe("list with resourceVersionMatch=Exact", () => {
    for (const limit of ["", "limit=5&"]) {
      it(`${limit === "" ? "limit unset" : "limit=n"}, rv unset: invalid (422 on resourceVersionMatch)`, async () => {
        const response = await list(`${limit}resourceVersionMatch=Exact`);
        assert.equal(response.status, 422);
        assert.equal(((response.json["details"] as Json)["causes"] as Json[])[0]?.["field"], "resourceVersionMatch");
      });
      it(`${limit === "" ? "limit unset" : "limit=n"}, rv "0": invalid (422)`, async () => {
        assert.equal((await list(`${limit}resourceVersionMatch=Exact&resourceVersion=0`)).status, 422);
      });
      it(`${limit === "" ? "limit unset" : "limit=n"}, other rv: exactly that version`, async () => {
        const response = await list(`${limit}resourceVersionMatch=Exact&resourceVersion=${rvB}`);
        assert.deepEqual(names(response.json), ["a", "b"]);
        assert.equal(meta(response.json)["resourceVersion"], rvB);
      });
    }
  });

  describe("list with resourceVersionMatch=NotOlderThan", () => {
    for (const limit of ["", "limit=5&"]) {
      const label = limit === "" ? "limit unset" : "limit=n";
      it(`${label}, rv unset: invalid (422)`, async () => {
        assert.equal((await list(`${limit}resourceVersionMatch=NotOlderThan`)).status, 422);
      });
      it(`${label}, rv "0": any version`, async () => {
        const response = await list(`${limit}resourceVersionMatch=NotOlderThan&resourceVersion=0`);
        assert.equal(response.status, 200);
        assert.ok(names(response.json).includes("c"));
      });
      it(`${label}, other rv: not older than it`, async () => {
        const response = await list(`${limit}resourceVersionMatch=NotOlderThan&resourceVersion=${rvB}`);
        assert.ok(names(response.json).includes("c"));
        assert.ok(Number(meta(response.json)["resourceVersion"]) >= Number(rvC));
      });
    }
    it("an unsupported match value is 422", async () => {
      assert.equal((await list("resourceVersionMatch=Newest&resourceVersion=1")).status, 422);
    });
  });
});

describe("lists across compaction", () => {
  let server: Server;
  const base = "/api/v1/namespaces/compact/configmaps";
  before(async () => {
    server = await inProcessServer();
    await server.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "compact" } } });
    for (let index = 0; index < 6; index++) await server.call("POST", base, { body: { metadata: { name: `item-${index}` } } });
  });
  after(async () => {
    await server.stop();
  });

  it("Exact at a compacted version is 410 Expired", async () => {
    const old = server.storage.currentRevision() - 2;
    await server.call("POST", base, { body: { metadata: { name: "later" } } });
    await server.storage.compact(server.storage.currentRevision());
    const response = await server.call("GET", `${base}?resourceVersionMatch=Exact&resourceVersion=${old}`);
    assert.equal(response.status, 410);
    assert.equal(response.json["reason"], "Expired");
  });

  it("an expired continue token is 410 with an inconsistent continue token that lists on from now", async () => {
    const first = await server.call("GET", `${base}?limit=2`);
    const token = String(meta(first.json)["continue"]);
    await server.call("POST", base, { body: { metadata: { name: "item-9" } } });
    await server.storage.compact(server.storage.currentRevision());
    const expired = await server.call("GET", `${base}?limit=2&continue=${encodeURIComponent(token)}`);
    assert.equal(expired.status, 410);
    assert.equal(expired.json["reason"], "Expired");
    const inconsistent = meta(expired.json)["continue"];
    assert.equal(typeof inconsistent, "string");
    const rest = await server.call("GET", `${base}?limit=100&continue=${encodeURIComponent(String(inconsistent))}`);
    assert.equal(rest.status, 200);
    assert.deepEqual(names(rest.json), ["item-2", "item-3", "item-4", "item-5", "item-9", "later"]);
  });
});

describe("the chunked list protocol", () => {
  it("pages 400 objects in chunks of 17 at one version while writes happen in between", async () => {
    const server = await inProcessServer();
    const base = "/api/v1/namespaces/chunks/configmaps";
    await server.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "chunks" } } });
    const created = new Set<string>();
    for (let index = 0; index < 400; index++) {
      const name = `cm-${String(index).padStart(3, "0")}`;
      await server.call("POST", base, { body: { metadata: { name } } });
      created.add(name);
    }
    const seen: string[] = [];
    let token: string | undefined;
    let version: unknown;
    let chunk = 0;
    do {
      const response = await server.call("GET", `${base}?limit=17${token === undefined ? "" : `&continue=${encodeURIComponent(token)}`}`);
      assert.equal(response.status, 200);
      const listMeta = meta(response.json);
      if (version === undefined) version = listMeta["resourceVersion"];
      assert.equal(listMeta["resourceVersion"], version, `chunk ${chunk}`);
      const items = names(response.json);
      assert.ok(items.length <= 17);
      seen.push(...items);
      const remaining = listMeta["remainingItemCount"];
      token = typeof listMeta["continue"] === "string" && listMeta["continue"] !== "" ? listMeta["continue"] : undefined;
      assert.equal(remaining === undefined, token === undefined, "remainingItemCount only while more remain");
      if (token !== undefined) assert.equal(remaining, 400 - seen.length);
      // Writes between chunks: a new object, a change and a delete.
      await server.call("POST", base, { body: { metadata: { name: `zz-new-${chunk}` } } });
      await server.call("PATCH", `${base}/cm-000`, { body: { data: { chunk: String(chunk) } }, headers: { "content-type": "application/merge-patch+json" } });
      chunk++;
    } while (token !== undefined);
    assert.equal(seen.length, 400);
    assert.deepEqual(new Set(seen), created);
    const withSelector = await server.call("GET", `${base}?limit=17&labelSelector=!none`);
    assert.equal(meta(withSelector.json)["remainingItemCount"], undefined, "omitted with selectors");
    await server.stop();
  });
});

describe("paged lists from the cache's snapshots", () => {
  type Storage = Server["storage"];
  /** Counts storage list reads (continued pages read from storage when no snapshot serves them). */
  function countLists(storage: Storage): { count: number } {
    const counter = { count: 0 };
    const original = storage.list.bind(storage);
    storage.list = (prefix, options) => {
      counter.count++;
      return original(prefix, options);
    };
    return counter;
  }

  async function pageAll(server: Server, path: string, limit: number): Promise<{ names: string[]; versions: Set<unknown> }> {
    const seen: string[] = [];
    const versions = new Set<unknown>();
    let token: string | undefined;
    do {
      const response = await server.call("GET", `${path}?limit=${limit}${token === undefined ? "" : `&continue=${encodeURIComponent(token)}`}`);
      assert.equal(response.status, 200);
      versions.add(meta(response.json)["resourceVersion"]);
      seen.push(...names(response.json));
      const next = meta(response.json)["continue"];
      token = typeof next === "string" && next !== "" ? next : undefined;
      await server.call("POST", path, { body: { metadata: { name: `zz-${seen.length}-${versions.size}` } } });
    } while (token !== undefined);
    return { names: seen, versions };
  }

  it("continued pages come from the snapshot of the first page, not from storage, writes in between", async () => {
    const server = await inProcessServer();
    const base = "/api/v1/namespaces/snap/configmaps";
    await server.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "snap" } } });
    for (let index = 0; index < 30; index++) await server.call("POST", base, { body: { metadata: { name: `cm-${String(index).padStart(2, "0")}` } } });
    const reads = countLists(server.storage);
    const { names: seen, versions } = await pageAll(server, base, 7);
    assert.equal(versions.size, 1, "one version for every page");
    assert.deepEqual(
      seen,
      Array.from({ length: 30 }, (_, index) => `cm-${String(index).padStart(2, "0")}`),
    );
    assert.equal(reads.count, 0, "no page read storage");
    await server.stop();
  });

  it("a snapshot that left the event window is dropped: its tokens go to storage (and still page there until compacted)", async () => {
    const server = await inProcessServer({ watchCache: { windowSize: 3 } });
    const base = "/api/v1/namespaces/window/configmaps";
    await server.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "window" } } });
    for (let index = 0; index < 6; index++) await server.call("POST", base, { body: { metadata: { name: `cm-${index}` } } });
    const first = await server.call("GET", `${base}?limit=2`);
    const token = String(meta(first.json)["continue"]);
    for (let index = 0; index < 4; index++) await server.call("POST", base, { body: { metadata: { name: `late-${index}` } } });
    const reads = countLists(server.storage);
    const next = await server.call("GET", `${base}?limit=2&continue=${encodeURIComponent(token)}`);
    assert.equal(next.status, 200);
    assert.deepEqual(names(next.json), ["cm-2", "cm-3"]);
    assert.equal(meta(next.json)["resourceVersion"], meta(first.json)["resourceVersion"]);
    assert.ok(reads.count > 0, "served by storage");
    await server.stop();
  });
});
