import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { crdFixture } from "../../../testing/crd-fixtures.js";
import { inProcessServer, type TestResponse } from "../../../testing/in-process.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
const GROUP = "/apis/admissionregistration.orch.io/v1";

const configMap = (name: string, data: Record<string, string>, labels: Record<string, string> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, labels },
  data,
});

function policy(name: string, spec: Record<string, unknown>) {
  return {
    apiVersion: "admissionregistration.orch.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["configmaps"] }] },
      ...spec,
    },
  };
}

function binding(name: string, policyName: string, spec: Record<string, unknown>) {
  return { apiVersion: "admissionregistration.orch.io/v1", kind: "ValidatingAdmissionPolicyBinding", metadata: { name }, spec: { policyName, ...spec } };
}

async function create(server: Server, path: string, body: unknown): Promise<void> {
  const response = await server.call("POST", path, { body });
  assert.equal(response.status, 201, response.text);
}

/** Posts until the answer has `status` (the policy feed follows the store asynchronously); bounded. */
async function postUntil(server: Server, path: string, body: unknown, status: number): Promise<TestResponse> {
  let response = await server.call("POST", path, { body });
  for (let attempt = 0; attempt < 100 && response.status !== status; attempt++) {
    if (response.status === 201) await server.call("DELETE", `${path}/${(body as { metadata: { name: string } }).metadata.name}`);
    await sleep(10);
    response = await server.call("POST", path, { body });
  }
  return response;
}

