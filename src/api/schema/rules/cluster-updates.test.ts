import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../../profile.js";
import { inProcessServer } from "../../../testing/in-process.js";

const MERGE = { "content-type": "application/merge-patch+json" };

describe("update rules of cluster-wide kinds, as kube's ValidateXUpdate", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  const cases: [string, string, Record<string, unknown>, Record<string, unknown>, string, Record<string, unknown>][] = [
    [
      "PriorityClass",
      "/apis/scheduling.k8s.io/v1/priorityclasses",
      { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: "p" }, value: 100 },
      { value: 5 },
      'PriorityClass.scheduling.k8s.io "p" is invalid: value: Forbidden: may not be changed in an update.',
      { description: "d" },
    ],
    [
      "IngressClass",
      "/apis/networking.k8s.io/v1/ingressclasses",
      { apiVersion: "networking.k8s.io/v1", kind: "IngressClass", metadata: { name: "i" }, spec: { controller: "example.com/a" } },
      { spec: { controller: "example.com/b" } },
      'IngressClass.networking.k8s.io "i" is invalid: spec.controller: Invalid value: "example.com/b": field is immutable',
      { metadata: { labels: { a: "b" } } },
    ],
    [
      "RuntimeClass",
      "/apis/node.k8s.io/v1/runtimeclasses",
      { apiVersion: "node.k8s.io/v1", kind: "RuntimeClass", metadata: { name: "r" }, handler: "runc" },
      { handler: "kata" },
      'RuntimeClass.node.k8s.io "r" is invalid: handler: Invalid value: "kata": field is immutable',
      { overhead: { podFixed: { cpu: "10m" } } },
    ],
    [
      "EndpointSlice",
      "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices",
      { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", metadata: { name: "e" }, addressType: "IPv4", endpoints: [] },
      { addressType: "IPv6" },
      'EndpointSlice.discovery.k8s.io "e" is invalid: addressType: Invalid value: "IPv6": field is immutable',
      { endpoints: [{ addresses: ["10.0.0.1"] }] },
    ],
    [
      "CSIDriver",
      "/apis/storage.k8s.io/v1/csidrivers",
      { apiVersion: "storage.k8s.io/v1", kind: "CSIDriver", metadata: { name: "csi.example.com" }, spec: { attachRequired: true } },
      { spec: { attachRequired: false } },
      'CSIDriver.storage.k8s.io "csi.example.com" is invalid: spec.attachedRequired: Invalid value: false: field is immutable',
      { spec: { requiresRepublish: true } },
    ],
  ];

  it("PriorityClass: the system- prefix is reserved and user values stop at one billion, in kube's words", async () => {
    const path = "/apis/scheduling.k8s.io/v1/priorityclasses";
    const cases: [string, number, string][] = [
      [
        "system-foo",
        100,
        "PriorityClass.scheduling.k8s.io \"system-foo\" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-foo is not a known system priority class",
      ],
      [
        "system-node-critical",
        5,
        "PriorityClass.scheduling.k8s.io \"system-node-critical\" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000",
      ],
      [
        "huge",
        1000000001,
        'PriorityClass.scheduling.k8s.io "huge" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
      ],
    ];
    for (const [name, value, message] of cases) {
      const refused = await server.call("POST", path, { body: { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name }, value } });
      assert.equal(refused.status, 422, refused.text);
      assert.equal(refused.json["message"], message);
    }
    const top = await server.call("POST", path, {
      body: { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: "top" }, value: 1000000000 },
    });
    assert.equal(top.status, 201, top.text);
  });

  it("RuntimeClass handler a DNS label, Lease duration positive and transitions not negative, in kube's words", async () => {
    const runtime = await server.call("POST", "/apis/node.k8s.io/v1/runtimeclasses", {
      body: { apiVersion: "node.k8s.io/v1", kind: "RuntimeClass", metadata: { name: "rc" }, handler: "bad handler" },
    });
    assert.equal(runtime.status, 422, runtime.text);
    assert.equal(
      runtime.json["message"],
      `RuntimeClass.node.k8s.io "rc" is invalid: handler: Invalid value: "bad handler": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    );
    const leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
    const lease = await server.call("POST", leases, {
      body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "l" }, spec: { leaseDurationSeconds: 0, leaseTransitions: -1 } },
    });
    assert.equal(lease.status, 422, lease.text);
    assert.equal(
      lease.json["message"],
      'Lease.coordination.k8s.io "l" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]',
    );
    const ok = await server.call("POST", leases, {
      body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "ok" }, spec: { leaseDurationSeconds: 15 } },
    });
    assert.equal(ok.status, 201, ok.text);
  });

  for (const [kind, path, body, change, message, allowed] of cases) {
    it(`${kind}: a fixed field's change is refused in kube's words; other changes pass`, async () => {
      const created = await server.call("POST", path, { body });
      assert.equal(created.status, 201, created.text);
      const name = String((body["metadata"] as { name: string }).name);
      const refused = await server.call("PATCH", `${path}/${name}`, { body: change, headers: MERGE });
      assert.equal(refused.status, 422, refused.text);
      assert.equal(refused.json["message"], message);
      const passed = await server.call("PATCH", `${path}/${name}`, { body: allowed, headers: MERGE });
      assert.equal(passed.status, 200, passed.text);
    });
  }
});
