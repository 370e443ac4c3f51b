// The aggregation layer against real clients: metrics-server's release manifest (with its
// APIService) applied by the oldest and newest kubectl under --compat kubernetes, `get` and
// `describe apiservices`, discovery with an unavailable aggregated group, the Python client and
// client-node listing APIServices; under the orch profile the same kind in its own spelling; and
// a loopback aggregated server (a Service without selector, manual Endpoints, a throw-away CA in
// caBundle) reached by kubectl through the proxy, list and watch, seeing the user and the proxy
// client certificate.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import * as k8s from "@kubernetes/client-node";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../src/api/profile.js";
import { startAggregatedServer, type TestAggregatedServer } from "../src/testing/aggregated-server.js";
import { generateTestPki } from "../src/testing/webhook-server.js";
import { selfSignedClientCertificate } from "./helpers/certs.js";
import { kubectlFor, parseTable, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";
import { makeTempDir, removeDir, startTestServer, useTestServer, type TestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

const COMPONENTS = fileURLToPath(new URL("../../test/fixtures/real-manifests/metrics-server.yaml", import.meta.url));

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `${result.stderr}\n${result.stdout}`);
  return result.stdout;
}

describe("metrics-server's components.yaml and APIServices with real clients (kubernetes profile)", () => {
  const server = useTestServer({ profile: KUBERNETES_PROFILE });
  let oldest: Kubectl;
  let newest: Kubectl;
  before(() => {
    oldest = kubectlFor(server().server.kubeconfigPath, server().dataDir, "oldest");
    newest = kubectlFor(server().server.kubeconfigPath, server().dataDir, "newest");
  });

  it("kubectl (oldest) applies every object of the release manifest, its APIService included; the newest applies it again unchanged", async () => {
    const created = ok(await oldest(["apply", "-f", COMPONENTS]));
    assert.match(created, /apiservice\.apiregistration\.k8s\.io\/v1beta1\.metrics\.k8s\.io created/);
    assert.match(created, /deployment\.apps\/metrics-server created/);
    assert.match(ok(await newest(["apply", "-f", COMPONENTS])), /apiservice\.apiregistration\.k8s\.io\/v1beta1\.metrics\.k8s\.io unchanged/);
    assert.match(
      ok(await newest(["apply", "--server-side", "-f", COMPONENTS])),
      /apiservice\.apiregistration\.k8s\.io\/v1beta1\.metrics\.k8s\.io serverside-applied/,
    );
  });

  it("get apiservices shows the local ones Available and metrics-server's not, with its reason", async () => {
    const rows = await waitFor(
      async () => {
        const table = parseTable(ok(await newest(["get", "apiservices"])));
        const metrics = table.find((row) => row["NAME"] === "v1beta1.metrics.k8s.io");
        return metrics !== undefined && metrics["AVAILABLE"]?.startsWith("False (") === true && table.some((row) => row["NAME"] === "v1.") ? table : undefined;
      },
      { what: "the APIServices with their conditions" },
    );
    assert.deepEqual(Object.keys(rows[0] ?? {}), ["NAME", "SERVICE", "AVAILABLE", "AGE"]);
    const byName = new Map(rows.map((row) => [row["NAME"], row]));
    for (const name of ["v1.", "v1.apps", "v1.rbac.authorization.k8s.io", "v2.autoscaling"]) {
      assert.equal(byName.get(name)?.["SERVICE"], "Local", name);
      assert.equal(byName.get(name)?.["AVAILABLE"], "True", name);
    }
    assert.equal(byName.get("v1beta1.metrics.k8s.io")?.["SERVICE"], "kube-system/metrics-server");
    // No pod runs here: the Service has no ready endpoints, as on a cluster whose metrics-server is not up.
    assert.match(byName.get("v1beta1.metrics.k8s.io")?.["AVAILABLE"] ?? "", /^False \((EndpointsNotFound|MissingEndpoints)\)$/);
    const oldRows = parseTable(ok(await oldest(["get", "apiservices", "v1.apps", "v1beta1.metrics.k8s.io"])));
    assert.deepEqual(
      oldRows.map((row) => [row["NAME"], row["SERVICE"]]),
      [
        ["v1.apps", "Local"],
        ["v1beta1.metrics.k8s.io", "kube-system/metrics-server"],
      ],
    );
  });

  it("describe apiservice shows the spec and the Available condition's reason and message", async () => {
    const text = ok(await newest(["describe", "apiservice", "v1beta1.metrics.k8s.io"]));
    assert.match(text, /Group:\s+metrics\.k8s\.io/);
    assert.match(text, /Insecure Skip TLS Verify:\s+true/);
    assert.match(text, /Port:\s+443/);
    assert.match(text, /Reason:\s+(EndpointsNotFound|MissingEndpoints)/);
    assert.match(
      text,
      /Message:\s+(cannot find endpoints for service\/metrics-server in "kube-system"|endpoints for service\/metrics-server in "kube-system" have no addresses)/,
    );
  });

  it("discovery lists metrics.k8s.io; its version answers kube's 503 while api-resources still lists every other resource", async () => {
    const groups = JSON.parse(ok(await newest(["get", "--raw", "/apis"]))) as { groups: { name: string }[] };
    assert.equal(groups.groups.at(-1)?.name, "metrics.k8s.io", "group priority 100: after every built-in group");
    for (const kubectl of [oldest, newest]) {
      const raw = await kubectl(["get", "--raw", "/apis/metrics.k8s.io/v1beta1"]);
      assert.notEqual(raw.code, 0);
      assert.match(raw.stderr, /Error from server \(ServiceUnavailable\): the server is currently unable to handle the request/);
      const resources = await kubectl(["api-resources"]);
      // kubectl reads aggregated discovery, where kube marks the version Stale: the group's
      // resources are left out and the rest listed (as against kube 1.30).
      const rows = parseTable(resources.stdout);
      assert.ok(rows.some((row) => row["NAME"] === "deployments"));
      assert.ok(rows.some((row) => row["NAME"] === "apiservices" && row["APIVERSION"] === "apiregistration.k8s.io/v1"));
      assert.ok(!rows.some((row) => row["APIVERSION"] === "metrics.k8s.io/v1beta1"));
    }
  });

  it("the Python client and client-node list the APIServices", async () => {
    const script = [
      "import sys",
      "from kubernetes import client, config",
      "config.load_kube_config(config_file=sys.argv[1])",
      "api = client.ApiregistrationV1Api()",
      "for item in api.list_api_service().items:",
      "    cond = [c for c in (item.status.conditions or []) if c.type == 'Available']",
      "    svc = item.spec.service",
      "    print(item.metadata.name, svc.namespace + '/' + svc.name + ':' + str(svc.port) if svc else 'Local', cond[0].status if cond else '-')",
    ].join("\n");
    // Asynchronously: the server answering it runs in this process.
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        "/usr/bin/python3",
        ["-c", script, server().server.kubeconfigPath],
        { env: { PATH: "/usr/bin:/bin", HOME: server().dataDir, PYTHONNOUSERSITE: "1" }, timeout: 60_000 },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr }),
      );
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^v1beta1\.metrics\.k8s\.io kube-system\/metrics-server:443 False$/m);
    assert.match(run.stdout, /^v1\.apps Local True$/m);
    const config = new k8s.KubeConfig();
    config.loadFromString(server().server.kubeconfig);
    const list = await config.makeApiClient(k8s.ApiregistrationV1Api).listAPIService();
    const metrics = list.items.find((item) => item.metadata?.name === "v1beta1.metrics.k8s.io");
    assert.equal(metrics?.spec?.service?.namespace, "kube-system");
    assert.equal(metrics?.spec?.groupPriorityMinimum, 100);
    assert.equal(metrics?.status?.conditions?.find((condition) => condition.type === "Available")?.status, "False");
  });
});

