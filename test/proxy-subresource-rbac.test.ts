// kube's RequestInfo keeps one path segment as the sub-resource: a proxy with a path
// (`nodes/n1/proxy/metrics`, `services/s:80/proxy/healthz`) is authorized as `nodes/proxy` /
// `services/proxy`, so RBAC granting those lets a scraper through, with real kubectl in both
// product profiles.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { apiGroup, KUBERNETES_PROFILE, ORCH_PROFILE, type Profile } from "../src/api/profile.js";
import { kubectlFor, ok } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";

function manifest(profile: Profile): string {
  const rbac = apiGroup(profile, "rbac.authorization");
  return `apiVersion: v1
kind: Node
metadata:
  name: n1
status:
  addresses:
    - type: InternalIP
      address: 10.0.0.1
---
apiVersion: v1
kind: Service
metadata:
  name: idle
  namespace: default
spec:
  ports:
    - port: 80
---
apiVersion: v1
kind: Endpoints
metadata:
  name: idle
  namespace: default
subsets: []
---
apiVersion: ${rbac}/v1
kind: ClusterRole
metadata:
  name: scraper
rules:
  - apiGroups: [""]
    resources: ["nodes/proxy", "services/proxy"]
    verbs: ["get"]
---
apiVersion: ${rbac}/v1
kind: ClusterRoleBinding
metadata:
  name: scraper
roleRef:
  apiGroup: ${rbac}
  kind: ClusterRole
  name: scraper
subjects:
  - kind: User
    apiGroup: ${rbac}
    name: scraper
`;
}

for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
  describe(`RBAC of proxies with a path (${profile.name} profile)`, () => {
    const server = useTestServer({ profile, storageBackend: "memory" });

    it("kubectl 1.27 and 1.33: get --raw of a node's and a service's proxy path is authorized by nodes/proxy and services/proxy", async () => {
      const setup = kubectlFor(server().server.kubeconfigPath, join(server().dataDir, "kubectl-setup"), "1.33");
      const file = join(server().dataDir, "scraper.yaml");
      writeFileSync(file, manifest(profile));
      ok(await setup(["create", "-f", file]));
      for (const version of ["1.27", "1.33"] as const) {
        const kubectl = kubectlFor(server().server.kubeconfigPath, join(server().dataDir, `kubectl-${version}`), version);
        // Authorized, the request reaches the proxy, which has no node agent or endpoint to dial here.
        const node = await kubectl(["get", "--raw", "/api/v1/nodes/n1/proxy/metrics/cadvisor", "--as", "scraper"]);
        assert.notEqual(node.code, 0);
        assert.ok(node.stderr.includes(`Error from server (ServiceUnavailable): no node agent is connected for node "n1"`), node.stderr);
        const service = await kubectl(["get", "--raw", "/api/v1/namespaces/default/services/http:idle:80/proxy/healthz/ready", "--as", "scraper"]);
        assert.notEqual(service.code, 0);
        assert.ok(service.stderr.includes(`no endpoints available for service "idle"`), service.stderr);
        assert.ok(!service.stderr.includes("Forbidden"), service.stderr);
        // Without the grant, kube's refusal names the sub-resource alone.
        const refused = await kubectl(["get", "--raw", "/api/v1/nodes/n1/proxy/metrics", "--as", "someone-else"]);
        assert.notEqual(refused.code, 0);
        assert.ok(refused.stderr.includes(`User "someone-else" cannot get resource "nodes/proxy" in API group "" at the cluster scope`), refused.stderr);
      }
    });
  });
}
