import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ApiObject } from "../../api/object.js";
import { endpointPod, podEndpoints } from "./service-pods.js";

function service(spec: Record<string, unknown>): ApiObject {
  return { apiVersion: "v1", kind: "Service", metadata: { name: "web", namespace: "ns" }, spec: { selector: { app: "web" }, ...spec } };
}

const READY = { type: "Ready", status: "True" };
const NOT_READY = { type: "Ready", status: "False" };

/** Pods of every kind the endpoint controllers tell apart, as admission and defaults leave them (volumes, tolerations, managedFields…). */
function pods(): ApiObject[] {
  const base = (name: string, extra: { spec?: Record<string, unknown>; status?: Record<string, unknown>; metadata?: Record<string, unknown> }): ApiObject => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: "ns",
      uid: `uid-${name}`,
      labels: { app: "web" },
      managedFields: [{ manager: "kubectl", operation: "Update", fieldsV1: {} }],
      ...extra.metadata,
    },
    spec: {
      containers: [{ name: "c", image: "img", volumeMounts: [{ name: "token", mountPath: "/var/run" }] }],
      volumes: [{ name: "token", projected: { sources: [] } }],
      tolerations: [{ key: "node/not-ready", operator: "Exists" }],
      ...extra.spec,
    },
    status: { phase: "Running", podIP: "10.1.0.1", conditions: [{ type: "PodScheduled", status: "True" }, READY], ...extra.status },
  });
  const named = [
    {
      name: "c",
      image: "img",
      ports: [
        { name: "http", containerPort: 8080 },
        { name: "dns", containerPort: 53, protocol: "UDP" },
      ],
    },
  ];
  return [
    base("plain", {}),
    base("named-ports", { spec: { containers: [{ name: "side", image: "img" }, ...named], nodeName: "node-1" }, status: { podIP: "10.1.0.2" } }),
    base("not-ready", { status: { podIP: "10.1.0.3", conditions: [NOT_READY] } }),
    base("terminating", { metadata: { deletionTimestamp: "2026-11-28T00:00:00Z" }, status: { podIP: "10.1.0.4" } }),
    base("done", { status: { phase: "Succeeded", podIP: "10.1.0.5" } }),
    base("no-ip", { status: { podIP: undefined } }),
    base("v6", { status: { podIP: "fd00::5" } }),
    base("other-app", { metadata: { labels: { app: "db" } }, status: { podIP: "10.1.0.6" } }),
    base("other-namespace", { metadata: { namespace: "elsewhere" }, status: { podIP: "10.1.0.7" } }),
  ];
}

describe("the endpoint controllers' view of pods (endpointPod)", () => {
  const services = [
    service({ ports: [{ port: 80, targetPort: 8080 }] }),
    service({
      ports: [
        { name: "web", port: 80, targetPort: "http" },
        { name: "dns", port: 53, targetPort: "dns", protocol: "UDP" },
      ],
    }),
    service({ ports: [{ port: 80, targetPort: "http" }], publishNotReadyAddresses: true }),
  ];

  it("gives the same endpoints and slices' inputs as the whole pods, for Endpoints and slices", () => {
    for (const target of services) {
      for (const includeTerminating of [false, true]) {
        const whole = podEndpoints(target, pods(), { includeTerminating });
        assert.ok(whole.length > 0);
        assert.deepEqual(podEndpoints(target, pods().map(endpointPod), { includeTerminating }), whole);
      }
    }
  });

  it("keeps none of what the controllers never read (volumes, tolerations, managedFields, other conditions)", () => {
    const narrowed = endpointPod(pods()[1] as ApiObject);
    assert.deepEqual(narrowed, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "named-ports", namespace: "ns", uid: "uid-named-ports", labels: { app: "web" } },
      spec: {
        nodeName: "node-1",
        containers: [
          { ports: undefined },
          {
            ports: [
              { name: "http", containerPort: 8080 },
              { name: "dns", containerPort: 53, protocol: "UDP" },
            ],
          },
        ],
      },
      status: { podIP: "10.1.0.2", phase: "Running", conditions: [READY] },
    });
    assert.deepEqual(endpointPod(pods()[0] as ApiObject)["spec"], {}, "no container ports: no containers kept");
  });
});