describe("APIServices under the orch profile", () => {
  const server = useTestServer({ profile: ORCH_PROFILE });
  let kubectl: Kubectl;
  before(() => {
    kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, "newest");
  });

  it("serves apiregistration.orch.io with the built-in group versions registered and labelled in the orch spelling", async () => {
    const rows = await waitFor(
      async () => {
        const table = parseTable(ok(await kubectl(["get", "apiservices"])));
        return table.some((row) => row["NAME"] === "v1.rbac.authorization.orch.io" && row["AVAILABLE"] === "True") ? table : undefined;
      },
      { what: "local APIServices" },
    );
    assert.ok(rows.some((row) => row["NAME"] === "v1.apps" && row["SERVICE"] === "Local"));
    const labels = JSON.parse(ok(await kubectl(["get", "apiservice", "v1.apps", "-o", "jsonpath={.metadata.labels}"]))) as Record<string, string>;
    assert.deepEqual(labels, { [ORCH_PROFILE.apiServiceAutomanagedLabel]: "onstart" });
    const manifest = join(server().dataDir, "apiservice.yaml");
    writeFileSync(
      manifest,
      [
        `apiVersion: ${ORCH_PROFILE.apiDomain.replace(/^/, "apiregistration.")}/v1`,
        "kind: APIService",
        "metadata: {name: v1beta1.metrics.k8s.io}",
        "spec: {group: metrics.k8s.io, version: v1beta1, groupPriorityMinimum: 100, versionPriority: 100, insecureSkipTLSVerify: true, service: {namespace: orch-system, name: metrics-server}}",
        "",
      ].join("\n"),
    );
    assert.match(ok(await kubectl(["apply", "-f", manifest])), /apiservice\.apiregistration\.orch\.io\/v1beta1\.metrics\.k8s\.io created/);
    const refused = await kubectl(["apply", "-f", COMPONENTS]);
    assert.notEqual(refused.code, 0, "the release manifest's k8s.io groups need --compat kubernetes");
  });
});

