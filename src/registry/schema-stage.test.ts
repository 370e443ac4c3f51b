import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiGroup, ORCH_PROFILE } from "../api/profile.js";
import { inProcessServer } from "../testing/in-process.js";

type Json = Record<string, unknown>;
type Server = Awaited<ReturnType<typeof inProcessServer>>;

const NS = "/apis/apps/v1/namespaces/default/deployments";
const SERVICES = "/api/v1/namespaces/default/services";
const SECRETS = "/api/v1/namespaces/default/secrets";
const MERGE = { "content-type": "application/merge-patch+json" };
const STRATEGIC = { "content-type": "application/strategic-merge-patch+json" };
const APPLY = { "content-type": "application/apply-patch+yaml" };

const template = { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx:1.25" }] } };
const deployment = (name: string, spec: Json = {}): Json => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name },
  spec: { selector: { matchLabels: { app: "web" } }, template, ...spec },
});
const deploymentJson = (name: string, extra: string): string =>
  `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${name}"},"spec":{"replicas":1,${extra}"selector":{"matchLabels":{"app":"web"}},"template":${JSON.stringify(template)}}}`;

function warnings(headers: Record<string, unknown>): string[] {
  const value = headers["warning"];
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).map((item) => String(item));
}

function causes(json: Json): string[] {
  return (((json["details"] as Json | undefined)?.["causes"] as Json[] | undefined) ?? []).map(
    (cause) => `${String(cause["reason"])} ${String(cause["field"])}`,
  );
}

