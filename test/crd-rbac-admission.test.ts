import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiGroup, ORCH_PROFILE } from "../src/api/profile.js";
import { inProcessServer } from "../src/testing/in-process.js";
import { eventually } from "./helpers/wait.js";
import { generateTestPki, startWebhookServer, type TestWebhookServer } from "../src/testing/webhook-server.js";

type Json = Record<string, unknown>;
type Server = Awaited<ReturnType<typeof inProcessServer>>;

const APIEXTENSIONS = apiGroup(ORCH_PROFILE, "apiextensions");
const RBAC = apiGroup(ORCH_PROFILE, "rbac.authorization");
const ADMISSION = apiGroup(ORCH_PROFILE, "admissionregistration");
const GROUP = "rbac.example.com";
const WIDGETS = `/apis/${GROUP}/v1/namespaces/default/widgets`;
const MERGE = { "content-type": "application/merge-patch+json" };

function widget(name: string, size: number): Json {
  return { apiVersion: `${GROUP}/v1`, kind: "Widget", metadata: { name }, spec: { size } };
}

describe("RBAC and admission on custom resources", () => {
  let server: Server;
  let webhook: TestWebhookServer;
  let caBundle = "";
  before(async () => {
    const pki = generateTestPki();
    caBundle = pki.caBundle;
    // The webhook refuses widgets named "vetoed" and allows the rest.
    webhook = await startWebhookServer(pki, (review) => {
      const object = (review["request"] as Json)["object"] as Json;
      const name = String((object["metadata"] as Json)["name"]);
      return { response: name === "vetoed" ? { allowed: false, status: { code: 403, message: "no vetoed widgets" } } : { allowed: true } };
    });
    server = await inProcessServer();
    const crd = {
      apiVersion: `${APIEXTENSIONS}/v1`,
      kind: "CustomResourceDefinition",
      metadata: { name: `widgets.${GROUP}` },
      spec: {
        group: GROUP,
        scope: "Namespaced",
        names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: {
                  spec: { type: "object", properties: { size: { type: "integer" } } },
                  status: { type: "object", properties: { ok: { type: "boolean" } } },
                },
              },
            },
          },
        ],
      },
    };
    assert.equal((await server.call("POST", `/apis/${APIEXTENSIONS}/v1/customresourcedefinitions`, { body: crd })).status, 201);
    await eventually(async () => ((await server.call("GET", WIDGETS)).status === 200 ? true : undefined));
    const rbac = `/apis/${RBAC}/v1/namespaces/default`;
    const role = { metadata: { name: "widget-editor" }, rules: [{ apiGroups: [GROUP], resources: ["widgets"], verbs: ["get", "list", "create", "patch"] }] };
    assert.equal((await server.call("POST", `${rbac}/roles`, { body: role })).status, 201);
    const binding = {
      metadata: { name: "alice-widgets" },
      roleRef: { apiGroup: RBAC, kind: "Role", name: "widget-editor" },
      subjects: [{ kind: "User", apiGroup: RBAC, name: "alice" }],
    };
    assert.equal((await server.call("POST", `${rbac}/rolebindings`, { body: binding })).status, 201);
  });
  after(async () => {
    await server.server.stop();
    await webhook.close();
  });

  it("a user with a Role on the custom resource acts on it; its status sub-resource needs its own rule", async () => {
    const created = await eventually(async () => {
      const response = await server.call("POST", WIDGETS, { as: "alice", body: widget("mine", 1) });
      return response.status === 201 ? response : undefined;
    });
    assert.equal(created.json["kind"], "Widget");
    assert.equal((await server.call("GET", `${WIDGETS}/mine`, { as: "alice" })).status, 200);
    assert.equal((await server.call("GET", WIDGETS, { as: "alice" })).status, 200);
    const status = await server.call("PATCH", `${WIDGETS}/mine/status`, { as: "alice", body: { status: { ok: true } }, headers: MERGE });
    assert.equal(status.status, 403, status.text);
    assert.equal((await server.call("DELETE", `${WIDGETS}/mine`, { as: "alice" })).status, 403);
  });

  it("a user without one is refused with kube's message", async () => {
    const listed = await server.call("GET", WIDGETS, { as: "bob" });
    assert.equal(listed.status, 403);
    assert.equal(
      listed.json["message"],
      `widgets.${GROUP} is forbidden: User "bob" cannot list resource "widgets" in API group "${GROUP}" in the namespace "default"`,
    );
    const created = await server.call("POST", WIDGETS, { as: "bob", body: widget("theirs", 1) });
    assert.equal(created.status, 403);
  });

  it("a ValidatingAdmissionPolicy matching the custom resource sees its fields and denies", async () => {
    const policies = `/apis/${ADMISSION}/v1`;
    const policy = {
      metadata: { name: "small-widgets" },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: { resourceRules: [{ apiGroups: [GROUP], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["widgets"] }] },
        validations: [{ expression: "object.spec.size <= 3", messageExpression: "'size ' + string(object.spec.size) + ' is too big'" }],
      },
    };
    assert.equal((await server.call("POST", `${policies}/validatingadmissionpolicies`, { body: policy })).status, 201);
    const binding = { metadata: { name: "small-widgets" }, spec: { policyName: "small-widgets", validationActions: ["Deny"] } };
    assert.equal((await server.call("POST", `${policies}/validatingadmissionpolicybindings`, { body: binding })).status, 201);
    const denied = await eventually(async () => {
      const response = await server.call("POST", WIDGETS, { body: widget("big", 5) });
      if (response.status === 201) await server.call("DELETE", `${WIDGETS}/big`);
      return response.status === 422 ? response.json : undefined;
    });
    assert.match(
      String(denied["message"]),
      /is forbidden: ValidatingAdmissionPolicy 'small-widgets' with binding 'small-widgets' denied request: size 5 is too big$/,
    );
    assert.equal((await server.call("POST", WIDGETS, { body: widget("small", 2) })).status, 201);
  });

  it("a validating admission webhook is called for custom objects", async () => {
    const configuration = {
      metadata: { name: "widget-veto" },
      webhooks: [
        {
          name: "veto.example.com",
          clientConfig: { url: `${webhook.url}/veto`, caBundle },
          rules: [{ apiGroups: [GROUP], apiVersions: ["*"], operations: ["CREATE"], resources: ["widgets"] }],
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
        },
      ],
    };
    assert.equal((await server.call("POST", `/apis/${ADMISSION}/v1/validatingwebhookconfigurations`, { body: configuration })).status, 201);
    const vetoed = await eventually(async () => {
      const response = await server.call("POST", WIDGETS, { body: widget("vetoed", 1) });
      if (response.status === 201) await server.call("DELETE", `${WIDGETS}/vetoed`);
      return response.status === 403 ? response.json : undefined;
    });
    assert.match(String(vetoed["message"]), /no vetoed widgets/);
    const review = webhook.reviews.find((item) => ((item["request"] as Json)["kind"] as Json)["kind"] === "Widget");
    assert.deepEqual((review?.["request"] as Json | undefined)?.["resource"], { group: GROUP, version: "v1", resource: "widgets" });
  });
});
