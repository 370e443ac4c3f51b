import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../../profile.js";
import { inProcessServer } from "../../../testing/in-process.js";

const POLICIES = "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies";

function policy(name: string, ipBlock: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name }, spec: { podSelector: {}, ingress: [{ from: [{ ipBlock }] }] } };
}

describe("NetworkPolicy ipBlock, as kube's ValidateIPBlock", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  it("refuses a missing or malformed cidr and an except outside it or not narrower", async () => {
    const at = "spec.ingress[0].from[0].ipBlock";
    const cases: [Record<string, unknown>, string][] = [
      [policy("p1", { cidr: "" }), `NetworkPolicy.networking.k8s.io "p1" is invalid: ${at}.cidr: Required value`],
      [
        policy("p2", { cidr: "10.0.0.0/33" }),
        `NetworkPolicy.networking.k8s.io "p2" is invalid: ${at}.cidr: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`,
      ],
      [
        policy("p3", { cidr: "10.0.0.0/8", except: ["11.0.0.0/16", "10.0.0.0/8", "bad", "10.1.0.0/16"] }),
        `NetworkPolicy.networking.k8s.io "p3" is invalid: [${at}.except[0]: Invalid value: "11.0.0.0/16": must be a strict subset of \`cidr\`, ${at}.except[1]: Invalid value: "10.0.0.0/8": must be a strict subset of \`cidr\`, ${at}.except[2]: Invalid value: "bad": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)]`,
      ],
    ];
    for (const [body, message] of cases) {
      const refused = await server.call("POST", POLICIES, { body });
      assert.equal(refused.status, 422, refused.text);
      assert.equal(refused.json["message"], message);
    }
    const ok = await server.call("POST", POLICIES, { body: policy("ok", { cidr: "fd00::/64", except: ["fd00::/96"] }) });
    assert.equal(ok.status, 201, ok.text);
  });
});

describe("NetworkPolicy ports, as kube's ValidateNetworkPolicyPort", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  const withPorts = (name: string, ports: Record<string, unknown>[]): Record<string, unknown> => ({
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name },
    spec: { podSelector: {}, ingress: [{ ports }], egress: [{ ports }] },
  });

  it("refuses an endPort below the port or out of range, beside a named or missing port, and a bad port name", async () => {
    const at = "spec.ingress[0].ports";
    const cases: [Record<string, unknown>, string][] = [
      [
        withPorts("below", [{ port: 80, endPort: 0 }]),
        // kube shows the port as the bad value of the first, and checks the egress rule's ports alike.
        'NetworkPolicy.networking.k8s.io "below" is invalid: [spec.ingress[0].ports[0].endPort: Invalid value: 80: must be greater than or equal to `port`, spec.ingress[0].ports[0].endPort: Invalid value: 0: must be between 1 and 65535, inclusive, spec.egress[0].ports[0].endPort: Invalid value: 80: must be greater than or equal to `port`, spec.egress[0].ports[0].endPort: Invalid value: 0: must be between 1 and 65535, inclusive]',
      ],
      [
        { ...withPorts("named", []), spec: { podSelector: {}, ingress: [{ ports: [{ port: "http", endPort: 90 }, { endPort: 90 }, { port: "Web_Port" }] }] } },
        `NetworkPolicy.networking.k8s.io "named" is invalid: [${at}[0].endPort: Invalid value: 90: may not be specified when \`port\` is non-numeric, ${at}[1].endPort: Invalid value: 90: may not be specified when \`port\` is not specified, ${at}[2].port: Invalid value: "Web_Port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)]`,
      ],
      [
        { ...withPorts("range", []), spec: { podSelector: {}, ingress: [{ ports: [{ port: 32000, endPort: 70000 }] }] } },
        `NetworkPolicy.networking.k8s.io "range" is invalid: ${at}[0].endPort: Invalid value: 70000: must be between 1 and 65535, inclusive`,
      ],
    ];
    for (const [body, message] of cases) {
      const refused = await server.call("POST", POLICIES, { body });
      assert.equal(refused.status, 422, refused.text);
      assert.equal(refused.json["message"], message);
    }
    const ranged = await server.call("POST", POLICIES, {
      body: withPorts("ranged", [{ port: 32000, endPort: 32768 }, { port: 53, endPort: 53, protocol: "UDP" }, { port: "dns-tcp" }]),
    });
    assert.equal(ranged.status, 201, ranged.text);
  });
});
