// kube's ValidateNetworkPolicyPort (endPort against port, named ports), with real kubectl in both
// product profiles.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { apiGroup, KUBERNETES_PROFILE, ORCH_PROFILE } from "../src/api/profile.js";
import { kubectlFor, ok } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";

for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
  describe(`NetworkPolicy ports (${profile.name} profile)`, () => {
    const server = useTestServer({ profile, storageBackend: "memory" });
    const group = apiGroup(profile, "networking");

    for (const version of ["1.27", "1.33"] as const) {
      it(`kubectl ${version}: an endPort below its port and one beside a named port are refused; a port range is stored`, async () => {
        const kubectl = kubectlFor(server().server.kubeconfigPath, join(server().dataDir, `kubectl-${version}`), version);
        const suffix = version.replace(".", "");
        const policy = (name: string, ports: string): string => {
          const file = join(server().dataDir, `${name}-${suffix}.yaml`);
          writeFileSync(
            file,
            `apiVersion: ${group}/v1
kind: NetworkPolicy
metadata:
  name: ${name}-${suffix}
spec:
  podSelector: {}
  egress:
    - ports:
${ports}
`,
          );
          return file;
        };
        const below = await kubectl(["create", "-f", policy("below", "        - {port: 32768, endPort: 32000}")]);
        assert.notEqual(below.code, 0, below.stdout);
        assert.ok(
          below.stderr.includes(
            `The NetworkPolicy "below-${suffix}" is invalid: spec.egress[0].ports[0].endPort: Invalid value: 32768: must be greater than or equal to \`port\``,
          ),
          below.stderr,
        );
        const named = await kubectl(["create", "-f", policy("named", "        - {port: dns, endPort: 60}")]);
        assert.notEqual(named.code, 0, named.stdout);
        assert.ok(named.stderr.includes("spec.egress[0].ports[0].endPort: Invalid value: 60: may not be specified when `port` is non-numeric"), named.stderr);
        ok(await kubectl(["create", "-f", policy("ranged", "        - {port: 32000, endPort: 32768}")]));
        const stored = JSON.parse(ok(await kubectl(["get", "networkpolicy", `ranged-${suffix}`, "-o", "json"]))) as {
          spec: { egress: { ports: unknown[] }[] };
        };
        assert.deepEqual(stored.spec.egress[0]?.ports, [{ port: 32000, endPort: 32768, protocol: "TCP" }]);
      });
    }
  });
}
