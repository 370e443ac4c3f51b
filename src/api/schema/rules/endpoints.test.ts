import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../../profile.js";
import { inProcessServer } from "../../../testing/in-process.js";

const DNS_LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe("endpoints, endpoint slices and service addresses, as kube 1.30's validation", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  async function refused(path: string, body: Record<string, unknown>, message: string): Promise<void> {
    const answer = await server.call("POST", path, { body });
    assert.equal(answer.status, 422, answer.text);
    assert.equal(answer.json["message"], message);
  }

  it("refuses special and malformed endpoint addresses, unnamed ports beside others and subsets without addresses", async () => {
    await refused(
      "/api/v1/namespaces/default/endpoints",
      {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: { name: "ep" },
        subsets: [
          { addresses: [{ ip: "224.0.0.1" }, { ip: "169.254.1.1" }, { ip: "0.0.0.0" }, { ip: "bad" }], ports: [{ port: 0 }, { name: "Bad_Name", port: 80 }] },
          { ports: [{ port: 80 }] },
        ],
      },
      'Endpoints "ep" is invalid: [subsets[0].addresses[0].ip: Invalid value: "224.0.0.1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10), ' +
        'subsets[0].addresses[1].ip: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10), ' +
        'subsets[0].addresses[2].ip: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0), ' +
        'subsets[0].addresses[3].ip: Invalid value: "bad": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff), subsets[0].addresses[3].ip: Invalid value: "bad": must be a valid IP address, ' +
        "subsets[0].ports[0].name: Required value, subsets[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, " +
        `subsets[0].ports[1].name: Invalid value: "Bad_Name": ${DNS_LABEL}, subsets[1]: Required value: must specify \`addresses\` or \`notReadyAddresses\`]`,
    );
    const ok = await server.call("POST", "/api/v1/namespaces/default/endpoints", {
      body: {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: { name: "ok" },
        subsets: [{ addresses: [{ ip: "10.1.2.3" }, { ip: "fd00::1" }], ports: [{ port: 80 }] }],
      },
    });
    assert.equal(ok.status, 201, ok.text);
  });

  it("refuses endpoint slice addresses of the wrong family, empty endpoints and duplicate port names", async () => {
    await refused(
      "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices",
      {
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: { name: "es" },
        addressType: "IPv4",
        endpoints: [{ addresses: ["fd00::1"] }, { addresses: [] }, { addresses: ["169.254.0.9"] }],
        ports: [{ name: "Bad_Name", port: 80 }, { port: 81 }, { port: 82 }],
      },
      'EndpointSlice.discovery.k8s.io "es" is invalid: [endpoints[0].addresses[0]: Invalid value: "fd00::1": must be a valid IPv4 address, ' +
        "endpoints[1].addresses: Required value: must contain at least 1 address, " +
        'endpoints[2].addresses[0]: Invalid value: "169.254.0.9": may not be in the link-local range (169.254.0.0/16, fe80::/10), ' +
        `ports[0].name: Invalid value: "Bad_Name": ${DNS_LABEL}, ports[2].name: Duplicate value: ""]`,
    );
  });

  it("reports an endpoint slice address not of the slice's family once, without the special-range checks", async () => {
    await refused(
      "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices",
      {
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: { name: "es-family" },
        addressType: "IPv4",
        endpoints: [{ addresses: ["not-an-ip", "fe80::1"] }],
      },
      'EndpointSlice.discovery.k8s.io "es-family" is invalid: [endpoints[0].addresses[0]: Invalid value: "not-an-ip": must be a valid IPv4 address, ' +
        'endpoints[0].addresses[1]: Invalid value: "fe80::1": must be a valid IPv4 address]',
    );
  });

  it("refuses a service's affinity timeout, special external IPs, node ports of a ClusterIP service and bad source ranges", async () => {
    await refused(
      "/api/v1/namespaces/default/services",
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "s1" },
        spec: {
          ports: [{ port: 80, nodePort: 30080 }],
          sessionAffinity: "ClientIP",
          sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } },
          externalIPs: ["bad", "127.0.0.1"],
          loadBalancerSourceRanges: ["bad", "10.0.0.0/8"],
        },
      },
      'Service "s1" is invalid: [spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater than 0 and less than 86400, ' +
        'spec.externalIPs[0]: Invalid value: "bad": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff), ' +
        'spec.externalIPs[1]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128), ' +
        "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP', " +
        "spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer', " +
        'spec.LoadBalancerSourceRanges: Invalid value: "[bad 10.0.0.0/8]": must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 ]',
    );
    const ok = await server.call("POST", "/api/v1/namespaces/default/services", {
      body: {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "lb" },
        spec: { type: "LoadBalancer", ports: [{ port: 80 }], loadBalancerSourceRanges: [" 10.0.0.0/8", "fd00::/64"] },
      },
    });
    assert.equal(ok.status, 201, ok.text);
  });
});