describe("ValidatingAdmissionPolicy (in process)", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
    await create(server, "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "guarded", labels: { vap: "on" } } });
    await create(server, "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "free" } });
    await create(
      server,
      `${GROUP}/validatingadmissionpolicies`,
      policy("cm-limits", {
        variables: [{ name: "keys", expression: "has(object.data) ? object.data.size() : 0" }],
        validations: [
          { expression: "variables.keys <= 2", message: "too many keys" },
          {
            expression: "!has(object.data) || !('forbidden' in object.data)",
            messageExpression: "'key forbidden in ' + object.metadata.name",
            reason: "Forbidden",
          },
        ],
        matchConditions: [{ name: "not-exempt", expression: "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)" }],
        auditAnnotations: [{ key: "keys", valueExpression: "string(variables.keys)" }],
      }),
    );
    await create(
      server,
      `${GROUP}/validatingadmissionpolicybindings`,
      binding("cm-limits-deny", "cm-limits", { validationActions: ["Deny"], matchResources: { namespaceSelector: { matchLabels: { vap: "on" } } } }),
    );
    await create(
      server,
      `${GROUP}/validatingadmissionpolicybindings`,
      binding("cm-limits-warn", "cm-limits", {
        validationActions: ["Warn", "Audit"],
        matchResources: { namespaceSelector: { matchLabels: { kubernetes: "free" } } },
      }),
    );
  });
  after(() => server.stop());

  it("denies as kube: Invalid (422) without a reason, kube's admission Forbidden message naming the object, the denial as the one cause", async () => {
    const denied = await postUntil(server, "/api/v1/namespaces/guarded/configmaps", configMap("three", { a: "1", b: "2", c: "3" }), 422);
    assert.equal(denied.status, 422, denied.text);
    assert.equal(denied.json["reason"], "Invalid");
    const message = "ValidatingAdmissionPolicy 'cm-limits' with binding 'cm-limits-deny' denied request: too many keys";
    assert.equal(denied.json["message"], `configmaps "three" is forbidden: ${message}`);
    // kubectl prints it as `The configmaps "three" is invalid: : <message>`, as against kube.
    assert.deepEqual(denied.json["details"], { name: "three", kind: "configmaps", causes: [{ message }] });
  });

  it("uses messageExpression and the reason's code (Forbidden → 403)", async () => {
    const denied = await postUntil(server, "/api/v1/namespaces/guarded/configmaps", configMap("bad", { forbidden: "x" }), 403);
    assert.equal(denied.json["reason"], "Forbidden");
    assert.equal(
      denied.json["message"],
      `configmaps "bad" is forbidden: ValidatingAdmissionPolicy 'cm-limits' with binding 'cm-limits-deny' denied request: key forbidden in bad`,
    );
  });

  it("admits what passes, what matchConditions exclude, and namespaces the binding does not select", async () => {
    await create(server, "/api/v1/namespaces/guarded/configmaps", configMap("small", { a: "1" }));
    await create(server, "/api/v1/namespaces/guarded/configmaps", configMap("exempt", { a: "1", b: "2", c: "3" }, { exempt: "yes" }));
    await create(server, "/api/v1/namespaces/free/configmaps", configMap("three", { a: "1", b: "2", c: "3" }));
  });

  it("Warn: admits with a Warning header", async () => {
    const labelled = await server.call("PATCH", "/api/v1/namespaces/free", {
      body: { metadata: { labels: { kubernetes: "free" } } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(labelled.status, 200, labelled.text);
    let warned = await server.call("POST", "/api/v1/namespaces/free/configmaps", { body: configMap("warned-0", { a: "1", b: "2", c: "3" }) });
    for (let attempt = 1; attempt < 100 && warned.headers["warning"] === undefined; attempt++) {
      await sleep(10);
      warned = await server.call("POST", "/api/v1/namespaces/free/configmaps", { body: configMap(`warned-${attempt}`, { a: "1", b: "2", c: "3" }) });
    }
    assert.equal(warned.status, 201, warned.text);
    assert.match(String(warned.headers["warning"]), /Validation failed for ValidatingAdmissionPolicy 'cm-limits' with binding 'cm-limits-warn': too many keys/);
  });

  it("counts checks in apiserver_validating_admission_policy_check_total/_duration_seconds by binding and action", async () => {
    const metrics = (await server.call("GET", "/metrics")).text;
    const count = (binding: string, action: string): number => {
      const pattern = new RegExp(
        `apiserver_validating_admission_policy_check_total\\{policy="cm-limits",policy_binding="${binding}",error_type="no_error",enforcement_action="${action}"\\} (\\d+)`,
      );
      return Number(pattern.exec(metrics)?.[1] ?? 0);
    };
    // Earlier tests: denials through cm-limits-deny, passes there, warnings (and audits) through cm-limits-warn.
    assert.ok(count("cm-limits-deny", "deny") >= 2, metrics);
    assert.ok(count("cm-limits-deny", "allow") >= 1);
    assert.ok(count("cm-limits-warn", "warn") >= 1);
    assert.equal(count("cm-limits-warn", "warn"), count("cm-limits-warn", "audit"));
    assert.match(
      metrics,
      /apiserver_validating_admission_policy_check_duration_seconds_count\{policy="cm-limits",policy_binding="cm-limits-deny",error_type="no_error",enforcement_action="deny"\} \d+/,
    );
  });

  it("params: paramKind + paramRef by name; a missing parameter with parameterNotFoundAction Deny denies", async () => {
    await create(server, "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "params" } });
    await create(server, "/api/v1/namespaces/params/configmaps", configMap("limits", { prefix: "ok-" }));
    await create(server, "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "named", labels: { naming: "on" } } });
    await create(
      server,
      `${GROUP}/validatingadmissionpolicies`,
      policy("naming", {
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        validations: [{ expression: "object.metadata.name.startsWith(params.data.prefix)" }],
      }),
    );
    const select = { namespaceSelector: { matchLabels: { naming: "on" } } };
    await create(
      server,
      `${GROUP}/validatingadmissionpolicybindings`,
      binding("naming", "naming", {
        validationActions: ["Deny"],
        paramRef: { name: "limits", namespace: "params", parameterNotFoundAction: "Deny" },
        matchResources: select,
      }),
    );
    const denied = await postUntil(server, "/api/v1/namespaces/named/configmaps", configMap("bad-name", {}), 422);
    assert.equal(
      denied.json["message"],
      `configmaps "bad-name" is forbidden: ValidatingAdmissionPolicy 'naming' with binding 'naming' denied request: failed expression: object.metadata.name.startsWith(params.data.prefix)`,
    );
    await create(server, "/api/v1/namespaces/named/configmaps", configMap("ok-name", {}));
    await create(
      server,
      `${GROUP}/validatingadmissionpolicybindings`,
      binding("naming-missing", "naming", {
        validationActions: ["Deny"],
        paramRef: { name: "absent", namespace: "params", parameterNotFoundAction: "Deny" },
        matchResources: select,
      }),
    );
    const missing = await postUntil(server, "/api/v1/namespaces/named/configmaps", configMap("ok-other", {}), 422);
    assert.equal(
      missing.json["message"],
      "configmaps \"ok-other\" is forbidden: ValidatingAdmissionPolicy 'naming' with binding 'naming-missing' denied request: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
  });

  it("without paramKind: `params` is undeclared (422 at create), a binding's paramRef is ignored (kube)", async () => {
    const rejected = await server.call("POST", `${GROUP}/validatingadmissionpolicies`, {
      body: policy("no-kind-params", { validations: [{ expression: "params.data.prefix == 'x'" }] }),
    });
    assert.equal(rejected.status, 422, rejected.text);
    assert.match(String(rejected.json["message"]), /spec\.validations\[0\]\.expression: Invalid value: .*compilation failed: ERROR: <input>:1:1: .*params/);
    // The same expression compiles once the policy names a paramKind.
    await create(
      server,
      `${GROUP}/validatingadmissionpolicies`,
      policy("with-kind-params", { paramKind: { apiVersion: "v1", kind: "ConfigMap" }, validations: [{ expression: "params.data.prefix == 'x'" }] }),
    );
    await create(server, "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "unparam", labels: { unparam: "on" } } });
    await create(
      server,
      `${GROUP}/validatingadmissionpolicies`,
      policy("unparam", { validations: [{ expression: "object.metadata.name != 'forbidden'", message: "name forbidden" }] }),
    );
    // The paramRef names nothing that exists and asks for Deny: were it used, every request would be denied.
    await create(
      server,
      `${GROUP}/validatingadmissionpolicybindings`,
      binding("unparam", "unparam", {
        validationActions: ["Deny"],
        paramRef: { name: "absent", namespace: "params", parameterNotFoundAction: "Deny" },
        matchResources: { namespaceSelector: { matchLabels: { unparam: "on" } } },
      }),
    );
    const denied = await postUntil(server, "/api/v1/namespaces/unparam/configmaps", configMap("forbidden", {}), 422);
    assert.equal(
      denied.json["message"],
      `configmaps "forbidden" is forbidden: ValidatingAdmissionPolicy 'unparam' with binding 'unparam' denied request: name forbidden`,
    );
    await create(server, "/api/v1/namespaces/unparam/configmaps", configMap("allowed", {}));
  });

  it("failurePolicy: an evaluation error denies under Fail and is ignored under Ignore; the authorizer is asked", async () => {
    await create(server, "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "failing", labels: { failing: "on" } } });
    const select = { namespaceSelector: { matchLabels: { failing: "on" } } };
    await create(server, `${GROUP}/validatingadmissionpolicies`, policy("broken-fail", { validations: [{ expression: "object.data.missing == 'x'" }] }));
    await create(
      server,
      `${GROUP}/validatingadmissionpolicies`,
      policy("broken-ignore", { failurePolicy: "Ignore", validations: [{ expression: "object.data.missing == 'x'" }] }),
    );
    await create(
      server,
      `${GROUP}/validatingadmissionpolicies`,
      policy("authz", {
        validations: [{ expression: "authorizer.group('').resource('secrets').namespace('failing').check('list').allowed()", message: "may not list secrets" }],
      }),
    );
    await create(
      server,
      `${GROUP}/validatingadmissionpolicybindings`,
      binding("broken-ignore", "broken-ignore", { validationActions: ["Deny"], matchResources: select }),
    );
    await create(server, `${GROUP}/validatingadmissionpolicybindings`, binding("authz", "authz", { validationActions: ["Deny"], matchResources: select }));
    // Only Ignore and authz are bound so far: the admin may list secrets, the error is ignored.
    await create(server, "/api/v1/namespaces/failing/configmaps", configMap("first", { a: "1" }));
    await create(
      server,
      `${GROUP}/validatingadmissionpolicybindings`,
      binding("broken-fail", "broken-fail", { validationActions: ["Deny"], matchResources: select }),
    );
    const denied = await postUntil(server, "/api/v1/namespaces/failing/configmaps", configMap("second", { a: "1" }), 422);
    assert.equal(
      denied.json["message"],
      `configmaps "second" is forbidden: ValidatingAdmissionPolicy 'broken-fail' with binding 'broken-fail' denied request: expression 'object.data.missing == 'x'' resulted in error: no such key: missing`,
    );
  });

  it("type checking: the status controller reports fields the matched kinds do not declare", async () => {
    await create(
      server,
      `${GROUP}/validatingadmissionpolicies`,
      policy("typos", {
        matchConstraints: { resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] }] },
        validations: [
          { expression: "object.spec.replicass <= 5 && object.spec.replicas >= 0" },
          { expression: "has(object.metadata.labels) && object.metadata.labels.app != ''", messageExpression: "'bad ' + oldObject.spek.x" },
        ],
      }),
    );
    let status: Record<string, unknown> = {};
    for (let attempt = 0; attempt < 100 && status["typeChecking"] === undefined; attempt++) {
      await sleep(10);
      status = ((await server.call("GET", `${GROUP}/validatingadmissionpolicies/typos`)).json["status"] ?? {}) as Record<string, unknown>;
    }
    assert.equal(status["observedGeneration"], 1);
    const warnings = (status["typeChecking"] as { expressionWarnings: { fieldRef: string; warning: string }[] }).expressionWarnings;
    // kube's wording: the GVK, cel-go's issue, the source line and a marker under the column.
    assert.deepEqual(warnings, [
      {
        fieldRef: "spec.validations[0].expression",
        warning:
          "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass <= 5 && object.spec.replicas >= 0\n | ...........^",
      },
      {
        fieldRef: "spec.validations[1].messageExpression",
        warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:19: undefined field 'spek'\n | 'bad ' + oldObject.spek.x\n | ..................^",
      },
    ]);
  });

  it("type checking follows list elements, map values and comprehension variables", async () => {
    const expressions = [
      "object.spec.template.spec.containers.all(c, c.nmae == 'x')",
      "object.spec.template.spec.containers[0].imagee != ''",
      "object.spec.template.spec.containers.exists(i, c, c.ports.all(p, p.containerPortt > 0))",
      "object.spec.template.spec.containers.map(c, c.name).all(n, n != '') && object.spec.template.spec.containers.all(c, c.image != '')",
      "object.metadata.labels.all(k, k != '') && object.spec.template.metadata.annotations['a'] != ''",
      "object.spec.template.spec.nodeSelector.all(k, v, v != '') && object.spec.template.spec.volumes.all(v, v.configMap.name != '')",
    ];
    await create(
      server,
      `${GROUP}/validatingadmissionpolicies`,
      policy("deep-typos", {
        matchConstraints: { resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] }] },
        validations: expressions.map((expression) => ({ expression })),
      }),
    );
    let status: Record<string, unknown> = {};
    for (let attempt = 0; attempt < 100 && status["typeChecking"] === undefined; attempt++) {
      await sleep(10);
      status = ((await server.call("GET", `${GROUP}/validatingadmissionpolicies/deep-typos`)).json["status"] ?? {}) as Record<string, unknown>;
    }
    const at = (index: number, field: string): string => {
      const expression = expressions[index] ?? "";
      const column = expression.indexOf(`.${field}`) + 1;
      return `apps/v1, Kind=Deployment: ERROR: <input>:1:${column}: undefined field '${field}'\n | ${expression}\n | ${".".repeat(column - 1)}^`;
    };
    const warnings = (status["typeChecking"] as { expressionWarnings: { fieldRef: string; warning: string }[] }).expressionWarnings;
    assert.deepEqual(warnings, [
      { fieldRef: "spec.validations[0].expression", warning: at(0, "nmae") },
      { fieldRef: "spec.validations[1].expression", warning: at(1, "imagee") },
      { fieldRef: "spec.validations[2].expression", warning: at(2, "containerPortt") },
    ]);
  });

  it("type checking follows variables.<name> and params (paramKind's served schema)", async () => {
    const expression = "variables.template.spek != null && params.dataa.size() > 0";
    await create(
      server,
      `${GROUP}/validatingadmissionpolicies`,
      policy("typed-variables", {
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        matchConstraints: { resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] }] },
        variables: [{ name: "template", expression: "object.spec.template" }],
        validations: [{ expression }],
      }),
    );
    let status: Record<string, unknown> = {};
    for (let attempt = 0; attempt < 100 && status["typeChecking"] === undefined; attempt++) {
      await sleep(10);
      status = ((await server.call("GET", `${GROUP}/validatingadmissionpolicies/typed-variables`)).json["status"] ?? {}) as Record<string, unknown>;
    }
    const issue = (field: string): string => {
      const column = expression.indexOf(`.${field}`) + 1;
      return `ERROR: <input>:1:${column}: undefined field '${field}'\n | ${expression}\n | ${".".repeat(column - 1)}^`;
    };
    const warnings = (status["typeChecking"] as { expressionWarnings: { fieldRef: string; warning: string }[] }).expressionWarnings;
    assert.deepEqual(warnings, [{ fieldRef: "spec.validations[0].expression", warning: `apps/v1, Kind=Deployment: ${issue("spek")}\n${issue("dataa")}` }]);
  });

  it("type checking of whole expressions: a type error is a warning on the stored policy, with kube's fieldRef", async () => {
    const expressions = ['object.spec.replicas == "3"', "size(object.spec.replicas) > 0"];
    // Admitted (201) although the expressions do not type-check: kube only warns.
    await create(
      server,
      `${GROUP}/validatingadmissionpolicies`,
      policy("typed", {
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        matchConstraints: { resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] }] },
        validations: [
          { expression: expressions[0], messageExpression: "object.spec.replicas" },
          { expression: expressions[1] },
          { expression: "object.spec.replicas <= int(params.data.max) && object.metadata.name.startsWith('web')" },
        ],
      }),
    );
    let status: Record<string, unknown> = {};
    for (let attempt = 0; attempt < 100 && status["typeChecking"] === undefined; attempt++) {
      await sleep(10);
      status = ((await server.call("GET", `${GROUP}/validatingadmissionpolicies/typed`)).json["status"] ?? {}) as Record<string, unknown>;
    }
    const issue = (expression: string, column: number, message: string): string =>
      `apps/v1, Kind=Deployment: ERROR: <input>:1:${column}: ${message}\n | ${expression}\n | ${".".repeat(column - 1)}^`;
    const warnings = (status["typeChecking"] as { expressionWarnings: { fieldRef: string; warning: string }[] }).expressionWarnings;
    assert.deepEqual(warnings, [
      {
        fieldRef: "spec.validations[0].expression",
        warning: issue(expressions[0] ?? "", 22, "found no matching overload for '_==_' applied to '(int, string)'"),
      },
      {
        fieldRef: "spec.validations[0].messageExpression",
        warning: issue("object.spec.replicas", 1, "must evaluate to string, but the expression's type is int"),
      },
      { fieldRef: "spec.validations[1].expression", warning: issue(expressions[1] ?? "", 5, "found no matching overload for 'size' applied to '(int)'") },
    ]);
  });

  it("type checking against a custom resource's schema (integer, map of strings, int-or-string as dyn)", async () => {
    const created = await server.call("POST", "/apis/apiextensions.orch.io/v1/customresourcedefinitions", {
      body: crdFixture({ group: "typed.example.com", plural: "gadgets", kind: "Gadget", apiextensionsGroup: "apiextensions.orch.io" }),
    });
    assert.equal(created.status, 201, created.text);
    let served = await server.call("GET", "/apis/typed.example.com/v1/namespaces/default/gadgets");
    for (let attempt = 0; attempt < 100 && served.status !== 200; attempt++) {
      await sleep(10);
      served = await server.call("GET", "/apis/typed.example.com/v1/namespaces/default/gadgets");
    }
    const expressions = ['object.spec.replicas == "3"', "object.spec.port == 80 || object.spec.port == 'http'", "object.spec.labels['a'] + 1 == 2"];
    await create(
      server,
      `${GROUP}/validatingadmissionpolicies`,
      policy("typed-gadgets", {
        matchConstraints: { resourceRules: [{ apiGroups: ["typed.example.com"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["gadgets"] }] },
        validations: expressions.map((expression) => ({ expression })),
      }),
    );
    let status: Record<string, unknown> = {};
    for (let attempt = 0; attempt < 100 && status["typeChecking"] === undefined; attempt++) {
      await sleep(10);
      status = ((await server.call("GET", `${GROUP}/validatingadmissionpolicies/typed-gadgets`)).json["status"] ?? {}) as Record<string, unknown>;
    }
    const issue = (expression: string, column: number, message: string): string =>
      `typed.example.com/v1, Kind=Gadget: ERROR: <input>:1:${column}: ${message}\n | ${expression}\n | ${".".repeat(column - 1)}^`;
    const warnings = (status["typeChecking"] as { expressionWarnings: { fieldRef: string; warning: string }[] }).expressionWarnings;
    assert.deepEqual(warnings, [
      {
        fieldRef: "spec.validations[0].expression",
        warning: issue(expressions[0] ?? "", 22, "found no matching overload for '_==_' applied to '(int, string)'"),
      },
      {
        fieldRef: "spec.validations[2].expression",
        warning: issue(expressions[2] ?? "", 25, "found no matching overload for '_+_' applied to '(string, int)'"),
      },
    ]);
  });

  it("serves both kinds with kube's table columns", async () => {
    const table = await server.call("GET", `${GROUP}/validatingadmissionpolicies`, { headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" } });
    assert.equal(table.status, 200, table.text);
    const columns = (table.json["columnDefinitions"] as { name: string }[]).map((column) => column.name);
    assert.deepEqual(columns, ["Name", "Validations", "ParamKind", "Age"]);
    const bindings = await server.call("GET", `${GROUP}/validatingadmissionpolicybindings`, {
      headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
    });
    assert.deepEqual(
      (bindings.json["columnDefinitions"] as { name: string }[]).map((column) => column.name),
      ["Name", "PolicyName", "ParamRef", "Age"],
    );
  });
});
