import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiGroup, ORCH_PROFILE } from "../src/api/profile.js";
import { inProcessServer } from "../src/testing/in-process.js";
import { eventually } from "./helpers/wait.js";
import { crdFixture } from "../src/testing/crd-fixtures.js";
import { MemoryStorage } from "../src/storage/memory/memory-storage.js";

type Json = Record<string, unknown>;
type Server = Awaited<ReturnType<typeof inProcessServer>>;

const APIEXTENSIONS = apiGroup(ORCH_PROFILE, "apiextensions");
const CRDS = `/apis/${APIEXTENSIONS}/v1/customresourcedefinitions`;
const GROUP = "stable.example.com";
const WIDGETS = `/apis/${GROUP}/v1/namespaces/default/widgets`;
const APPLY = { "content-type": "application/apply-patch+yaml" };
const MERGE = { "content-type": "application/merge-patch+json" };

/** Polls until `probe` returns a value (at most `attempts` × 20 ms): controllers act asynchronously. */

function condition(crd: Json, type: string): Json | undefined {
  const conditions = ((crd["status"] as Json | undefined)?.["conditions"] as Json[] | undefined) ?? [];
  return conditions.find((item) => item["type"] === type);
}

async function established(server: Server, name: string): Promise<Json> {
  return eventually(async () => {
    const response = await server.call("GET", `${CRDS}/${name}`);
    return condition(response.json, "Established")?.["status"] === "True" ? response.json : undefined;
  });
}

function widget(name: string, spec: Json = {}): Json {
  return { apiVersion: `${GROUP}/v1`, kind: "Widget", metadata: { name }, spec: { image: "nginx:1.25", ...spec } };
}

function causes(json: Json): string[] {
  return (((json["details"] as Json | undefined)?.["causes"] as Json[] | undefined) ?? []).map(
    (cause) => `${String(cause["field"])}: ${String(cause["message"])}`,
  );
}

