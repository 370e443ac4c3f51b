import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ApiObject } from "../../api/object.js";
import { ORCH_PROFILE } from "../../api/profile.js";
import { inProcessServer } from "../../testing/in-process.js";
import { desiredEndpoints } from "./endpoint-controller.js";
import { endpointNames } from "./service-pods.js";
import { truncateSubsets } from "./truncate.js";

const profile = ORCH_PROFILE;
const names = endpointNames(profile);
const SLICES = `/apis/${names.endpointSlices.group}/v1/namespaces/default/endpointslices`;

type Server = Awaited<ReturnType<typeof inProcessServer>>;

async function until<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

const service: ApiObject = {
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "web", namespace: "default", uid: "s1" },
  spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }] },
};

function pod(name: string, ip: string | undefined, ready: boolean): ApiObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", uid: `u-${name}`, labels: { app: "web" } },
    spec: { containers: [{ name: "c", image: "nginx", ports: [{ name: "http", containerPort: 8080 }] }] },
    status: { ...(ip === undefined ? {} : { podIP: ip }), conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
  };
}

describe("truncateSubsets()", () => {
  it("keeps everything at 1,000 addresses or fewer", () => {
    const subsets = [{ addresses: Array.from({ length: 600 }, (_, index) => index), notReadyAddresses: Array.from({ length: 400 }, (_, index) => index) }];
    assert.deepEqual(truncateSubsets(subsets), { subsets, truncated: false });
  });
  it("cuts to 1,000, ready addresses first, spread over subsets in proportion", () => {
    const subsets = [
      { addresses: Array.from({ length: 600 }, (_, index) => index), notReadyAddresses: Array.from({ length: 300 }, (_, index) => index) },
      { addresses: Array.from({ length: 200 }, (_, index) => index), notReadyAddresses: Array.from({ length: 100 }, (_, index) => index) },
    ];
    const { subsets: cut, truncated } = truncateSubsets(subsets);
    assert.equal(truncated, true);
    assert.deepEqual(
      cut.map((subset) => [subset.addresses.length, subset.notReadyAddresses.length]),
      [
        [600, 150],
        [200, 50],
      ],
    );
  });
});

describe("desiredEndpoints()", () => {
  it("lists ready pods in addresses and the rest in notReadyAddresses, resolving named target ports", () => {
    const endpoints = desiredEndpoints(service, [pod("a", "10.0.0.2", true), pod("b", "10.0.0.1", false), pod("c", undefined, true)], names);
    assert.deepEqual(endpoints["subsets"], [
      {
        addresses: [{ ip: "10.0.0.2", targetRef: { kind: "Pod", namespace: "default", name: "a", uid: "u-a" } }],
        notReadyAddresses: [{ ip: "10.0.0.1", targetRef: { kind: "Pod", namespace: "default", name: "b", uid: "u-b" } }],
        ports: [{ name: "http", port: 8080, protocol: "TCP" }],
      },
    ]);
    assert.equal(endpoints.metadata.labels?.[names.skipMirrorLabel], "true");
    assert.equal(endpoints.metadata.annotations, undefined);
  });
  it("truncates 1,200 pods to 1,000 addresses with the over-capacity annotation", () => {
    const pods = Array.from({ length: 1200 }, (_, index) => pod(`p${index}`, `10.1.${Math.floor(index / 250)}.${index % 250}`, index % 2 === 0));
    const endpoints = desiredEndpoints(service, pods, names);
    const subsets = endpoints["subsets"] as { addresses?: unknown[]; notReadyAddresses?: unknown[] }[];
    assert.equal(
      subsets.reduce((sum, subset) => sum + (subset.addresses?.length ?? 0) + (subset.notReadyAddresses?.length ?? 0), 0),
      1000,
    );
    assert.equal(subsets[0]?.addresses?.length, 600, "every ready pod is kept");
    assert.equal(endpoints.metadata.annotations?.[names.overCapacityAnnotation], "truncated");
  });
});

