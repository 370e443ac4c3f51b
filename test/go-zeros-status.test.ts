// Go zeros kube writes whether or not a client sent them (sweep 14): a core/v1 Event's
// `eventTime: null`, `reportingComponent: ""`…, the untagged counts of StatefulSet and DaemonSet
// status, HPA v2's `currentMetrics: null`. Objects created by kubectl 1.27 and 1.33 `create -f`,
// read back with `get -o json`, applied twice (`unchanged`) and diffed (empty); the Python
// client reads the Event as its typed model.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { stringify } from "yaml";
import { KUBERNETES_PROFILE } from "../src/api/profile.js";
import { kubectlFor } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";

type Json = Record<string, unknown>;

const template = { metadata: { labels: { app: "z" } }, spec: { containers: [{ name: "c", image: "nginx" }] } };

function objects(suffix: string): Json[] {
  return [
    {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: `ev-${suffix}` },
      involvedObject: { kind: "Pod", name: "p", namespace: "default" },
      reason: "Tested",
      message: "made by kubectl create",
      type: "Normal",
    },
    {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: `sts-${suffix}` },
      spec: { selector: { matchLabels: { app: "z" } }, serviceName: "z", template },
    },
    { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: `ds-${suffix}` }, spec: { selector: { matchLabels: { app: "z" } }, template } },
    {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: `hpa-${suffix}` },
      spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "StatefulSet", name: `sts-${suffix}` }, minReplicas: 1, maxReplicas: 2 },
    },
  ];
}

const PYTHON_SCRIPT = `
import json, sys
from kubernetes import client, config
config.load_kube_config(config_file=sys.argv[1])
api = client.CoreV1Api()
event = api.read_namespaced_event(sys.argv[2], "default")
listed = [item.metadata.name for item in api.list_namespaced_event("default").items]
print(json.dumps({"event_time": event.event_time, "first_timestamp": event.first_timestamp, "last_timestamp": event.last_timestamp,
  "reporting_component": event.reporting_component, "reporting_instance": event.reporting_instance,
  "source": event.source.to_dict(), "listed": sys.argv[2] in listed}))
`;
import { runPythonScript } from "./helpers/python.js";

function runPython(kubeconfig: string, name: string): Promise<{ code: number | null; output: string }> {
  return runPythonScript(PYTHON_SCRIPT, [kubeconfig, name]);
}

describe("Go zeros of events and status types through kubectl and the Python client (--compat kubernetes)", () => {
  const server = useTestServer({ profile: KUBERNETES_PROFILE });

  for (const version of ["1.27", "1.33"] as const) {
    describe(`kubectl ${version}`, () => {
      const suffix = version.replace(".", "");
      const read = new Map<string, Json>();
      let manifest = "";
      let kubectl: ReturnType<typeof kubectlFor>;

      before(async () => {
        const { dataDir } = server();
        kubectl = kubectlFor(server().server.kubeconfigPath, join(dataDir, `kubectl-${version}`), version);
        manifest = join(dataDir, `zeros-${suffix}.yaml`);
        writeFileSync(
          manifest,
          objects(suffix)
            .map((object) => stringify(object))
            .join("---\n"),
        );
        const created = await kubectl(["create", "-n", "default", "-f", manifest]);
        assert.equal(created.code, 0, created.stderr);
        for (const object of objects(suffix)) {
          const resource = String(object["kind"]).toLowerCase();
          const name = String((object["metadata"] as Json)["name"]);
          const got = await kubectl([
            "get",
            "-n",
            "default",
            resource === "horizontalpodautoscaler" ? "hpa.v2.autoscaling" : resource,
            name,
            "-o",
            "json",
            "--show-managed-fields",
          ]);
          assert.equal(got.code, 0, got.stderr);
          read.set(String(object["kind"]), JSON.parse(got.stdout) as Json);
        }
      });

      it("a core/v1 Event reads back kube's zeros, owned by no manager", () => {
        const event = read.get("Event") as Json;
        for (const name of ["eventTime", "firstTimestamp", "lastTimestamp"]) assert.equal(event[name], null, name);
        assert.equal(event["reportingComponent"], "");
        assert.equal(event["reportingInstance"], "");
        assert.deepEqual(event["source"], {});
        const managed = JSON.stringify((event["metadata"] as Json)["managedFields"]);
        for (const name of ["eventTime", "reportingComponent", "source", "firstTimestamp"]) assert.ok(!managed.includes(`f:${name}`), `${name}: ${managed}`);
      });

      it("StatefulSet, DaemonSet and HPA v2 status carry their untagged zeros", () => {
        assert.deepEqual((read.get("StatefulSet") as Json)["status"], { replicas: 0, availableReplicas: 0 });
        assert.deepEqual((read.get("DaemonSet") as Json)["status"], {
          currentNumberScheduled: 0,
          numberMisscheduled: 0,
          desiredNumberScheduled: 0,
          numberReady: 0,
        });
        assert.deepEqual((read.get("HorizontalPodAutoscaler") as Json)["status"], { currentMetrics: null, desiredReplicas: 0 });
      });

      it("apply twice is unchanged the second time, and diff is empty", async () => {
        const first = await kubectl(["apply", "-n", "default", "-f", manifest]);
        assert.equal(first.code, 0, first.stderr);
        const second = await kubectl(["apply", "-n", "default", "-f", manifest]);
        assert.equal(second.code, 0, second.stderr);
        for (const line of second.stdout.trim().split("\n")) assert.match(line, / unchanged$/, second.stdout);
        const diff = await kubectl(["diff", "-n", "default", "-f", manifest]);
        assert.equal(diff.code, 0, `${diff.stdout}${diff.stderr}`);
        assert.equal(diff.stdout, "");
        const applied = await kubectl(["apply", "--server-side", "-n", "default", "-f", manifest, "--force-conflicts"]);
        assert.equal(applied.code, 0, applied.stderr);
        const again = await kubectl(["diff", "--server-side", "-n", "default", "-f", manifest, "--force-conflicts"]);
        assert.equal(again.code, 0, `${again.stdout}${again.stderr}`);
      });
    });
  }

  it('the Python client reads a core/v1 Event: event_time None, reporting_component ""', async () => {
    const { code, output } = await runPython(server().server.kubeconfigPath, "ev-127");
    assert.equal(code, 0, output);
    assert.deepEqual(JSON.parse(output.trim().split("\n").at(-1) ?? "{}"), {
      event_time: null,
      first_timestamp: null,
      last_timestamp: null,
      reporting_component: "",
      reporting_instance: "",
      source: { component: null, host: null },
      listed: true,
    });
  });
});