describe("custom resources served from a CustomResourceDefinition", () => {
  let server: Server;
  const storage = new MemoryStorage();
  before(async () => {
    server = await inProcessServer({ storage });
    const fixture = crdFixture({
      group: GROUP,
      plural: "widgets",
      kind: "Widget",
      apiextensionsGroup: APIEXTENSIONS,
      shortNames: ["wd"],
      categories: ["all", "gadgets"],
    });
    const created = await server.call("POST", CRDS, { body: fixture });
    assert.equal(created.status, 201, created.text);
  });
  after(async () => server.server.stop());

  it("accepts a controller-gen CRD (string enums, defaults of every type), names it, establishes it, records the stored version and the cleanup finalizer", async () => {
    const crd = await established(server, `widgets.${GROUP}`);
    assert.equal(condition(crd, "NamesAccepted")?.["reason"], "NoConflicts");
    const status = crd["status"] as Json;
    assert.deepEqual(status["storedVersions"], ["v1"]);
    assert.equal((status["acceptedNames"] as Json)["kind"], "Widget");
    assert.deepEqual((crd["metadata"] as Json)["finalizers"], [`customresourcecleanup.${APIEXTENSIONS}`]);
  });

  it("lists the resource in legacy and aggregated discovery with short names, categories and singular", async () => {
    const list = await server.call("GET", `/apis/${GROUP}/v1`);
    assert.equal(list.status, 200, list.text);
    const resources = list.json["resources"] as Json[];
    const widgets = resources.find((resource) => resource["name"] === "widgets");
    assert.deepEqual(widgets?.["shortNames"], ["wd"]);
    assert.deepEqual(widgets?.["categories"], ["all", "gadgets"]);
    assert.equal(widgets?.["singularName"], "widget");
    assert.ok(resources.some((resource) => resource["name"] === "widgets/status"));
    assert.ok(resources.some((resource) => resource["name"] === "widgets/scale"));
    const aggregated = await server.call("GET", "/apis", {
      headers: { accept: `application/json;g=apidiscovery.${ORCH_PROFILE.apiDomain};v=v2;as=APIGroupDiscoveryList` },
    });
    const group = (aggregated.json["items"] as Json[]).find((item) => (item["metadata"] as Json)["name"] === GROUP);
    assert.ok(group !== undefined, aggregated.text.slice(0, 200));
  });

  it("defaults, prunes and validates custom objects against the schema", async () => {
    const created = await server.call("POST", WIDGETS, {
      body: { ...widget("a"), spec: { image: "nginx:1.25", unknown: 1, ports: [{ name: "http", port: 80 }] }, status: { phase: "Sent" } },
    });
    assert.equal(created.status, 201, created.text);
    // The status sub-resource makes a create drop `status` (kube's custom resource strategy), not start it as {}.
    assert.equal(created.json["status"], undefined, created.text);
    const spec = created.json["spec"] as Json;
    assert.equal(spec["replicas"], 1);
    assert.equal(spec["mode"], "Rolling");
    assert.deepEqual(spec["labels"], { managed: "true" });
    assert.equal(spec["ratio"], 0.5);
    assert.equal(spec["paused"], false);
    assert.deepEqual(spec["ports"], [{ name: "http", port: 80, protocol: "TCP" }]);
    assert.equal(spec["unknown"], undefined);

    const bad = await server.call("POST", WIDGETS, {
      body: widget("bad", { image: "UPPER", replicas: 500, mode: "Sometimes", port: 1.5, tags: ["a", "a"], schedule: "yesterday" }),
    });
    assert.equal(bad.status, 422, bad.text);
    assert.match(String(bad.json["message"]), /^Widget\.stable\.example\.com "bad" is invalid: /);
    assert.deepEqual(causes(bad.json).sort(), [
      `<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`,
      `spec.image: Invalid value: "UPPER": spec.image in body should match '^[a-z0-9./:-]+$'`,
      `spec.mode: Unsupported value: "Sometimes": supported values: "Rolling", "Recreate"`,
      `spec.port: Invalid value: "number": spec.port in body must be of type integer or string: "number"`,
      `spec.replicas: Invalid value: 500: spec.replicas in body should be less than or equal to 100`,
      `spec.schedule: Invalid value: "yesterday": spec.schedule in body must be of type date-time: "yesterday"`,
      `spec.tags[1]: Duplicate value: "a"`,
    ]);
    const missing = await server.call("POST", WIDGETS, { body: { ...widget("missing"), spec: {} } });
    // A missing required field also stops the CEL rules (kube's hasBlockingErr), which says so.
    assert.deepEqual(causes(missing.json), [
      "spec.image: Required value",
      `<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`,
    ]);
    const strict = await server.call("POST", `${WIDGETS}?fieldValidation=Strict`, { body: widget("strict", { extra: true }) });
    assert.equal(strict.status, 400, strict.text);
    assert.match(String(strict.json["message"]), /unknown field "spec.extra"/);
  });

  it("evaluates x-kubernetes-validations CEL rules: message, reason, transition rules with oldSelf and fieldPath", async () => {
    const refused = await server.call("POST", WIDGETS, { body: widget("many", { replicas: 60 }) });
    assert.equal(refused.status, 422, refused.text);
    assert.deepEqual(causes(refused.json), ["spec: Forbidden: more than 50 replicas need mode Recreate"]);
    assert.equal((await server.call("POST", WIDGETS, { body: widget("many", { replicas: 60, mode: "Recreate" }) })).status, 201);
    const moved = await server.call("PATCH", `${WIDGETS}/many`, { headers: MERGE, body: { spec: { image: "nginx:1.27" } } });
    assert.equal(moved.status, 422, moved.text);
    assert.deepEqual(
      causes(moved.json).map((cause) => cause.replace(/Invalid value: "[^"]*": /, "")),
      ["spec.image: image may change only while paused"],
    );
    const paused = await server.call("PATCH", `${WIDGETS}/many`, { headers: MERGE, body: { spec: { image: "nginx:1.27", paused: true } } });
    assert.equal(paused.status, 200, paused.text);
    // kube serves no strategic merge patch for custom resources: 415 naming the media types it takes, nothing changed.
    const strategic = await server.call("PATCH", `${WIDGETS}/many`, {
      headers: { "content-type": "application/strategic-merge-patch+json" },
      body: { spec: { image: "nginx:1.28" } },
    });
    assert.equal(strategic.status, 415, strategic.text);
    assert.equal(strategic.json["reason"], "UnsupportedMediaType");
    assert.match(
      String(strategic.json["message"]),
      /accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml$/,
    );
    assert.equal(((await server.call("GET", `${WIDGETS}/many`)).json["spec"] as Json)["image"], "nginx:1.27");
  });

  it("names custom objects as kube: any DNS subdomain, generateName checked as a prefix", async () => {
    const refused = await server.call("POST", WIDGETS, { body: widget("Bad_Name") });
    assert.equal(refused.status, 422, refused.text);
    assert.match(causes(refused.json).join("\n"), /^metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of/);
    const generated = await server.call("POST", WIDGETS, { body: { ...widget(""), metadata: { generateName: "Bad-" } } });
    assert.equal(generated.status, 422, generated.text);
    assert.match(causes(generated.json).join("\n"), /metadata\.generateName: Invalid value: "Bad-": a lowercase RFC 1123 subdomain/);
    const dotted = await server.call("POST", WIDGETS, { body: widget("a.b.c") });
    assert.equal(dotted.status, 201, dotted.text);
    assert.equal((await server.call("DELETE", `${WIDGETS}/a.b.c`)).status, 200);
  });

  it("prunes, on read, fields a changed schema no longer declares (as kube decodes objects from etcd)", async () => {
    const GADGETS = `/apis/${GROUP}/v1/namespaces/default/gadgets`;
    const schema = (properties: Json): Json => ({
      type: "object",
      properties: { spec: { type: "object", properties } },
    });
    const definition = (properties: Json, resourceVersion?: string): Json => ({
      apiVersion: `${APIEXTENSIONS}/v1`,
      kind: "CustomResourceDefinition",
      metadata: { name: `gadgets.${GROUP}`, ...(resourceVersion === undefined ? {} : { resourceVersion }) },
      spec: {
        group: GROUP,
        scope: "Namespaced",
        names: { plural: "gadgets", kind: "Gadget" },
        versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: schema(properties) } }],
      },
    });
    assert.equal((await server.call("POST", CRDS, { body: definition({ kept: { type: "string" }, dropped: { type: "string" } }) })).status, 201);
    await established(server, `gadgets.${GROUP}`);
    const body = { apiVersion: `${GROUP}/v1`, kind: "Gadget", metadata: { name: "g" }, spec: { kept: "a", dropped: "b" } };
    const created = await server.call("POST", GADGETS, { body });
    assert.equal(created.status, 201, created.text);
    const current = await server.call("GET", `${CRDS}/gadgets.${GROUP}`);
    const replaced = await server.call("PUT", `${CRDS}/gadgets.${GROUP}`, {
      body: { ...definition({ kept: { type: "string" } }, String((current.json["metadata"] as Json)["resourceVersion"])), status: current.json["status"] },
    });
    assert.equal(replaced.status, 200, replaced.text);
    await eventually(async () => {
      const read = await server.call("GET", `${GADGETS}/g`);
      return read.status === 200 && !("dropped" in ((read.json["spec"] as Json | undefined) ?? {})) ? true : undefined;
    });
    const listed = await server.call("GET", GADGETS);
    assert.deepEqual(((listed.json["items"] as Json[])[0] as Json)["spec"], { kept: "a" });
  });

  it("refuses a definition whose rule does not compile", async () => {
    const fixture = crdFixture({ group: GROUP, plural: "rules", kind: "Rule", apiextensionsGroup: APIEXTENSIONS }) as Json;
    const version = ((fixture["spec"] as Json)["versions"] as Json[])[0] as Json;
    const root = (version["schema"] as Json)["openAPIV3Schema"] as Json;
    root["x-kubernetes-validations"] = [{ rule: "self.spec.replicas >" }];
    const refused = await server.call("POST", CRDS, { body: fixture });
    assert.equal(refused.status, 422, refused.text);
    assert.match(
      causes(refused.json).join("\n"),
      /spec\.versions\[0\]\.schema\.openAPIV3Schema\.x-kubernetes-validations\[0\]\.rule: Invalid value: .*compilation failed/,
    );
  });

  it("serves the deprecated version from the same storage with its warning, and status and scale sub-resources", async () => {
    const old = await server.call("GET", `/apis/${GROUP}/v1beta1/namespaces/default/widgets/a`);
    assert.equal(old.status, 200, old.text);
    assert.equal(old.json["apiVersion"], `${GROUP}/v1beta1`);
    assert.match(String(old.headers["warning"]), /v1beta1 Widget is deprecated; use v1/);
    const status = await server.call("PATCH", `${WIDGETS}/a/status`, {
      headers: MERGE,
      body: { status: { replicas: 1, selector: "app=a", phase: "Running" }, spec: { replicas: 9 } },
    });
    assert.equal(status.status, 200, status.text);
    assert.equal((status.json["spec"] as Json)["replicas"], 1);
    const scale = await server.call("GET", `${WIDGETS}/a/scale`);
    assert.deepEqual(scale.json["status"], { replicas: 1, selector: "app=a" });
    const scaled = await server.call("PATCH", `${WIDGETS}/a/scale`, { headers: MERGE, body: { spec: { replicas: 3 } } });
    assert.equal(scaled.status, 200, scaled.text);
    const read = await server.call("GET", `${WIDGETS}/a`);
    assert.equal((read.json["spec"] as Json)["replicas"], 3);
  });

  it("renders printer columns as Table columns and filters by selectable fields", async () => {
    const table = await server.call("GET", WIDGETS, { headers: { accept: `application/json;as=Table;v=v1;g=meta.${ORCH_PROFILE.apiDomain}` } });
    assert.equal(table.status, 200, table.text);
    const columns = (table.json["columnDefinitions"] as Json[]).map((column) => `${String(column["name"])}/${String(column["priority"])}`);
    assert.deepEqual(columns, ["Name/0", "Image/0", "Replicas/0", "Phase/1", "Age/0"]);
    const row = (table.json["rows"] as Json[])[0]?.["cells"] as unknown[];
    assert.deepEqual(row.slice(0, 4), ["a", "nginx:1.25", 3, "Running"]);
    await server.call("POST", WIDGETS, { body: widget("b", { mode: "Recreate" }) });
    const selected = await server.call("GET", `${WIDGETS}?fieldSelector=spec.mode%3DRecreate`);
    assert.deepEqual(
      (selected.json["items"] as Json[]).map((item) => (item["metadata"] as Json)["name"]),
      ["b", "many"],
    );
    const refused = await server.call("GET", `${WIDGETS}?fieldSelector=spec.image%3Dx`);
    assert.equal(refused.status, 400);
  });

  it("merges list-map items by key in server-side apply", async () => {
    const first = await server.call("PATCH", `${WIDGETS}/applied?fieldManager=one`, {
      headers: APPLY,
      body: { ...widget("applied"), spec: { image: "nginx:1.25", ports: [{ name: "http", port: 80 }] } },
    });
    assert.equal(first.status, 201, first.text);
    const second = await server.call("PATCH", `${WIDGETS}/applied?fieldManager=two`, {
      headers: APPLY,
      body: { apiVersion: `${GROUP}/v1`, kind: "Widget", metadata: { name: "applied" }, spec: { ports: [{ name: "metrics", port: 9090 }] } },
    });
    assert.equal(second.status, 200, second.text);
    const ports = ((second.json["spec"] as Json)["ports"] as Json[]).map((port) => port["name"]);
    assert.deepEqual(ports, ["http", "metrics"]);
  });

  it("publishes the schema in OpenAPI v3 and v2 with its descriptions", async () => {
    const root = await server.call("GET", "/openapi/v3");
    assert.ok(Object.keys(root.json["paths"] as Json).includes(`apis/${GROUP}/v1`));
    const document = await server.call("GET", `/openapi/v3/apis/${GROUP}/v1`);
    const schemas = (document.json["components"] as Json)["schemas"] as Json;
    const schema = schemas["com.example.stable.v1.Widget"] as Json;
    assert.equal(schema["description"], "Widget is the Schema for the widgets API.");
    assert.ok(schemas["com.example.stable.v1.WidgetList"] !== undefined);
    const v2 = await server.call("GET", "/openapi/v2", { headers: { accept: "application/json" } });
    assert.ok(((v2.json["definitions"] as Json)["com.example.stable.v1.Widget"] as Json | undefined) !== undefined);
  });

  it("reports a name conflict with another definition in NamesAccepted and does not establish it", async () => {
    const clash = crdFixture({ group: GROUP, plural: "gizmos", kind: "Gizmo", apiextensionsGroup: APIEXTENSIONS, shortNames: ["widgets"] });
    assert.equal((await server.call("POST", CRDS, { body: clash })).status, 201);
    const crd = await eventually(async () => {
      const response = await server.call("GET", `${CRDS}/gizmos.${GROUP}`);
      return condition(response.json, "NamesAccepted") === undefined ? undefined : response.json;
    });
    assert.deepEqual(condition(crd, "NamesAccepted"), {
      ...condition(crd, "NamesAccepted"),
      status: "False",
      reason: "ShortNamesConflict",
      message: '"widgets" is already in use',
    });
    assert.equal(condition(crd, "Established")?.["status"], "False");
    assert.equal((await server.call("GET", `/apis/${GROUP}/v1/gizmos`)).status, 404);
  });

  it("refuses a definition whose schema is not structural, with kube's messages", async () => {
    const fixture = crdFixture({ group: GROUP, plural: "bads", kind: "Bad", apiextensionsGroup: APIEXTENSIONS }) as Json;
    const spec = fixture["spec"] as Json;
    const version = (spec["versions"] as Json[])[0] as Json;
    const root = (version["schema"] as Json)["openAPIV3Schema"] as Json;
    const properties = (root["properties"] as Json)["spec"] as Json;
    (properties["properties"] as Json)["untyped"] = { description: "no type" };
    (properties["properties"] as Json)["list"] = { type: "array" };
    (properties["properties"] as Json)["count"] = { type: "integer", default: "three" };
    const refused = await server.call("POST", CRDS, { body: fixture });
    assert.equal(refused.status, 422, refused.text);
    const at = "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties"; // the fixture's versions differ once v1 changes: per version
    assert.deepEqual(causes(refused.json).sort(), [
      `${at}[count].default: Invalid value: "string": in body must be of type integer: "string"`,
      `${at}[list].items: Required value: must be specified`,
      `${at}[untyped].type: Required value: must not be empty for specified object fields`,
    ]);
  });

  it("serves definitions and objects again after a restart", async () => {
    await server.server.stop();
    server = await inProcessServer({ storage });
    const ready = await server.call("GET", "/readyz");
    assert.equal(ready.status, 200, ready.text);
    const read = await server.call("GET", `${WIDGETS}/a`);
    assert.equal(read.status, 200, read.text);
  });

  it("deletes every custom object before the definition, then stops serving it", async () => {
    const deleted = await server.call("DELETE", `${CRDS}/widgets.${GROUP}`);
    assert.equal(deleted.status, 200, deleted.text);
    await eventually(async () => ((await server.call("GET", `${CRDS}/widgets.${GROUP}`)).status === 404 ? true : undefined));
    assert.equal((await server.call("GET", WIDGETS)).status, 404);
    assert.deepEqual(
      (await storage.list(`/${GROUP}/widgets/`, {})).items.map((item) => item.key),
      [],
    );
    const discovery = await server.call("GET", `/apis/${GROUP}/v1`);
    assert.ok(!((discovery.json["resources"] as Json[] | undefined) ?? []).some((resource) => resource["name"] === "widgets"));
  });
});