describe("endpoint, endpointslice and endpointslicemirroring controllers (in process)", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer({});
    assert.equal((await server.call("POST", "/api/v1/namespaces/default/services", { body: { ...service, metadata: { name: "web" } } })).status, 201);
  });
  after(async () => server.stop());

  const setStatus = async (name: string, ip: string, ready: boolean): Promise<void> => {
    const current = (await server.call("GET", `/api/v1/namespaces/default/pods/${name}`)).json;
    const status = { ...(current["status"] as object), podIP: ip, podIPs: [{ ip }], conditions: [{ type: "Ready", status: ready ? "True" : "False" }] };
    const response = await server.call("PUT", `/api/v1/namespaces/default/pods/${name}/status`, { body: { ...current, status } });
    assert.equal(response.status, 200, response.text);
  };
  const subsets = async (): Promise<string> => JSON.stringify((await server.call("GET", "/api/v1/namespaces/default/endpoints/web")).json["subsets"] ?? []);
  const webSlices = async (): Promise<Record<string, unknown>[]> =>
    ((await server.call("GET", `${SLICES}?labelSelector=${encodeURIComponent(`${names.serviceNameLabel}=web`)}`)).json["items"] ?? []) as Record<
      string,
      unknown
    >[];

  it("a Service no addressable pod backs: Endpoints without subsets and one placeholder slice (no endpoints, no ports), as kube's controllers", async () => {
    const endpoints = await until(async () => {
      const got = await server.call("GET", "/api/v1/namespaces/default/endpoints/web");
      return got.status === 200 ? got.json : undefined;
    }, "the Endpoints");
    assert.equal("subsets" in endpoints, false, JSON.stringify(endpoints));
    const [placeholder, ...others] = await until(async () => {
      const slices = await webSlices();
      return slices.length > 0 ? slices : undefined;
    }, "the placeholder slice");
    assert.equal(others.length, 0);
    assert.deepEqual([placeholder?.["addressType"], placeholder?.["endpoints"], placeholder?.["ports"]], ["IPv4", [], []]);
    // Named as kube's controller names its slices: generateName `<service>-` and five characters of kube's alphabet.
    const metadata = placeholder?.["metadata"] as { name: string; generateName: string };
    assert.match(metadata.name, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.equal(metadata.generateName, "web-");
  });

  it("Endpoints and the slice follow a pod's IP and readiness set through its status sub-resource", async () => {
    const created = await server.call("POST", "/api/v1/namespaces/default/pods", { body: { ...pod("web-1", undefined, false), status: undefined } });
    assert.equal(created.status, 201, created.text);
    await setStatus("web-1", "10.2.0.5", false);
    await until(async () => ((await subsets()).includes('"notReadyAddresses":[{"ip":"10.2.0.5"') ? true : undefined), "the not-ready address");
    await setStatus("web-1", "10.2.0.5", true);
    await until(async () => ((await subsets()).includes('"addresses":[{"ip":"10.2.0.5"') ? true : undefined), "the ready address");
    const slice = await until(async () => {
      const [only] = await webSlices();
      const endpoints = (only?.["endpoints"] ?? []) as { addresses: string[]; conditions: { ready: boolean } }[];
      return endpoints[0]?.conditions.ready === true ? only : undefined;
    }, "a ready endpoint in the slice");
    assert.equal((slice["metadata"] as { labels: Record<string, string> }).labels[names.managedByLabel], names.sliceManager);
    assert.deepEqual(slice["ports"], [{ name: "http", port: 8080, protocol: "TCP" }]);
    await setStatus("web-1", "10.2.0.9", true);
    await until(async () => ((await subsets()).includes('"ip":"10.2.0.9"') && !(await subsets()).includes("10.2.0.5") ? true : undefined), "the new IP");
  });

  it("mirrors a custom Endpoints of a selector-less Service into a slice, but not the server's own", async () => {
    assert.equal(
      (
        await server.call("POST", "/api/v1/namespaces/default/services", {
          body: { apiVersion: "v1", kind: "Service", metadata: { name: "external" }, spec: { ports: [{ port: 443 }] } },
        })
      ).status,
      201,
    );
    const custom = {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name: "external" },
      subsets: [{ addresses: [{ ip: "192.0.2.10" }], ports: [{ port: 8443, protocol: "TCP" }] }],
    };
    assert.equal((await server.call("POST", "/api/v1/namespaces/default/endpoints", { body: custom })).status, 201);
    const mirrored = await until(async () => {
      const items = ((await server.call("GET", `${SLICES}?labelSelector=${encodeURIComponent(`${names.serviceNameLabel}=external`)}`)).json["items"] ??
        []) as Record<string, unknown>[];
      return items[0];
    }, "the mirrored slice");
    assert.equal((mirrored["metadata"] as { labels: Record<string, string> }).labels[names.managedByLabel], names.mirroringManager);
    assert.deepEqual(mirrored["endpoints"], [{ addresses: ["192.0.2.10"], conditions: { ready: true } }]);
    const own = ((await server.call("GET", `${SLICES}?labelSelector=${encodeURIComponent(`${names.managedByLabel}=${names.mirroringManager}`)}`)).json[
      "items"
    ] ?? []) as Record<string, unknown>[];
    assert.deepEqual(
      own.map((slice) => (slice["metadata"] as { labels: Record<string, string> }).labels[names.serviceNameLabel]),
      ["external"],
    );
    assert.equal((await server.call("DELETE", "/api/v1/namespaces/default/services/external")).status, 200);
    await until(
      async () =>
        ((await server.call("GET", `${SLICES}?labelSelector=${encodeURIComponent(`${names.serviceNameLabel}=external`)}`)).json["items"] as unknown[])
          .length === 0
          ? true
          : undefined,
      "the mirror to go",
    );
  });
});
