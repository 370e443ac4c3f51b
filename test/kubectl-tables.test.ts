// Real kubectl (the default release) printing the server's Tables: headers (with and without -o wide) and one row
// per kind, cells computed by the server as kube's printers compute them. kubectl asks for Tables
// in kube's meta group; the orch profile answers that spelling too, so both profiles print alike.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { apiGroup, KUBERNETES_PROFILE, ORCH_PROFILE } from "../src/api/profile.js";
import { kubectlFor, resolveKubectl, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";

const KUBECTL = resolveKubectl("default");
import { useTestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";
import { TEST_CSR_REQUEST } from "../src/testing/csr.js";

const AGE = /^\d+s$/;

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

/**
 * kubectl's column output split at the offsets of the expected headers (which may contain
 * spaces, and cells may be empty); fails unless the header line is exactly those headers.
 */
function table(output: string, headers: readonly string[]): Record<string, string>[] {
  const [header = "", ...lines] = output.split("\n").filter((line) => line.trim() !== "");
  assert.deepEqual(header.trim().split(/\s{2,}/), headers, `headers of:\n${output}`);
  let cursor = 0;
  const starts = headers.map((name) => {
    const start = header.indexOf(name, cursor);
    cursor = start + name.length;
    return start;
  });
  return lines.map((line) => Object.fromEntries(headers.map((name, index) => [name, line.slice(starts[index], starts[index + 1] ?? line.length).trim()])));
}

function row(rows: readonly Record<string, string>[], name: string): Record<string, string> {
  const found = rows.find((entry) => entry["NAME"] === name);
  assert.ok(found !== undefined, `no row ${name} in ${JSON.stringify(rows)}`);
  return found;
}

for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
  describe(`kubectl ${KUBECTL.version} prints the server's tables (${profile.name} profile)`, () => {
    const server = useTestServer({ profile });
    let kubectl: Kubectl;
    let count = 0;
    const apply = async (object: unknown): Promise<void> => {
      const path = join(server().dataDir, `tables-${++count}.json`);
      writeFileSync(path, JSON.stringify(object));
      ok(await kubectl(["create", "-f", path]));
    };
    const patchStatus = async (resource: string, status: unknown): Promise<void> => {
      ok(await kubectl(["patch", resource, "--subresource=status", "--type=merge", "-p", JSON.stringify({ status })]));
    };

    before(() => {
      kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, KUBECTL);
    });

    it("get deployments: READY UP-TO-DATE AVAILABLE; -o wide adds CONTAINERS IMAGES SELECTOR", async () => {
      await apply({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web" },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: "web" } },
          template: {
            metadata: { labels: { app: "web" } },
            spec: {
              containers: [
                { name: "web", image: "nginx:1.25" },
                { name: "log", image: "busybox:1.36" },
              ],
            },
          },
        },
      });
      await patchStatus("deployment/web", { replicas: 2, readyReplicas: 1, updatedReplicas: 2, availableReplicas: 1 });
      const narrow = row(table(ok(await kubectl(["get", "deployments"])), ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]), "web");
      assert.deepEqual({ ...narrow, AGE: "" }, { NAME: "web", READY: "1/2", "UP-TO-DATE": "2", AVAILABLE: "1", AGE: "" });
      const wide = row(
        table(ok(await kubectl(["get", "deployments", "-o", "wide"])), ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"]),
        "web",
      );
      assert.match(wide["AGE"] ?? "", AGE);
      assert.deepEqual(
        { ...wide, AGE: "" },
        {
          NAME: "web",
          READY: "1/2",
          "UP-TO-DATE": "2",
          AVAILABLE: "1",
          AGE: "",
          CONTAINERS: "web,log",
          IMAGES: "nginx:1.25,busybox:1.36",
          SELECTOR: "app=web",
        },
      );
    });

    it("get pods -o wide: status and restarts from the containers, IP, node, nominated node, readiness gates", async () => {
      await apply({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "web" },
        spec: { nodeName: "node-1", containers: [{ name: "web", image: "nginx:1.25" }] },
      });
      const finishedAt = new Date(Date.now() - 5 * 60_000).toISOString().replace(/\.\d{3}Z$/, "Z");
      await patchStatus("pod/web", {
        phase: "Running",
        podIP: "10.0.0.5",
        podIPs: [{ ip: "10.0.0.5" }],
        conditions: [{ type: "Ready", status: "True" }],
        containerStatuses: [
          {
            name: "web",
            image: "nginx:1.25",
            imageID: "",
            ready: true,
            restartCount: 1,
            state: { running: {} },
            lastState: { terminated: { exitCode: 1, finishedAt } },
          },
        ],
      });
      const pod = row(
        table(ok(await kubectl(["get", "pods", "-o", "wide"])), [
          "NAME",
          "READY",
          "STATUS",
          "RESTARTS",
          "AGE",
          "IP",
          "NODE",
          "NOMINATED NODE",
          "READINESS GATES",
        ]),
        "web",
      );
      assert.match(pod["AGE"] ?? "", AGE);
      assert.match(pod["RESTARTS"] ?? "", /^1 \(5m\d*s? ago\)$/);
      assert.deepEqual(
        { ...pod, AGE: "", RESTARTS: "" },
        {
          NAME: "web",
          READY: "1/1",
          STATUS: "Running",
          RESTARTS: "",
          AGE: "",
          IP: "10.0.0.5",
          NODE: "node-1",
          "NOMINATED NODE": "<none>",
          "READINESS GATES": "<none>",
        },
      );
      table(ok(await kubectl(["get", "pods"])), ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]);
    });

    it("get ingress: CLASS HOSTS ADDRESS PORTS", async () => {
      await apply({
        apiVersion: `${apiGroup(profile, "networking")}/v1`,
        kind: "Ingress",
        metadata: { name: "web" },
        spec: {
          ingressClassName: "nginx",
          tls: [{ hosts: ["web.example.com"], secretName: "web-tls" }],
          rules: [
            { host: "web.example.com", http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "web", port: { number: 80 } } } }] } },
          ],
        },
      });
      const ingress = row(table(ok(await kubectl(["get", "ingress"])), ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"]), "web");
      assert.deepEqual({ ...ingress, AGE: "" }, { NAME: "web", CLASS: "nginx", HOSTS: "web.example.com", ADDRESS: "", PORTS: "80, 443", AGE: "" });
    });

    it("get cronjobs: SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE", async () => {
      await apply({
        apiVersion: "batch/v1",
        kind: "CronJob",
        metadata: { name: "backup" },
        spec: {
          schedule: "*/5 * * * *",
          timeZone: "Etc/UTC",
          jobTemplate: { spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "backup", image: "busybox:1.36" }] } } } },
        },
      });
      const cronJob = row(
        table(ok(await kubectl(["get", "cronjobs"])), ["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"]),
        "backup",
      );
      assert.match(cronJob["AGE"] ?? "", AGE);
      assert.deepEqual(
        { ...cronJob, AGE: "" },
        { NAME: "backup", SCHEDULE: "*/5 * * * *", TIMEZONE: "Etc/UTC", SUSPEND: "False", ACTIVE: "0", "LAST SCHEDULE": "<none>", AGE: "" },
      );
    });

    it("get clusterrolebindings -o wide: ROLE, then USERS GROUPS SERVICEACCOUNTS", async () => {
      const rbac = apiGroup(profile, "rbac.authorization");
      await apply({
        apiVersion: `${rbac}/v1`,
        kind: "ClusterRoleBinding",
        metadata: { name: "viewers" },
        roleRef: { apiGroup: rbac, kind: "ClusterRole", name: "view" },
        subjects: [
          { kind: "User", apiGroup: rbac, name: "alice" },
          { kind: "Group", apiGroup: rbac, name: "devs" },
          { kind: "ServiceAccount", name: "builder", namespace: "ci" },
        ],
      });
      const binding = row(
        table(ok(await kubectl(["get", "clusterrolebindings", "-o", "wide"])), ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"]),
        "viewers",
      );
      assert.deepEqual(
        { ...binding, AGE: "" },
        { NAME: "viewers", ROLE: "ClusterRole/view", AGE: "", USERS: "alice", GROUPS: "devs", SERVICEACCOUNTS: "ci/builder" },
      );
      row(table(ok(await kubectl(["get", "clusterrolebindings"])), ["NAME", "ROLE", "AGE"]), "viewers");
    });

    it("get csr: SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION", async () => {
      await apply({
        apiVersion: `${apiGroup(profile, "certificates")}/v1`,
        kind: "CertificateSigningRequest",
        metadata: { name: "alice" },
        spec: { request: TEST_CSR_REQUEST, signerName: "example.com/signer", expirationSeconds: 7200, usages: ["client auth"], username: "alice" },
      });
      const headers = ["NAME", "AGE", "SIGNERNAME", "REQUESTOR", "REQUESTEDDURATION", "CONDITION"];
      const requestor = ok(await kubectl(["get", "csr", "alice", "-o", "jsonpath={.spec.username}"]));
      assert.notEqual(requestor, "");
      const pending = row(table(ok(await kubectl(["get", "csr"])), headers), "alice");
      assert.match(pending["AGE"] ?? "", AGE);
      assert.deepEqual(
        { ...pending, AGE: "" },
        { NAME: "alice", AGE: "", SIGNERNAME: "example.com/signer", REQUESTOR: requestor, REQUESTEDDURATION: "120m", CONDITION: "Pending" },
      );
    });

    it("get hpa: REFERENCE TARGETS MINPODS MAXPODS REPLICAS, the same through autoscaling/v1", async () => {
      await apply({
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "web" },
        spec: {
          scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
          minReplicas: 1,
          maxReplicas: 5,
          metrics: [
            { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } },
            { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } } },
          ],
        },
      });
      await patchStatus("hpa/web", {
        currentReplicas: 2,
        desiredReplicas: 2,
        currentMetrics: [{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: 40 } } }],
      });
      const headers = ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"];
      const expected = { NAME: "web", REFERENCE: "Deployment/web", TARGETS: "cpu: 40%/80%, <unknown>/10", MINPODS: "1", MAXPODS: "5", REPLICAS: "2", AGE: "" };
      const hpa = row(table(ok(await kubectl(["get", "hpa"])), headers), "web");
      assert.match(hpa["AGE"] ?? "", AGE);
      assert.deepEqual({ ...hpa, AGE: "" }, expected);
      assert.deepEqual({ ...row(table(ok(await kubectl(["get", "horizontalpodautoscalers.v1.autoscaling"])), headers), "web"), AGE: "" }, expected);
    });

    it("get -w: watch events arrive as rows in the kind's columns", async () => {
      ok(await kubectl(["create", "namespace", "watched"]));
      await apply({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "seed", namespace: "watched" },
        spec: { containers: [{ name: "c", image: "busybox:1.36" }] },
      });
      const watch = kubectl.spawn(["get", "pods", "-n", "watched", "-o", "wide", "-w", "--request-timeout=60s"]);
      try {
        // The list comes first; a pod created after it arrives through the watch.
        await waitFor(() => /^seed\s/m.test(watch.stdout()), { timeoutMs: 15_000, what: "kubectl -w to list the seed pod" });
        await apply({
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name: "late", namespace: "watched" },
          spec: { nodeName: "node-2", containers: [{ name: "c", image: "busybox:1.36" }] },
        });
        const line = await waitFor(
          () =>
            watch
              .stdout()
              .split("\n")
              .find((text) => text.startsWith("late ")),
          { timeoutMs: 15_000, what: `the new pod's row (stdout: ${watch.stdout()})` },
        );
        assert.match(line, /^late\s+0\/1\s+Pending\s+0\s+\d+s\s+<none>\s+node-2\s+<none>\s+<none>\s*$/);
      } finally {
        await watch.stop();
      }
    });
  });
}
