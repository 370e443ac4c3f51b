// ValidatingAdmissionPolicy at v1beta1 and v1alpha1 (off unless --runtime-config turns them on, stored as v1),
// and the CEL expressions of admission objects checked when written (422 Invalid at the expression's path).
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { inProcessServer, type TestResponse } from "../../../testing/in-process.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
const GROUP = "admissionregistration.orch.io";

const rules = { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }] };

function policy(version: string, name: string, spec: Record<string, unknown>) {
  return { apiVersion: `${GROUP}/${version}`, kind: "ValidatingAdmissionPolicy", metadata: { name }, spec: { matchConstraints: rules, ...spec } };
}

function causes(response: TestResponse): { field: string; message: string }[] {
  const details = response.json["details"] as { causes?: { field: string; message: string }[] } | undefined;
  return details?.causes ?? [];
}

describe("ValidatingAdmissionPolicy versions", () => {
  let plain: Server;
  let enabled: Server;
  before(async () => {
    plain = await inProcessServer();
    enabled = await inProcessServer({
      runtimeConfig: new Map([
        [`${GROUP}/v1beta1`, true],
        [`${GROUP}/v1alpha1`, true],
      ]),
    });
  });
  after(async () => {
    await plain.stop();
    await enabled.stop();
  });

  it("by default serves v1 only (v1beta1 still serves the webhook configurations)", async () => {
    const beta = await plain.call("GET", `/apis/${GROUP}/v1beta1`);
    assert.equal(beta.status, 200, beta.text);
    const names = (beta.json["resources"] as { name: string }[]).map((resource) => resource.name);
    assert.ok(names.includes("validatingwebhookconfigurations"));
    assert.ok(!names.includes("validatingadmissionpolicies"));
    assert.equal((await plain.call("GET", `/apis/${GROUP}/v1beta1/validatingadmissionpolicies`)).status, 404);
    assert.equal((await plain.call("GET", `/apis/${GROUP}/v1alpha1/validatingadmissionpolicybindings`)).status, 404);
    assert.equal((await plain.call("GET", `/apis/${GROUP}/v1/validatingadmissionpolicies`)).status, 200);
  });

  it("with --runtime-config: a v1beta1 policy and a v1alpha1 binding are one stored object each, read at every version, and enforced", async () => {
    const created = await enabled.call("POST", `/apis/${GROUP}/v1beta1/validatingadmissionpolicies`, {
      body: policy("v1beta1", "beta-keys", { validations: [{ expression: "!has(object.data) || object.data.size() <= 1", message: "one key at most" }] }),
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json["apiVersion"], `${GROUP}/v1beta1`);
    assert.match(
      String(created.headers["warning"]),
      /v1beta1 ValidatingAdmissionPolicy is deprecated in v1\.31\+, unavailable in v1\.34\+; use .*\/v1 ValidatingAdmissionPolicy/,
    );
    const spec = created.json["spec"] as Record<string, unknown>;
    assert.equal(spec["failurePolicy"], "Fail", "defaulted as at v1");
    for (const version of ["v1", "v1alpha1"]) {
      const read = await enabled.call("GET", `/apis/${GROUP}/${version}/validatingadmissionpolicies/beta-keys`);
      assert.equal(read.status, 200, read.text);
      assert.equal(read.json["apiVersion"], `${GROUP}/${version}`);
      assert.deepEqual(read.json["spec"], spec);
    }
    const bound = await enabled.call("POST", `/apis/${GROUP}/v1alpha1/validatingadmissionpolicybindings`, {
      body: {
        apiVersion: `${GROUP}/v1alpha1`,
        kind: "ValidatingAdmissionPolicyBinding",
        metadata: { name: "beta-keys" },
        spec: { policyName: "beta-keys", validationActions: ["Deny"] },
      },
    });
    assert.equal(bound.status, 201, bound.text);
    const list = await enabled.call("GET", `/apis/${GROUP}/v1/validatingadmissionpolicybindings`);
    assert.deepEqual(
      (list.json["items"] as { metadata: { name: string } }[]).map((item) => item.metadata.name),
      ["beta-keys"],
    );
    // The plugin reads the storage version: the policy applies.
    const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "two" }, data: { a: "1", b: "2" } };
    let denied = await enabled.call("POST", "/api/v1/namespaces/default/configmaps", { body });
    for (let attempt = 0; attempt < 100 && denied.status !== 422; attempt++) {
      if (denied.status === 201) await enabled.call("DELETE", "/api/v1/namespaces/default/configmaps/two");
      await sleep(10);
      denied = await enabled.call("POST", "/api/v1/namespaces/default/configmaps", { body });
    }
    assert.equal(denied.status, 422, denied.text);
    assert.equal(
      denied.json["message"],
      `configmaps "two" is forbidden: ValidatingAdmissionPolicy 'beta-keys' with binding 'beta-keys' denied request: one key at most`,
    );
  });

  it("rejects expressions that do not compile, at every version, naming the field", async () => {
    for (const version of ["v1", "v1beta1", "v1alpha1"]) {
      const response = await enabled.call("POST", `/apis/${GROUP}/${version}/validatingadmissionpolicies`, {
        body: policy(version, `broken-${version}`, {
          validations: [{ expression: "object.data.size() <" }, { expression: "true", messageExpression: "1 + 1" }, { expression: "'x'" }],
          matchConditions: [{ name: "m", expression: "object.(" }],
          auditAnnotations: [{ key: "k", valueExpression: "1" }],
          variables: [{ name: "not-ok", expression: "object.data[" }],
        }),
      });
      assert.equal(response.status, 422, response.text);
      assert.equal(response.json["reason"], "Invalid");
      const found = causes(response);
      const byField = new Map(found.map((cause) => [cause.field, cause.message]));
      assert.match(byField.get("spec.validations[0].expression") ?? "", /^Invalid value: "object.data.size\(\) <": compilation failed: ERROR: <input>:1:\d+: /);
      assert.equal(byField.get("spec.validations[1].messageExpression"), 'Invalid value: "1 + 1": must evaluate to string');
      assert.equal(byField.get("spec.validations[2].expression"), `Invalid value: "'x'": must evaluate to bool`);
      assert.match(byField.get("spec.matchConditions[0].expression") ?? "", /compilation failed: ERROR: <input>:1:\d+: /);
      assert.equal(byField.get("spec.auditAnnotations[0].valueExpression"), 'Invalid value: "1": must evaluate to one of [string null_type]');
      assert.equal(byField.get("spec.variables[0].name"), 'Invalid value: "not-ok": name is not a valid CEL identifier');
      assert.match(byField.get("spec.variables[0].expression") ?? "", /compilation failed: /);
      assert.match(
        String(response.json["message"]),
        /spec\.validations\[0\]\.expression: Invalid value: "object\.data\.size\(\) <": compilation failed: ERROR: <input>:1:\d+: /,
      );
    }
  });

  it("a policy needs validations or audit annotations; a binding a policy name and actions, not both Deny and Warn", async () => {
    const empty = await enabled.call("POST", `/apis/${GROUP}/v1/validatingadmissionpolicies`, { body: policy("v1", "empty", {}) });
    assert.equal(empty.status, 422, empty.text);
    assert.deepEqual(
      causes(empty).map((cause) => [cause.field, cause.message]),
      [
        ["spec.validations", "Required value: validations or auditAnnotations must contain at least one item"],
        ["spec.auditAnnotations", "Required value: validations or auditAnnotations must contain at least one item"],
      ],
    );
    const binding = await enabled.call("POST", `/apis/${GROUP}/v1/validatingadmissionpolicybindings`, {
      body: { apiVersion: `${GROUP}/v1`, kind: "ValidatingAdmissionPolicyBinding", metadata: { name: "b" }, spec: { validationActions: ["Deny", "Warn"] } },
    });
    assert.equal(binding.status, 422, binding.text);
    const fields = causes(binding).map((cause) => cause.field);
    assert.deepEqual(fields.sort(), ["spec.policyName", "spec.validationActions"]);
    const none = await enabled.call("POST", `/apis/${GROUP}/v1/validatingadmissionpolicybindings`, {
      body: { apiVersion: `${GROUP}/v1`, kind: "ValidatingAdmissionPolicyBinding", metadata: { name: "b" }, spec: { policyName: "p" } },
    });
    assert.equal(none.status, 422, none.text);
    assert.deepEqual(
      causes(none).map((cause) => [cause.field, cause.message]),
      [["spec.validationActions", "Required value: at least one validation action is required"]],
    );
  });

  it("rejects webhook matchConditions that do not compile or are not bool", async () => {
    const response = await plain.call("POST", `/apis/${GROUP}/v1/validatingwebhookconfigurations`, {
      body: {
        apiVersion: `${GROUP}/v1`,
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: "conditions" },
        webhooks: [
          {
            name: "hook.example.com",
            clientConfig: { url: "https://127.0.0.1:1/" },
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
            matchConditions: [
              { name: "syntax", expression: "request.(" },
              { name: "type", expression: "request.name" },
              { name: "ok", expression: "request.name != 'x'" },
              { name: "ok", expression: "true" },
            ],
          },
        ],
      },
    });
    assert.equal(response.status, 422, response.text);
    const byField = new Map(causes(response).map((cause) => [cause.field, cause.message]));
    assert.match(byField.get("webhooks[0].matchConditions[0].expression") ?? "", /^Invalid value: "request\.\(": compilation failed: ERROR: <input>:1:\d+: /);
    assert.equal(byField.get("webhooks[0].matchConditions[3].name"), 'Duplicate value: "ok"');
    assert.equal(byField.size, 2, JSON.stringify([...byField]));
  });
});
