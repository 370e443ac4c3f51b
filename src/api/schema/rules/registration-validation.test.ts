import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../../profile.js";
import { inProcessServer } from "../../../testing/in-process.js";
import { parseGoUrl } from "./admission.js";

type Json = Record<string, unknown>;

const ADMISSION = "/apis/admissionregistration.k8s.io/v1";
/** Matches nothing this suite writes (a stored webhook would intercept the later tests). */
const GOOD_RULE = { operations: ["CREATE"], apiGroups: ["example.com"], apiVersions: ["v1"], resources: ["widgets"] };

function webhookConfiguration(name: string, webhooks: Json[]): Json {
  return { apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingWebhookConfiguration", metadata: { name }, webhooks };
}

function webhook(fields: Json): Json {
  return { name: "a.example.com", clientConfig: { url: "https://example.com/x" }, sideEffects: "None", admissionReviewVersions: ["v1"], ...fields };
}

function hpa(name: string, spec: Json): Json {
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name },
    spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, maxReplicas: 5, ...spec },
  };
}

function priorityLevel(name: string, spec: Json): Json {
  return { apiVersion: "flowcontrol.apiserver.k8s.io/v1", kind: "PriorityLevelConfiguration", metadata: { name }, spec };
}

/** Sweep 8 (parity10b): kube 1.30's texts for registration, policy, autoscaling, networking, flow-control and storage kinds. */
describe("registration, policy, autoscaling, networking, flow-control and storage validation (kube 1.30's texts)", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  async function refused(path: string, body: Json, method = "POST"): Promise<string> {
    const answer = await server.call(method, path, { body });
    assert.equal(answer.status, 422, answer.text);
    assert.equal(answer.json["reason"], "Invalid");
    return String(answer.json["message"]);
  }

  async function accepted(path: string, body: Json, method = "POST"): Promise<Json> {
    const answer = await server.call(method, path, { body });
    assert.ok(answer.status === 201 || answer.status === 200, answer.text);
    return answer.json;
  }

  function includesAll(message: string, parts: readonly string[]): void {
    for (const part of parts) assert.ok(message.includes(part), `missing ${JSON.stringify(part)} in ${message}`);
  }

  it("parses webhook URLs as Go's url.Parse splits them", () => {
    assert.deepEqual(parseGoUrl("http://u:p@h.example/x?a=b#f"), { scheme: "http", host: "h.example", user: "u:p", fragment: "f", query: "a=b" });
    assert.deepEqual(parseGoUrl("wrong url pattern"), { scheme: "", host: "", user: undefined, fragment: "", query: "" });
    assert.equal(parseGoUrl("://example.com"), 'parse "://example.com": missing protocol scheme');
  });

  it("webhook configurations: URL parts, service paths, rules' wildcard forms, required sideEffects and review versions", async () => {
    const message = await refused(
      `${ADMISSION}/validatingwebhookconfigurations`,
      webhookConfiguration("w1", [
        webhook({
          clientConfig: { url: "http://user:pw@example.com/x?a=b#frag" },
          rules: [{ operations: ["*", "CREATE"], apiGroups: ["*", "apps"], apiVersions: [], resources: ["*/*", "pods"] }],
          admissionReviewVersions: ["v1", "v1"],
        }),
        {
          name: "b.example.com",
          clientConfig: { service: { name: "s", namespace: "ns", port: 443, path: "a//b" } },
          rules: [{ ...GOOD_RULE, resources: ["pods/*", "pods/status", "*"] }],
        },
        webhook({
          name: "c.example.com",
          clientConfig: { url: "wrong url pattern" },
          admissionReviewVersions: [],
          rules: [{ ...GOOD_RULE, resources: ["*", "pods"] }],
          matchConditions: [{ name: "bad name!", expression: "true" }],
        }),
      ]),
    );
    includesAll(message, [
      `webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      `webhooks[0].clientConfig.url: Invalid value: "user:pw": user information is not permitted in the URL`,
      `webhooks[0].clientConfig.url: Invalid value: "frag": fragments are not permitted in the URL`,
      `webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL`,
      `webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"*", "CREATE"}: if '*' is present, must not specify other operations`,
      `webhooks[0].rules[0].apiGroups: Invalid value: []string{"*", "apps"}: if '*' is present, must not specify other API groups`,
      "webhooks[0].rules[0].apiVersions: Required value",
      `webhooks[0].rules[0].resources: Invalid value: []string{"*/*", "pods"}: if '*/*' is present, must not specify other resources`,
      `webhooks[0].admissionReviewVersions[1]: Invalid value: "v1": duplicate version`,
      "webhooks[1].sideEffects: Required value: must specify one of None, NoneOnDryRun",
      "webhooks[1].admissionReviewVersions: Required value: must specify one of v1, v1beta1",
      `webhooks[1].clientConfig.service.path: Invalid value: "a//b": must start with a '/'`,
      `webhooks[1].clientConfig.service.path: Invalid value: "a//b": segment[0] may not be empty`,
      `webhooks[1].rules[0].resources[1]: Invalid value: "pods/status": if 'pods/*' is present, must not specify pods/status`,
      `webhooks[2].rules[0].resources: Invalid value: []string{"*", "pods"}: if '*' is present, must not specify other resources without subresources`,
      `webhooks[2].clientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]`,
      "webhooks[2].admissionReviewVersions: Required value: must specify one of v1, v1beta1",
      `webhooks[2].matchConditions[0].name: Invalid value: "bad name!": name part must consist of alphanumeric characters`,
    ]);
    assert.ok(!message.includes('webhooks[0].clientConfig.url: Invalid value: "http://'), message);
    const many = Array.from({ length: 65 }, (_, index) => ({ name: `c${index}`, expression: "true" }));
    includesAll(await refused(`${ADMISSION}/validatingwebhookconfigurations`, webhookConfiguration("w2", [webhook({ matchConditions: many })])), [
      "webhooks[0].matchConditions: Too many: 65: must have at most 64 items",
    ]);
    await accepted(
      `${ADMISSION}/validatingwebhookconfigurations`,
      webhookConfiguration("w3", [webhook({ failurePolicy: "Ignore", rules: [{ ...GOOD_RULE, resources: ["*", "widgets/status"] }] })]),
    );
  });

  it("ValidatingAdmissionPolicy and binding: matchConstraints, paramKind, reasons, paramRef, repeated actions", async () => {
    const policy = await refused(`${ADMISSION}/validatingadmissionpolicies`, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "p1" },
      spec: { paramKind: { apiVersion: "a/b/c", kind: "Bad_Kind" } },
    });
    includesAll(policy, [
      "spec.matchConstraints: Required value",
      `spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`,
      `spec.paramKind.kind: Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: a DNS-1035 label`,
      "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
      "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item",
    ]);
    const rules = await refused(`${ADMISSION}/validatingadmissionpolicies`, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "p2" },
      spec: {
        matchConstraints: {
          resourceRules: [{ operations: [], apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments"], resourceNames: ["a", "a"] }],
        },
        validations: [{ expression: "true", reason: "Unauthorized" }],
        variables: [{ name: "namespace", expression: "1" }],
        auditAnnotations: [{ key: "bad key", valueExpression: "'x'" }],
      },
    });
    includesAll(rules, [
      "spec.matchConstraints.resourceRules[0].operations: Required value",
      `spec.matchConstraints.resourceRules[0].resourceNames[1]: Duplicate value: "a"`,
      `spec.validations[0].reason: Unsupported value: "Unauthorized": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"`,
      `spec.variables[0].name: Invalid value: "namespace": name is not a valid CEL identifier`,
      `spec.auditAnnotations[0].key: Invalid value: "p2/bad key": name part must consist of alphanumeric characters`,
    ]);
    const binding = await refused(`${ADMISSION}/validatingadmissionpolicybindings`, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: "b1" },
      spec: { policyName: "Bad_Name", validationActions: ["Deny", "Warn", "Deny"], paramRef: { name: "x", selector: {} } },
    });
    includesAll(binding, [
      `spec.policyName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain`,
      "spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
      "spec.paramRef.parameterNotFoundAction: Required value",
      `spec.validationActions[2]: Duplicate value: "Deny"`,
      `spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Deny"}: must not contain both Deny and Warn`,
    ]);
  });

  it("HorizontalPodAutoscaler: metric targets per source, scale target, behavior policies", async () => {
    const path = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
    const message = await refused(
      path,
      hpa("h1", {
        metrics: [
          { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 0 } } },
          { type: "Resource", resource: { name: "memory", target: { type: "Value" } } },
          { type: "Pods", pods: { metric: { name: "m" }, target: { type: "Utilization", averageUtilization: 50 } } },
          { type: "Object", object: { metric: { name: "m" }, describedObject: { kind: "Service", name: "s" }, target: { type: "AverageValue" } } },
          { type: "External", external: { metric: { name: "e" }, target: { type: "Bogus", value: "1", averageValue: "-1" } } },
        ],
        behavior: {
          scaleUp: { stabilizationWindowSeconds: 4000, selectPolicy: "Bogus", policies: [{ type: "Foo", value: 0, periodSeconds: 2000 }] },
          scaleDown: { policies: [] },
        },
      }),
    );
    includesAll(message, [
      "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
      "spec.metrics[1].resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization",
      "spec.metrics[2].pods.target.averageValue: Required value: must specify a positive target averageValue",
      "spec.metrics[3].object.target.averageValue: Required value: must set either a target value or averageValue",
      `spec.metrics[4].external.target.type: Invalid value: "Bogus": must be either Utilization, Value, or AverageValue`,
      `spec.metrics[4].external.target.averageValue: Invalid value: "-1": must be positive`,
      "spec.metrics[4].external.target.value: Forbidden: may not set both a target value for metric and a per-pod target",
      "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600",
      `spec.behavior.scaleUp.selectPolicy: Unsupported value: "Bogus": supported values: "Disabled", "Max", "Min"`,
      `spec.behavior.scaleUp.policies[0].type: Unsupported value: "Foo": supported values: "Percent", "Pods"`,
      "spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero",
      "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 2000: must be less than or equal to 1800",
      "spec.behavior.scaleDown.policies: Required value: must specify at least one Policy",
    ]);
    includesAll(await refused(path, hpa("h2", { scaleTargetRef: { kind: "Deployment", name: "a/b" } })), [
      `spec.scaleTargetRef.name: Invalid value: "a/b": may not contain '/'`,
    ]);
    await accepted(path, hpa("h3", { behavior: { scaleUp: { stabilizationWindowSeconds: 10 } } }));
  });

  it("HorizontalPodAutoscaler v2: a behavior setting only a window gets both directions' default rules, as kube's defaulting", async () => {
    const hpa = await accepted("/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "window-only" },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "x" },
        maxReplicas: 3,
        behavior: { scaleDown: { stabilizationWindowSeconds: 300 } },
      },
    });
    assert.deepEqual((hpa["spec"] as Json)["behavior"], {
      scaleDown: { stabilizationWindowSeconds: 300, selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] },
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: "Max",
        policies: [
          { type: "Pods", value: 4, periodSeconds: 15 },
          { type: "Percent", value: 100, periodSeconds: 15 },
        ],
      },
    });
  });

  it("PodDisruptionBudget: negative numbers, bad and over-100% percentages; selector changes allowed", async () => {
    const path = "/apis/policy/v1/namespaces/default/poddisruptionbudgets";
    const pdb = (name: string, spec: Json): Json => ({ apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: { name }, spec });
    includesAll(await refused(path, pdb("p1", { minAvailable: "120%" })), [`spec.minAvailable: Invalid value: "120%": must not be greater than 100%`]);
    includesAll(await refused(path, pdb("p2", { maxUnavailable: -1 })), ["spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0"]);
    includesAll(await refused(path, pdb("p3", { maxUnavailable: "abc" })), [`spec.maxUnavailable: Invalid value: "abc": a valid percent string must be`]);
    await accepted(path, pdb("p4", { minAvailable: 1, selector: { matchLabels: { a: "b" } } }));
    await accepted(`${path}/p4`, pdb("p4", { minAvailable: 1, selector: { matchLabels: { a: "c" } } }), "PUT");
  });

  it("Ingress backend ports at the backend; IngressClass controller and parameters", async () => {
    const message = await refused("/apis/networking.k8s.io/v1/namespaces/default/ingresses", {
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: { name: "i1" },
      spec: {
        rules: [
          {
            http: {
              paths: [
                { path: "/a", pathType: "Prefix", backend: { service: { name: "s", port: { name: "http", number: 80 } } } },
                { path: "/b", pathType: "Prefix", backend: { service: { name: "s", port: {} } } },
              ],
            },
          },
        ],
      },
    });
    includesAll(message, [
      `spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both port name & port number`,
      "spec.rules[0].http.paths[1].backend: Required value: port name or number is required",
    ]);
    const more = await refused("/apis/networking.k8s.io/v1/namespaces/default/ingresses", {
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: { name: "i2" },
      spec: {
        defaultBackend: { resource: { kind: "", name: "x/y", apiGroup: "Bad_Group" } },
        tls: [{ hosts: ["a_b", "*.*.c.com"], secretName: "Bad_Secret" }],
        rules: [{ host: "foo.*.com", http: { paths: [{ path: "/a", pathType: "Exact", backend: { service: { name: "s", port: { name: "Http_Port" } } } }] } }],
      },
    });
    includesAll(more, [
      "spec.defaultBackend.resource.kind: Required value: kind is required",
      `spec.defaultBackend.resource.name: Invalid value: "x/y": may not contain '/'`,
      `spec.defaultBackend.resource.apiGroup: Invalid value: "Bad_Group": a lowercase RFC 1123 subdomain`,
      `spec.tls[0].hosts[0]: Invalid value: "a_b": a lowercase RFC 1123 subdomain`,
      `spec.tls[0].hosts[1]: Invalid value: "*.*.c.com": a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of`,
      `spec.tls[0].secretName: Invalid value: "Bad_Secret": a lowercase RFC 1123 subdomain`,
      `spec.rules[0].host: Invalid value: "foo.*.com": a wildcard DNS-1123 subdomain`,
      `spec.rules[0].http.paths[0].backend.service.port.name: Invalid value: "Http_Port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
    ]);
    const classes = "/apis/networking.k8s.io/v1/ingressclasses";
    const ingressClass = (name: string, spec: Json): Json => ({ apiVersion: "networking.k8s.io/v1", kind: "IngressClass", metadata: { name }, spec });
    includesAll(await refused(classes, ingressClass("c1", { controller: "Bad Controller", parameters: { kind: "K", name: "n", scope: "Namespace" } })), [
      `spec.controller: Invalid value: "Bad Controller": must be a domain-prefixed path (such as "acme.io/foo")`,
      "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'",
    ]);
    includesAll(await refused(classes, ingressClass("c2", { parameters: { kind: "K", name: "n", scope: "Cluster", namespace: "x" } })), [
      "spec.controller: Required value",
      "spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'",
    ]);
  });

  it("flow control: FlowSchema precedence, subjects and rules; PriorityLevelConfiguration types and numbers", async () => {
    const group = "/apis/flowcontrol.apiserver.k8s.io/v1";
    const schema = await refused(`${group}/flowschemas`, {
      apiVersion: "flowcontrol.apiserver.k8s.io/v1",
      kind: "FlowSchema",
      metadata: { name: "f1" },
      spec: {
        matchingPrecedence: 20000,
        priorityLevelConfiguration: { name: "global-default" },
        rules: [{ subjects: [{ kind: "User" }], resourceRules: [{ verbs: ["*", "get"], apiGroups: [], resources: ["pods"] }] }],
      },
    });
    includesAll(schema, [
      "spec.matchingPrecedence: Invalid value: 20000: must not be greater than 10000",
      "spec.rules[0].subjects[0].user: Required value: user is required when subject kind is 'User'",
      `spec.rules[0].resourceRules[0].verbs: Invalid value: []string{"*", "get"}: if '*' is present, must not specify other verbs`,
      "spec.rules[0].resourceRules[0].apiGroups: Required value: resource rules must supply at least one api group",
      "spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace",
    ]);
    const level = await refused(
      `${group}/prioritylevelconfigurations`,
      priorityLevel("l1", {
        type: "Limited",
        limited: {
          nominalConcurrencyShares: -1,
          lendablePercent: 101,
          borrowingLimitPercent: -1,
          limitResponse: { type: "Queue", queuing: { queues: 0, handSize: 100 } },
        },
      }),
    );
    includesAll(level, [
      "spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer",
      "spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive",
      "spec.limited.borrowingLimitPercent: Invalid value: -1: if specified, must be a non-negative integer",
      // queues 0 is unset: defaulted to 64 before the hand is judged
      "spec.limited.limitResponse.queuing.handSize: Invalid value: 100: should not be greater than queues (64)",
    ]);
    includesAll(await refused(`${group}/prioritylevelconfigurations`, priorityLevel("l2", { type: "Exempt", limited: { nominalConcurrencyShares: 5 } })), [
      `spec.type: Invalid value: "Exempt": type must be 'Exempt' if and only if name is 'exempt'`,
      "spec.limited: Forbidden: must be nil if the type is not Limited",
    ]);
    includesAll(await refused(`${group}/prioritylevelconfigurations`, priorityLevel("l3", { type: "Limited" })), [
      "spec.limited: Required value: must not be empty when type is Limited",
    ]);
    // kube holds the mandatory objects to their specs (the exempt level may change its spec.exempt only).
    const catchAll = await server.call("GET", `${group}/prioritylevelconfigurations/catch-all`);
    const catchAllSpec = catchAll.json["spec"] as Json;
    includesAll(
      await refused(
        `${group}/prioritylevelconfigurations/catch-all`,
        { ...catchAll.json, spec: { ...catchAllSpec, limited: { ...(catchAllSpec["limited"] as Json), nominalConcurrencyShares: 7 } } },
        "PUT",
      ),
      [`spec: Invalid value: {"type":"Limited"`, "spec of 'catch-all' must equal the fixed value"],
    );
    const exempt = await server.call("GET", `${group}/prioritylevelconfigurations/exempt`);
    await accepted(
      `${group}/prioritylevelconfigurations/exempt`,
      { ...exempt.json, spec: { type: "Exempt", exempt: { nominalConcurrencyShares: 3, lendablePercent: 10 } } },
      "PUT",
    );
    const schemaCatchAll = await server.call("GET", `${group}/flowschemas/catch-all`);
    includesAll(
      await refused(
        `${group}/flowschemas/catch-all`,
        { ...schemaCatchAll.json, spec: { ...(schemaCatchAll.json["spec"] as Json), matchingPrecedence: 9999 } },
        "PUT",
      ),
      ["spec of 'catch-all' must equal the fixed value"],
    );
    includesAll(
      await refused(`${group}/flowschemas`, {
        apiVersion: "flowcontrol.apiserver.k8s.io/v1",
        kind: "FlowSchema",
        metadata: { name: "f2" },
        spec: {
          priorityLevelConfiguration: { name: "global-default" },
          rules: [{ subjects: [{ kind: "Group", group: { name: "g" } }], nonResourceRules: [{ verbs: ["fly"], nonResourceURLs: ["healthz", "/a*"] }] }],
        },
      }),
      [
        `spec.rules[0].nonResourceRules[0].verbs: Unsupported value: []string{"fly"}: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"`,
        `spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "healthz": must start with slash`,
        `spec.rules[0].nonResourceRules[0].nonResourceURLs[1]: Invalid value: "/a*": wildcard can only do suffix matching`,
      ],
    );
    const created = await accepted(
      `${group}/prioritylevelconfigurations`,
      priorityLevel("l4", { type: "Limited", limited: { limitResponse: { type: "Queue", queuing: { queues: 0, handSize: 0, queueLengthLimit: 0 } } } }),
    );
    assert.deepEqual((((created["spec"] as Json)["limited"] as Json)["limitResponse"] as Json)["queuing"], { queues: 64, handSize: 8, queueLengthLimit: 50 });
  });

  it("label selectors wherever they occur: keys, values, operators (webhook object selectors, budgets)", async () => {
    const message = await refused(
      `${ADMISSION}/validatingwebhookconfigurations`,
      webhookConfiguration("w4", [
        webhook({
          namespaceSelector: { matchExpressions: [{ key: "a", operator: "Bogus" }] },
          objectSelector: {
            matchLabels: { "a b": "c" },
            matchExpressions: [
              { key: "k", operator: "In", values: [] },
              { key: "k", operator: "Exists", values: ["v"] },
            ],
          },
        }),
      ]),
    );
    includesAll(message, [
      `webhooks[0].namespaceSelector.matchExpressions[0].operator: Invalid value: "Bogus": not a valid selector operator`,
      `webhooks[0].objectSelector.matchLabels: Invalid value: "a b": name part must consist of alphanumeric characters`,
      "webhooks[0].objectSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "webhooks[0].objectSelector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ]);
    const budget = await refused("/apis/policy/v1/namespaces/default/poddisruptionbudgets", {
      apiVersion: "policy/v1",
      kind: "PodDisruptionBudget",
      metadata: { name: "p9" },
      spec: { minAvailable: 1, selector: { matchLabels: { a: "b c" } } },
    });
    includesAll(budget, [`spec.selector.matchLabels: Invalid value: "b c": a valid label must be an empty string or consist of alphanumeric characters`]);
  });

  it("storage: a CSIDriver token request with an empty audience (the API server's audiences), as kubernetes-csi's docs publish it", async () => {
    const driver = await accepted("/apis/storage.k8s.io/v1/csidrivers", {
      apiVersion: "storage.k8s.io/v1",
      kind: "CSIDriver",
      metadata: { name: "audiences.csi.example.com" },
      spec: { tokenRequests: [{ audience: "gcp" }, { audience: "", expirationSeconds: 3600 }], requiresRepublish: true },
    });
    assert.deepEqual((driver["spec"] as Json)["tokenRequests"], [{ audience: "gcp" }, { audience: "", expirationSeconds: 3600 }]);
  });

  it("storage: CSIDriver token audiences, VolumeAttachment source, PV/PVC spec rules again on update", async () => {
    includesAll(
      await refused("/apis/storage.k8s.io/v1/csidrivers", {
        apiVersion: "storage.k8s.io/v1",
        kind: "CSIDriver",
        metadata: { name: "csi.example.com" },
        spec: { tokenRequests: [{ audience: "a", expirationSeconds: 60 }, { audience: "a" }] },
      }),
      [
        "spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes",
        `spec.tokenRequests[1].audience: Duplicate value: "a"`,
      ],
    );
    includesAll(
      await refused("/apis/storage.k8s.io/v1/volumeattachments", {
        apiVersion: "storage.k8s.io/v1",
        kind: "VolumeAttachment",
        metadata: { name: "va1" },
        spec: { attacher: "csi.example.com", nodeName: "n1", source: {} },
      }),
      ["spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName"],
    );
    includesAll(
      await refused("/apis/storage.k8s.io/v1/storageclasses", {
        apiVersion: "storage.k8s.io/v1",
        kind: "StorageClass",
        metadata: { name: "sc1" },
        provisioner: "Bad Provisioner!",
        parameters: { "": "x" },
        reclaimPolicy: "Recycle",
      }),
      [
        `provisioner: Invalid value: "bad provisioner!": name part must consist of alphanumeric characters`,
        `parameters: Invalid value: "": field can not be empty.`,
        `reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"`,
      ],
    );
    includesAll(
      await refused("/apis/storage.k8s.io/v1/volumeattachments", {
        apiVersion: "storage.k8s.io/v1",
        kind: "VolumeAttachment",
        metadata: { name: "va2" },
        spec: { attacher: "Bad Attacher", nodeName: "Bad_Node", source: { persistentVolumeName: "Bad_PV" } },
      }),
      [
        `spec.attacher: Invalid value: "Bad Attacher": a lowercase RFC 1123 subdomain`,
        `spec.nodeName: Invalid value: "Bad_Node": a lowercase RFC 1123 subdomain`,
        `spec.source.persistentVolumeName: Invalid value: "Bad_PV": a lowercase RFC 1123 subdomain`,
      ],
    );
    const claims = "/api/v1/namespaces/default/persistentvolumeclaims";
    const claim = {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "c1" },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    };
    const stored = await accepted(claims, claim);
    const spec = { ...(stored["spec"] as Json), accessModes: [] };
    includesAll(await refused(`${claims}/c1`, { ...stored, spec }, "PUT"), ["spec.accessModes: Required value: at least 1 access mode is required"]);
  });
});