describe("an aggregated API server reached through the proxy by kubectl (kubernetes profile)", () => {
  let server: TestServer;
  let backend: TestAggregatedServer;
  let certDir: string;
  let kubectls: Kubectl[];
  const pki = generateTestPki(["widgets.default.svc"]);
  before(async () => {
    certDir = makeTempDir("proxy-client-");
    const client = await selfSignedClientCertificate("front-proxy-client", []);
    writeFileSync(join(certDir, "proxy.crt"), client.cert);
    writeFileSync(join(certDir, "proxy.key"), client.key);
    server = await startTestServer({
      profile: KUBERNETES_PROFILE,
      proxyClientCertFile: join(certDir, "proxy.crt"),
      proxyClientKeyFile: join(certDir, "proxy.key"),
    });
    backend = await startAggregatedServer(pki, "widgets.example.com", "v1");
    kubectls = [kubectlFor(server.server.kubeconfigPath, server.dataDir, "oldest"), kubectlFor(server.server.kubeconfigPath, server.dataDir, "newest")];
  });
  after(async () => {
    await backend?.close();
    await server?.close();
    removeDir(certDir);
  });

  it("becomes Available once its Service's Endpoints reach the server, then serves discovery, list and watch through the proxy", async () => {
    const manifest = join(server.dataDir, "widgets.yaml");
    writeFileSync(
      manifest,
      `apiVersion: v1
kind: Service
metadata: {name: widgets, namespace: default}
spec:
  ports: [{name: https, port: 443, targetPort: ${backend.port}}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: widgets, namespace: default}
subsets:
- addresses: [{ip: 127.0.0.1}]
  ports: [{name: https, port: ${backend.port}}]
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.widgets.example.com}
spec:
  group: widgets.example.com
  version: v1
  groupPriorityMinimum: 1000
  versionPriority: 15
  caBundle: ${pki.caBundle}
  service: {namespace: default, name: widgets}
`,
    );
    const [oldest, newest] = kubectls as [Kubectl, Kubectl];
    ok(await newest(["apply", "-f", manifest]));
    ok(await newest(["wait", "--for=condition=Available", "apiservice/v1.widgets.example.com", "--timeout=20s"]));
    for (const kubectl of [oldest, newest]) {
      const listed = await waitFor(
        async () => {
          const result = await kubectl(["get", "widgets", "-n", "default", "-o", "name"]);
          return result.code === 0 ? result.stdout : undefined;
        },
        { what: `kubectl ${kubectl.version.version} get widgets` },
      );
      assert.equal(listed.trim(), "widget.widgets.example.com/first");
      const resources = parseTable(ok(await kubectl(["api-resources", "--api-group", "widgets.example.com"])));
      assert.deepEqual(
        resources.map((row) => [row["NAME"], row["SHORTNAMES"], row["APIVERSION"], row["KIND"]]),
        [["widgets", "wd", "widgets.example.com/v1", "Widget"]],
      );
    }
    const list = backend.received.find((request) => request.target.startsWith("/apis/widgets.example.com/v1/namespaces/default/widgets"));
    assert.equal(list?.headers["x-remote-user"], "kubernetes-admin");
    assert.match(String(list?.headers["x-remote-group"]), /system:masters/);
    assert.equal(list?.clientCommonName, "front-proxy-client", "the proxy client certificate is presented");

    const watch = newest.spawn(["get", "widgets", "-n", "default", "--watch", "-o", "name"]);
    try {
      await waitFor(() => backend.received.some((request) => request.target.includes("watch=true")), { what: "the watch to reach the backend" });
      backend.emit("ADDED", {
        apiVersion: "widgets.example.com/v1",
        kind: "Widget",
        metadata: { name: "streamed", namespace: "default", resourceVersion: "2" },
      });
      await waitFor(() => watch.stdout().includes("widget.widgets.example.com/streamed"), { what: `the streamed event (${watch.stderr()})` });
    } finally {
      await watch.stop();
    }
  });
});