describe("the schema stage on every write: fieldValidation, defaults, validation", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(async () => {
    await server.stop();
  });

  describe("fieldValidation", () => {
    it("Strict refuses unknown and duplicate fields with 400 naming each, and stores nothing", async () => {
      const response = await server.call("POST", `${NS}?fieldValidation=Strict`, { body: deploymentJson("strict", '"replicas":2,"bogus":true,') });
      assert.equal(response.status, 400);
      assert.equal(response.json["reason"], "BadRequest");
      assert.equal(
        response.json["message"],
        'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.bogus", duplicate field "spec.replicas"',
      );
      assert.equal((await server.call("GET", `${NS}/strict`)).status, 404);
    });

    it("Warn (also the default) stores the object without unknown fields, the last duplicate winning, and warns about each", async () => {
      for (const [name, query] of [
        ["warned", "?fieldValidation=Warn"],
        ["defaulted", ""],
      ] as const) {
        const response = await server.call("POST", `${NS}${query}`, { body: deploymentJson(name, '"replicas":3,"bogus":true,') });
        assert.equal(response.status, 201, response.text);
        assert.deepEqual(warnings(response.headers), ['299 - "unknown field \\"spec.bogus\\""', '299 - "duplicate field \\"spec.replicas\\""']);
        const spec = (await server.call("GET", `${NS}/${name}`)).json["spec"] as Json;
        assert.equal(spec["bogus"], undefined);
        assert.equal(spec["replicas"], 3);
      }
    });

    it("Ignore drops unknown fields silently", async () => {
      const response = await server.call("POST", `${NS}?fieldValidation=Ignore`, { body: deploymentJson("ignored", '"bogus":true,') });
      assert.equal(response.status, 201);
      assert.deepEqual(warnings(response.headers), []);
      assert.equal((response.json["spec"] as Json)["bogus"], undefined);
    });

    it("refuses a value other than Strict, Warn and Ignore with 422 naming the options kind", async () => {
      const response = await server.call("POST", `${NS}?fieldValidation=Loose`, { body: deployment("loose") });
      assert.equal(response.status, 422);
      assert.match(String(response.json["message"]), /^CreateOptions\.meta\.orch\.io "" is invalid: fieldValidation: Unsupported value: "Loose"/);
    });

    it("applies to updates and to every kind of patch", async () => {
      const current = (await server.call("GET", `${NS}/ignored`)).json;
      const put = await server.call("PUT", `${NS}/ignored?fieldValidation=Strict`, { body: { ...current, spec: { ...(current["spec"] as Json), extra: 1 } } });
      assert.equal(put.status, 400);
      assert.match(String(put.json["message"]), /unknown field "spec.extra"/);
      const merge = await server.call("PATCH", `${NS}/ignored?fieldValidation=Strict`, {
        body: { spec: { template: { spec: { containers: [{ name: "web", image: "nginx", imagePolicy: "x" }] } } } },
        headers: MERGE,
      });
      assert.equal(merge.status, 400);
      assert.match(String(merge.json["message"]), /unknown field "spec.template.spec.containers\[0\].imagePolicy"/);
      const strategic = await server.call("PATCH", `${NS}/ignored?fieldValidation=Warn`, { body: { spec: { paused: true, pausd: true } }, headers: STRATEGIC });
      assert.equal(strategic.status, 200);
      assert.deepEqual(warnings(strategic.headers), ['299 - "unknown field \\"spec.pausd\\""']);
      assert.equal((strategic.json["spec"] as Json)["paused"], true);
      const duplicated = await server.call("PATCH", `${NS}/ignored?fieldValidation=Strict`, {
        body: '{"spec":{"paused":false,"paused":true}}',
        headers: MERGE,
      });
      assert.equal(duplicated.status, 400);
      assert.match(String(duplicated.json["message"]), /duplicate field "spec.paused"/);
    });

    it("applies to server-side apply, YAML duplicate keys included", async () => {
      const yaml = (extra: string): string =>
        `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: applied\nspec:\n  replicas: 2\n${extra}  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers: [{name: web, image: nginx}]\n`;
      const strict = await server.call("PATCH", `${NS}/applied?fieldManager=ssa&fieldValidation=Strict`, { body: yaml("  replicaz: 3\n"), headers: APPLY });
      assert.equal(strict.status, 400);
      assert.match(String(strict.json["message"]), /unknown field "spec.replicaz"/);
      const duplicate = await server.call("PATCH", `${NS}/applied?fieldManager=ssa&fieldValidation=Strict`, { body: yaml("  replicas: 4\n"), headers: APPLY });
      assert.equal(duplicate.status, 400);
      assert.match(String(duplicate.json["message"]), /duplicate field "spec.replicas"/);
      const warned = await server.call("PATCH", `${NS}/applied?fieldManager=ssa&fieldValidation=Warn`, { body: yaml("  replicas: 4\n"), headers: APPLY });
      assert.equal(warned.status, 201, warned.text);
      assert.deepEqual(warnings(warned.headers), ['299 - "duplicate field \\"spec.replicas\\""']);
      assert.equal((warned.json["spec"] as Json)["replicas"], 4);
    });

    it("leaves subtrees that preserve unknown fields alone", async () => {
      const group = apiGroup(ORCH_PROFILE, "apiextensions");
      const prefix = ORCH_PROFILE.openApiExtensionPrefixes[0] ?? "";
      const crd = {
        metadata: { name: "gadgets.example.com" },
        spec: {
          group: "example.com",
          scope: "Cluster",
          names: { plural: "gadgets", kind: "Gadget" },
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: "object", default: { any: { shape: [1] } }, [`${prefix}preserve-unknown-fields`]: true } },
            },
          ],
        },
      };
      const response = await server.call("POST", `/apis/${group}/v1/customresourcedefinitions?fieldValidation=Strict`, { body: crd });
      assert.equal(response.status, 201, response.text);
    });
  });

  describe("validation", () => {
    it("answers 422 Invalid listing every bad field by path", async () => {
      const response = await server.call("POST", NS, {
        body: deployment("bad", { replicas: -2, strategy: { type: "Sometimes" }, template: { ...template, spec: { containers: [{ name: "web" }] } } }),
      });
      assert.equal(response.status, 422);
      assert.equal(response.json["reason"], "Invalid");
      assert.deepEqual(causes(response.json).sort(), [
        "FieldValueInvalid spec.replicas",
        "FieldValueNotSupported spec.strategy.type",
        "FieldValueRequired spec.template.spec.containers[0].image",
      ]);
      assert.match(String(response.json["message"]), /^Deployment\.apps "bad" is invalid: \[/);
    });

    it("answers 400 when a field has the wrong JSON type, as kube's decoder does for built-in kinds", async () => {
      const response = await server.call("POST", NS, { body: deployment("typed", { replicas: "two", template }) });
      assert.equal(response.status, 400, response.text);
      assert.equal(response.json["reason"], "BadRequest");
      assert.equal(
        response.json["message"],
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field Deployment.spec.replicas of type int32',
      );
      const configMap = await server.call("POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "typed" }, data: { a: 1 } } });
      assert.equal(configMap.status, 400, configMap.text);
      assert.match(String(configMap.json["message"]), /cannot unmarshal number into Go struct field ConfigMap\.data of type string/);
    });

    it("validates updates and patched objects", async () => {
      const patched = await server.call("PATCH", `${NS}/warned`, { body: { spec: { template: { spec: { restartPolicy: "Never" } } } }, headers: MERGE });
      assert.equal(patched.status, 422);
      assert.deepEqual(causes(patched.json), ["FieldValueNotSupported spec.template.spec.restartPolicy"]);
      const current = (await server.call("GET", `${NS}/warned`)).json;
      const put = await server.call("PUT", `${NS}/warned`, { body: { ...current, spec: { ...(current["spec"] as Json), replicas: -1 } } });
      assert.equal(put.status, 422);
      assert.deepEqual(causes(put.json), ["FieldValueInvalid spec.replicas"]);
    });

    it("reports a field once when the kind's own rules and the schema both check it", async () => {
      const response = await server.call("POST", SECRETS, { body: { metadata: { name: "bad-secret" }, data: { key: "not base64!" } } });
      assert.equal(response.status, 422);
      assert.deepEqual(causes(response.json), ["FieldValueInvalid data[key]"]);
    });
  });

  describe("defaults", () => {
    it("fills kube's defaults on create and again on update", async () => {
      const created = await server.call("POST", SERVICES, { body: { metadata: { name: "web" }, spec: { selector: { app: "web" }, ports: [{ port: 80 }] } } });
      assert.equal(created.status, 201, created.text);
      const spec = created.json["spec"] as Json;
      assert.equal(spec["type"], "ClusterIP");
      assert.deepEqual(spec["ports"], [{ port: 80, protocol: "TCP", targetPort: 80 }]);
      const { type: _type, sessionAffinity: _affinity, ...without } = spec;
      const updated = await server.call("PUT", `${SERVICES}/web`, { body: { ...created.json, spec: without } });
      assert.equal((updated.json["spec"] as Json)["type"], "ClusterIP");
      assert.equal((updated.json["spec"] as Json)["sessionAffinity"], "None");
    });

    it("counts defaults as the creator's fields, but not as an applier's", async () => {
      const created = await server.call("POST", `${SERVICES}?fieldManager=creator`, {
        body: { metadata: { name: "owned" }, spec: { ports: [{ port: 80 }], selector: { a: "b" } } },
      });
      const creator = (created.json["metadata"] as { managedFields: Json[] }).managedFields.find((entry) => entry["manager"] === "creator");
      assert.match(JSON.stringify(creator?.["fieldsV1"]), /"f:type"/);
      const applied = await server.call("PATCH", `${SERVICES}/applied?fieldManager=applier`, {
        body: "apiVersion: v1\nkind: Service\nmetadata:\n  name: applied\nspec:\n  selector: {a: b}\n  ports:\n  - port: 80\n",
        headers: APPLY,
      });
      assert.equal(applied.status, 201, applied.text);
      assert.equal((applied.json["spec"] as Json)["type"], "ClusterIP");
      const applier = (applied.json["metadata"] as { managedFields: Json[] }).managedFields.find((entry) => entry["manager"] === "applier");
      assert.doesNotMatch(JSON.stringify(applier?.["fieldsV1"]), /"f:type"/);
    });
  });
});
