import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../../profile.js";
import { inProcessServer } from "../../../testing/in-process.js";

const QUOTAS = "/api/v1/namespaces/default/resourcequotas";
const LIMITS = "/api/v1/namespaces/default/limitranges";

describe("ResourceQuota scopes and LimitRange bounds, as kube's ValidateResourceQuota and ValidateLimitRange", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  const quota = (name: string, hard: Record<string, string>, scopes: string[]): Record<string, unknown> => ({
    apiVersion: "v1",
    kind: "ResourceQuota",
    metadata: { name },
    spec: { hard, scopes },
  });

  it("refuses an unknown scope, a scope that does not cover a limited resource, and conflicting scopes", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        quota("q1", { pods: "1" }, ["Bogus"]),
        'ResourceQuota "q1" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"Bogus"}: unsupported scope',
      ],
      [
        quota("q2", { cpu: "1", "count/deployments.apps": "1" }, ["BestEffort"]),
        'ResourceQuota "q2" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource',
      ],
      [
        quota("q3", { services: "1" }, ["NotTerminating"]),
        'ResourceQuota "q3" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"NotTerminating"}: unsupported scope applied to resource',
      ],
      [
        quota("q4", { pods: "1" }, ["Terminating", "NotTerminating"]),
        'ResourceQuota "q4" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating", "NotTerminating"}: conflicting scopes',
      ],
    ];
    for (const [body, message] of cases) {
      const response = await server.call("POST", QUOTAS, { body });
      assert.equal(response.status, 422, response.text);
      assert.equal(response.json["message"], message);
    }
  });

  it("accepts scopes that cover every standard resource limited (object counts are not judged)", async () => {
    for (const body of [
      quota("ok1", { pods: "2", "requests.cpu": "1", "count/configmaps": "3" }, ["NotBestEffort", "NotTerminating"]),
      quota("ok2", { pods: "1" }, ["BestEffort"]),
      quota("ok3", { "limits.memory": "1Gi" }, ["PriorityClass"]),
    ]) {
      const response = await server.call("POST", QUOTAS, { body });
      assert.equal(response.status, 201, response.text);
    }
  });

  const limitRange = (name: string, limits: Record<string, unknown>[]): Record<string, unknown> => ({
    apiVersion: "v1",
    kind: "LimitRange",
    metadata: { name },
    spec: { limits },
  });

  it("refuses inverted bounds, unknown and duplicate types, Pod defaults, a bound-less PVC item and impossible ratios", async () => {
    const response = await server.call("POST", LIMITS, {
      body: limitRange("bad", [
        {
          type: "Container",
          max: { cpu: "1" },
          min: { cpu: "2" },
          default: { cpu: "3" },
          defaultRequest: { memory: "2Gi" },
          maxLimitRequestRatio: { memory: "500m" },
        },
        { type: "Bogus", max: { cpu: "1" } },
        { type: "Pod", max: { cpu: "1" }, default: { cpu: "1" } },
        { type: "Pod", max: { cpu: "2" } },
        { type: "PersistentVolumeClaim", max: { cpu: "1" } },
        { type: "example.com/gpu", min: { cpu: "100m" }, max: { cpu: "1" }, maxLimitRequestRatio: { cpu: "20" } },
      ]),
    });
    assert.equal(response.status, 422, response.text);
    const causes = ((response.json["details"] as { causes: { field: string; message: string }[] }).causes ?? []).map(
      (cause) => `${cause.field}: ${cause.message}`,
    );
    assert.deepEqual(causes, [
      'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1',
      // Validation sees the defaulted item (kube's order): defaultRequest[cpu] took default's 3.
      'spec.limits[0].defaultRequest[cpu]: Invalid value: "3": default request value 3 is greater than max value 1',
      'spec.limits[0].default[cpu]: Invalid value: "1": default value 3 is greater than max value 1',
      'spec.limits[0].maxLimitRequestRatio[memory]: Invalid value: "500m": ratio 500m is less than 1',
      'spec.limits[1].type: Invalid value: "Bogus": must be a standard limit type or fully qualified',
      "spec.limits[2].default: Forbidden: may not be specified when `type` is 'Pod'",
      'spec.limits[3].type: Duplicate value: "Pod"',
      "spec.limits[4].limits: Required value: either minimum or maximum storage value is required, but neither was provided",
      'spec.limits[5].maxLimitRequestRatio[cpu]: Invalid value: "20": ratio 20 is greater than max/min = 10.000000',
    ]);
  });

  it("accepts a consistent LimitRange of every type", async () => {
    const response = await server.call("POST", LIMITS, {
      body: limitRange("ok", [
        {
          type: "Container",
          max: { cpu: "1" },
          min: { cpu: "50m" },
          default: { cpu: "500m" },
          defaultRequest: { cpu: "100m" },
          maxLimitRequestRatio: { cpu: "10" },
        },
        { type: "Pod", max: { cpu: "2" } },
        { type: "PersistentVolumeClaim", max: { storage: "1Gi" }, min: { storage: "1000Mi" } },
      ]),
    });
    assert.equal(response.status, 201, response.text);
  });
});
