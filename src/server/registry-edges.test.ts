import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../testing/in-process.js";
import { nameOf, WatchReader } from "../testing/watch-reader.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

const CM = "/api/v1/namespaces/default/configmaps";
const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";

/** The registry's rough edges of issue #14, each against the whole pipeline. */
describe("registry edges (#14)", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
    assert.equal((await server.call("POST", CM, { body: { metadata: { name: "cm" }, data: { a: "b" } } })).status, 201);
  });
  after(async () => {
    await server.stop();
  });

  it("?pretty=true indents JSON objects, lists and Status bodies with two spaces", async () => {
    const object = await server.call("GET", `${CM}/cm?pretty=true`);
    assert.ok(object.text.startsWith('{\n  "apiVersion": "v1",\n  "kind": "ConfigMap",'), object.text.slice(0, 80));
    const list = await server.call("GET", `${CM}?pretty=true`);
    assert.match(list.text, /^\{\n {2}"kind": "ConfigMapList",/);
    const status = await server.call("GET", `${CM}/missing?pretty=true`);
    assert.equal(status.status, 404);
    assert.match(status.text, /^\{\n {2}"kind": "Status",/);
    const plain = await server.call("GET", `${CM}/cm?pretty=false`);
    assert.ok(!plain.text.includes("\n"));
  });

  for (const [type, body] of [
    ["application/merge-patch+json", { bogus: 1 }],
    ["application/strategic-merge-patch+json", { bogus: 1 }],
    ["application/json-patch+json", [{ op: "add", path: "/bogus", value: 1 }]],
  ] as const) {
    it(`fieldValidation=Strict refuses an unknown field a ${type.split("/")[1]} adds (400), Ignore drops it`, async () => {
      const strict = await server.call("PATCH", `${CM}/cm?fieldValidation=Strict`, { body, headers: { "content-type": type } });
      assert.equal(strict.status, 400, strict.text);
      assert.match(String(strict.json["message"]), /strict decoding error: unknown field "bogus"/);
      const ignored = await server.call("PATCH", `${CM}/cm?fieldValidation=Ignore`, { body, headers: { "content-type": type } });
      assert.equal(ignored.status, 200, ignored.text);
      assert.equal(ignored.json["bogus"], undefined);
    });
  }

  it("refuses finalizer names that are not qualified names (422)", async () => {
    const bad = await server.call("POST", CM, { body: { metadata: { name: "fin", finalizers: ["not a name!"] } } });
    assert.equal(bad.status, 422, bad.text);
    assert.match(String(bad.json["message"]), /is invalid: metadata\.finalizers: Invalid value: "not a name!"/);
    const good = await server.call("POST", CM, { body: { metadata: { name: "fin", finalizers: ["example.com/hold"] } } });
    assert.equal(good.status, 201, good.text);
    const cleared = await server.call("PATCH", `${CM}/fin`, {
      body: { metadata: { finalizers: null } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(cleared.status, 200, cleared.text);
  });

  it("refuses creates in a terminating namespace (403) while updates and deletes there still work", async () => {
    assert.equal((await server.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "ending" } } })).status, 201);
    const held = "/api/v1/namespaces/ending/configmaps";
    assert.equal((await server.call("POST", held, { body: { metadata: { name: "held", finalizers: ["example.com/hold"] } } })).status, 201);
    assert.equal((await server.call("POST", held, { body: { metadata: { name: "other" } } })).status, 201);
    assert.equal((await server.call("DELETE", "/api/v1/namespaces/ending")).status, 200);
    const created = await server.call("POST", held, { body: { metadata: { name: "new" } } });
    assert.equal(created.status, 403, created.text);
    assert.match(String(created.json["message"]), /unable to create new content in namespace ending because it is being terminated/);
    const updated = await server.call("PATCH", `${held}/held`, { body: { data: { x: "y" } }, headers: { "content-type": "application/merge-patch+json" } });
    assert.equal(updated.status, 200, updated.text);
    const released = await server.call("PATCH", `${held}/held`, {
      body: { metadata: { finalizers: null } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(released.status, 200, released.text);
  });

  it("merges every patchMergeKey list by key in a strategic merge patch (containers, env, ports, volumes)", async () => {
    const template = {
      metadata: { labels: { app: "smp" } },
      spec: {
        containers: [
          {
            name: "a",
            image: "busybox:1",
            env: [
              { name: "A", value: "1" },
              { name: "B", value: "2" },
            ],
            ports: [{ containerPort: 80 }],
          },
          { name: "b", image: "busybox:1" },
        ],
        volumes: [{ name: "v1", emptyDir: {} }],
      },
    };
    const created = await server.call("POST", DEPLOYMENTS, {
      body: { metadata: { name: "smp" }, spec: { selector: { matchLabels: { app: "smp" } }, template } },
    });
    assert.equal(created.status, 201, created.text);
    const patch = {
      spec: {
        template: {
          spec: {
            containers: [{ name: "a", image: "busybox:2", env: [{ name: "B", value: "3" }], ports: [{ containerPort: 81 }] }],
            volumes: [{ name: "v2", emptyDir: {} }],
          },
        },
      },
    };
    const patched = await server.call("PATCH", `${DEPLOYMENTS}/smp`, { body: patch, headers: { "content-type": "application/strategic-merge-patch+json" } });
    assert.equal(patched.status, 200, patched.text);
    const spec = ((patched.json["spec"] as Json)["template"] as Json)["spec"] as Json;
    const containers = spec["containers"] as Json[];
    assert.deepEqual(
      containers.map((container) => container["name"]),
      ["a", "b"],
    );
    assert.equal(containers[0]?.["image"], "busybox:2");
    assert.deepEqual(containers[0]?.["env"], [
      { name: "A", value: "1" },
      { name: "B", value: "3" },
    ]);
    // kube's order: an item the live list lacks goes before the live items it cannot be placed among.
    assert.deepEqual(
      (containers[0]?.["ports"] as Json[]).map((port) => port["containerPort"]),
      [81, 80],
    );
    assert.deepEqual(
      (spec["volumes"] as Json[]).map((volume) => volume["name"]),
      ["v2", "v1"],
    );
  });

  it("lists each check of /livez?verbose and /readyz?verbose as [+]name ok with kube's trailer", async () => {
    const livez = await server.call("GET", "/livez?verbose");
    assert.equal(livez.status, 200);
    assert.match(livez.text, /^(\[\+\][a-z0-9/-]+ ok\n)+livez check passed\n$/);
    assert.ok(livez.text.includes("[+]ping ok\n"));
    const readyz = await server.call("GET", "/readyz?verbose");
    assert.equal(readyz.status, 200);
    assert.match(readyz.text, /^(\[\+\][a-z0-9/-]+ ok\n)+readyz check passed\n$/);
    const terse = await server.call("GET", "/readyz");
    assert.equal(terse.text, "ok");
  });

  it("serves core/v1 and events.orch.io/v1 Events as one kind: PUT creates, each version reads the other's, field selectors on involvedObject", async () => {
    const v1 = "/apis/events.orch.io/v1/namespaces/default/events";
    const created = await server.call("PUT", `${v1}/started`, {
      body: {
        apiVersion: "events.orch.io/v1",
        kind: "Event",
        metadata: { name: "started" },
        regarding: { kind: "Pod", name: "web-1", namespace: "default" },
        reason: "Started",
        note: "started container",
        type: "Normal",
        action: "Start",
        reportingController: "example.com/kubelet",
        reportingInstance: "node-1",
        eventTime: "2024-01-01T00:00:00.000000Z",
      },
    });
    assert.equal(created.status, 201, created.text);
    const core = await server.call("GET", "/api/v1/namespaces/default/events/started");
    assert.equal(core.status, 200, core.text);
    assert.equal((core.json["involvedObject"] as Json)["name"], "web-1");
    assert.equal(core.json["message"], "started container");
    const coreCreated = await server.call("PUT", "/api/v1/namespaces/default/events/pulled", {
      body: {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: "pulled" },
        involvedObject: { kind: "Pod", name: "web-2", namespace: "default" },
        reason: "Pulled",
        message: "pulled",
        type: "Normal",
      },
    });
    assert.equal(coreCreated.status, 201, coreCreated.text);
    const asV1 = await server.call("GET", `${v1}/pulled`);
    assert.equal((asV1.json["regarding"] as Json)["name"], "web-2");
    const selected = await server.call("GET", "/api/v1/namespaces/default/events?fieldSelector=involvedObject.kind%3DPod,involvedObject.name%3Dweb-1");
    assert.deepEqual(
      (selected.json["items"] as Json[]).map((item) => (item["metadata"] as Json)["name"]),
      ["started"],
    );
  });

  it("events.orch.io/v1 field selectors name regarding.* and reportingController (kube's field label conversion), on lists and watches", async () => {
    const v1 = "/apis/events.orch.io/v1/namespaces/default/events";
    const names = (response: { json: Json }): string[] => (response.json["items"] as Json[]).map((item) => String((item["metadata"] as Json)["name"]));
    for (const [name, pod, controller] of [
      ["sel-a", "db-0", "example.com/a"],
      ["sel-b", "db-1", "example.com/b"],
    ] as const) {
      const created = await server.call("POST", v1, {
        body: {
          apiVersion: "events.orch.io/v1",
          kind: "Event",
          metadata: { name },
          regarding: { kind: "StatefulSet", name: pod, namespace: "default" },
          reason: "Scaled",
          note: "scaled",
          type: "Normal",
          action: "Scale",
          reportingController: controller,
          reportingInstance: "i-1",
          eventTime: "2024-01-01T00:00:00.000000Z",
        },
      });
      assert.equal(created.status, 201, created.text);
    }
    // From the watch cache (rv unset) and from storage (an exact resourceVersion with a limit).
    const cached = await server.call("GET", `${v1}?fieldSelector=regarding.kind%3DStatefulSet,regarding.name%3Ddb-1`);
    assert.equal(cached.status, 200, cached.text);
    assert.deepEqual(names(cached), ["sel-b"]);
    const revision = String((cached.json["metadata"] as Json)["resourceVersion"]);
    const stored = await server.call("GET", `${v1}?fieldSelector=reportingController%3Dexample.com%2Fa&limit=10&resourceVersion=${revision}`);
    assert.equal(stored.status, 200, stored.text);
    assert.deepEqual(names(stored), ["sel-a"]);
    // The core labels are not events v1 labels, and the reverse.
    const coreLabel = await server.call("GET", `${v1}?fieldSelector=involvedObject.name%3Ddb-1`);
    assert.equal(coreLabel.status, 400);
    assert.equal(coreLabel.json["message"], "field label not supported: involvedObject.name");
    const v1Label = await server.call("GET", "/api/v1/namespaces/default/events?fieldSelector=regarding.name%3Ddb-1");
    assert.equal(v1Label.status, 400);
    // A cached watch filters with the same translation and refuses an unknown label.
    const controller = new AbortController();
    const watch = await server.raw("GET", `${v1}?watch=1&fieldSelector=regarding.name%3Ddb-0`, { signal: controller.signal });
    assert.equal(watch.status, 200);
    const reader = new WatchReader(watch);
    const [first] = await reader.next(1);
    assert.equal(first?.type, "ADDED");
    assert.equal(first === undefined ? "" : nameOf(first), "sel-a");
    controller.abort();
    await reader.close();
    const badWatch = await server.call("GET", `${v1}?watch=1&fieldSelector=spec.nope%3Dx`);
    assert.equal(badWatch.status, 400, badWatch.text);
  });
});
