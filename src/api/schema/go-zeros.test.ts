import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../testing/in-process.js";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../profile.js";
import { builtinProtoMessages } from "../proto/fields/index.js";
import { zeroKeptFields, zeroWrittenFields } from "../proto/presence.js";
import { builtinCatalogue } from "./catalogue.js";
import { ALWAYS_WRITTEN, INLINE_TYPES, OMITEMPTY_CHECKED } from "./go-zeros.js";
import type { SchemaNode } from "./node.js";

type Json = Record<string, unknown>;

const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
const APPLY = { "content-type": "application/apply-patch+yaml" };
const MERGE = { "content-type": "application/merge-patch+json" };
const STRATEGIC = { "content-type": "application/strategic-merge-patch+json" };
const JSON_PATCH = { "content-type": "application/json-patch+json" };

const deployment = (name: string, env: Json[]): Json => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name },
  spec: {
    replicas: 0,
    paused: false,
    selector: { matchLabels: { app: "z" } },
    template: {
      metadata: { labels: { app: "z" } },
      spec: {
        containers: [{ name: "c", image: "nginx", env, stdin: false, livenessProbe: { periodSeconds: 0, initialDelaySeconds: 0, tcpSocket: { port: 80 } } }],
      },
    },
  },
});

const containerOf = (object: Json): Json => ((((object["spec"] as Json)["template"] as Json)["spec"] as Json)["containers"] as Json[])[0] as Json;

describe("Go zero values on the JSON path (go-zeros.ts)", () => {
  it("names definitions the catalogue has and Go types the presence table knows", () => {
    const messages = builtinProtoMessages();
    for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
      const catalogue = builtinCatalogue(profile);
      const definitions = catalogue.definitions;
      const inline = new Set<string>();
      for (const [id, paths] of INLINE_TYPES) {
        const definition = definitions.get(id);
        assert.ok(definition !== undefined, `${id}: no such definition`);
        for (const [path, goType] of paths) {
          inline.add(goType);
          let node: SchemaNode | undefined = catalogue.resolve(definition);
          let last: SchemaNode | undefined;
          for (const segment of path.split(".")) {
            last = node?.properties?.[segment.replace(/\[\]$/, "")];
            if (segment.endsWith("[]")) last = last === undefined ? undefined : catalogue.resolve(last).items;
            node = last === undefined ? undefined : catalogue.resolve(last);
          }
          assert.equal(node?.type, "object", `${id}: ${path} is not an object`);
          assert.equal(last?.ref, undefined, `${id}: ${path} has a definition of its own`);
        }
      }
      for (const id of OMITEMPTY_CHECKED) {
        assert.ok(messages.has(id), `${id}: no such protobuf message`);
        if (!inline.has(id)) assert.ok(definitions.has(id), `${id}: no such definition`);
      }
      for (const id of ALWAYS_WRITTEN.keys()) assert.ok(definitions.has(id) || inline.has(id), `${id}: no such definition`);
    }
  });

  describe("every write path", () => {
    let server: Awaited<ReturnType<typeof inProcessServer>>;
    before(async () => {
      server = await inProcessServer({ profile: KUBERNETES_PROFILE });
    });
    after(async () => {
      await server.stop();
    });

    it("server-side apply owns the applied zeros, stores kube's object, and a second identical apply is a no-op", async () => {
      const body = JSON.stringify(deployment("applied", [{ name: "A", value: "" }]));
      const first = await server.call("PATCH", `${DEPLOYMENTS}/applied?fieldManager=me`, { body, headers: APPLY });
      assert.equal(first.status, 201, first.text);
      const container = containerOf(first.json);
      assert.deepEqual(container["env"], [{ name: "A" }]);
      assert.deepEqual(container["resources"], {});
      assert.equal(container["stdin"], undefined);
      assert.equal((container["livenessProbe"] as Json)["periodSeconds"], 10);
      assert.equal((first.json["spec"] as Json)["replicas"], 0);
      // kube's field manager records the applied configuration, zeros included.
      const managed = JSON.stringify((first.json["metadata"] as Json)["managedFields"]);
      for (const field of ['"f:value"', '"f:stdin"', '"f:paused"', '"f:initialDelaySeconds"']) assert.ok(managed.includes(field), `${field} owned: ${managed}`);
      const version = (first.json["metadata"] as Json)["resourceVersion"];
      // A second later, so that a rewritten managedFields time would show.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const second = await server.call("PATCH", `${DEPLOYMENTS}/applied?fieldManager=me`, { body, headers: APPLY });
      assert.equal(second.status, 200, second.text);
      assert.equal((second.json["metadata"] as Json)["resourceVersion"], version, "no-op");
      assert.deepEqual((second.json["metadata"] as Json)["managedFields"], (first.json["metadata"] as Json)["managedFields"]);
    });

    it("create, update and merge, strategic and JSON patches drop the zeros; a PUT of the same object is a no-op", async () => {
      const created = await server.call("POST", DEPLOYMENTS, { body: deployment("patched", [{ name: "A", value: "x" }]) });
      assert.equal(created.status, 201, created.text);
      assert.equal((created.json["spec"] as Json)["paused"], undefined);
      const patches: [Record<string, string>, unknown][] = [
        [MERGE, { spec: { minReadySeconds: 0, template: { spec: { hostNetwork: false } } } }],
        [STRATEGIC, { spec: { template: { spec: { containers: [{ name: "c", env: [{ name: "A", value: "" }], workingDir: "" }] } } } }],
        [JSON_PATCH, [{ op: "add", path: "/spec/template/spec/containers/0/tty", value: false }]],
      ];
      let last = created.json;
      for (const [headers, patch] of patches) {
        const answer = await server.call("PATCH", `${DEPLOYMENTS}/patched`, { body: JSON.stringify(patch), headers });
        assert.equal(answer.status, 200, answer.text);
        last = answer.json;
      }
      const spec = last["spec"] as Json;
      assert.equal(spec["minReadySeconds"], undefined);
      assert.equal(((spec["template"] as Json)["spec"] as Json)["hostNetwork"], undefined);
      const container = containerOf(last);
      assert.deepEqual(container["env"], [{ name: "A" }]);
      for (const gone of ["workingDir", "tty"]) assert.equal(container[gone], undefined, gone);
      // The same content sent again (zeros and all, keys in another order) writes nothing.
      const version = (last["metadata"] as Json)["resourceVersion"];
      const again = deployment("patched", [{ name: "A", value: "" }]);
      (again["metadata"] as Json)["resourceVersion"] = version;
      const put = await server.call("PUT", `${DEPLOYMENTS}/patched`, { body: { ...again, spec: { ...(again["spec"] as Json), minReadySeconds: 0 } } });
      assert.equal(put.status, 200, put.text);
      assert.equal((put.json["metadata"] as Json)["resourceVersion"], version, "no-op");
    });

    it("an embedded ObjectMeta is written with creationTimestamp: null (pod, job and claim templates), owned by no manager; a claim template starts Pending", async () => {
      const created = await server.call("POST", DEPLOYMENTS, { body: deployment("stamped", []) });
      assert.equal(created.status, 201, created.text);
      const template = (created.json["spec"] as Json)["template"] as Json;
      assert.deepEqual(template["metadata"], { creationTimestamp: null, labels: { app: "z" } });
      assert.ok(!JSON.stringify((created.json["metadata"] as Json)["managedFields"]).includes("creationTimestamp"));
      const podSpec = { containers: [{ name: "c", image: "busybox" }], restartPolicy: "OnFailure" };
      const cronJob = {
        apiVersion: "batch/v1",
        kind: "CronJob",
        metadata: { name: "cj" },
        spec: { schedule: "* * * * *", jobTemplate: { spec: { template: { spec: podSpec } } } },
      };
      const applied = await server.call("PATCH", "/apis/batch/v1/namespaces/default/cronjobs/cj?fieldManager=me", {
        body: JSON.stringify(cronJob),
        headers: APPLY,
      });
      assert.equal(applied.status, 201, applied.text);
      const jobTemplate = (applied.json["spec"] as Json)["jobTemplate"] as Json;
      assert.deepEqual(jobTemplate["metadata"], { creationTimestamp: null });
      assert.deepEqual(((jobTemplate["spec"] as Json)["template"] as Json)["metadata"], { creationTimestamp: null });
      assert.ok(!JSON.stringify((applied.json["metadata"] as Json)["managedFields"]).includes("creationTimestamp"));
      const again = await server.call("PATCH", "/apis/batch/v1/namespaces/default/cronjobs/cj?fieldManager=me", {
        body: JSON.stringify(cronJob),
        headers: APPLY,
      });
      assert.equal((again.json["metadata"] as Json)["resourceVersion"], (applied.json["metadata"] as Json)["resourceVersion"], "no-op");
      const claim = { metadata: { name: "www" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } };
      const statefulSet = {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { name: "web" },
        spec: {
          selector: { matchLabels: { app: "w" } },
          serviceName: "w",
          template: { metadata: { labels: { app: "w" } }, spec: podSpec },
          volumeClaimTemplates: [claim],
        },
      };
      const sts = await server.call("POST", "/apis/apps/v1/namespaces/default/statefulsets", {
        body: { ...statefulSet, spec: { ...statefulSet.spec, template: { ...statefulSet.spec.template, spec: { containers: podSpec.containers } } } },
      });
      assert.equal(sts.status, 201, sts.text);
      const [template0] = (sts.json["spec"] as Json)["volumeClaimTemplates"] as Json[];
      assert.deepEqual(template0?.["metadata"], { creationTimestamp: null, name: "www" });
      assert.deepEqual(template0?.["status"], { phase: "Pending" });
      const pod = await server.call("POST", "/api/v1/namespaces/default/pods", {
        body: { metadata: { name: "top" }, spec: { containers: podSpec.containers } },
      });
      assert.equal(typeof (pod.json["metadata"] as Json)["creationTimestamp"], "string");
    });

    it('a downward-API resourceFieldRef without divisor reads back divisor "0" (a non-pointer Quantity), in env and in volumes', async () => {
      const ref = { containerName: "c", resource: "limits.cpu" };
      const pod = {
        metadata: { name: "dapi" },
        spec: {
          containers: [{ name: "c", image: "busybox", env: [{ name: "CPU", valueFrom: { resourceFieldRef: ref } }] }],
          volumes: [
            {
              name: "podinfo",
              downwardAPI: {
                items: [
                  { path: "cpu", resourceFieldRef: ref },
                  { path: "m", resourceFieldRef: { ...ref, divisor: "1m" } },
                ],
              },
            },
          ],
        },
      };
      const created = await server.call("POST", "/api/v1/namespaces/default/pods", { body: pod });
      assert.equal(created.status, 201, created.text);
      const spec = created.json["spec"] as Json;
      const env = (((spec["containers"] as Json[])[0] as Json)["env"] as Json[])[0] as Json;
      assert.deepEqual((env["valueFrom"] as Json)["resourceFieldRef"], { ...ref, divisor: "0" });
      const volume = (spec["volumes"] as Json[]).find((item) => item["name"] === "podinfo") as Json;
      const items = (volume["downwardAPI"] as Json)["items"] as Json[];
      assert.deepEqual(
        items.map((item) => (item["resourceFieldRef"] as Json)["divisor"]),
        ["0", "1m"],
      );
    });
  });
});

describe("Go zeros written when absent (sweep 14: events, status types, conditions)", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  const EVENTS = "/api/v1/namespaces/default/events";
  const GROUP_EVENTS = "/apis/events.k8s.io/v1/namespaces/default/events";
  const event = (name: string): Json => ({
    apiVersion: "v1",
    kind: "Event",
    metadata: { name },
    involvedObject: { kind: "Pod", name: "p", namespace: "default" },
    reason: "Tested",
    message: "m",
    count: 0,
    type: "",
  });
  const withoutIdentity = (object: Json): Json => {
    const { metadata, ...rest } = object;
    return rest;
  };

  it("names written fields of checked definitions, each scalar also kept on the protobuf path", () => {
    const catalogue = builtinCatalogue(KUBERNETES_PROFILE);
    const kept = zeroKeptFields();
    const inline = new Map([...INLINE_TYPES.values()].flat().map(([path, goType]) => [goType, path]));
    const problems: string[] = [];
    for (const [id, names] of zeroWrittenFields()) {
      if (!OMITEMPTY_CHECKED.has(id)) problems.push(`${id}: not in OMITEMPTY_CHECKED`);
      const definition = catalogue.definitions.get(id);
      if (definition === undefined && !inline.has(id)) problems.push(`${id}: no definition`);
      for (const name of names) {
        const property = definition === undefined ? undefined : catalogue.resolve(definition).properties?.[name];
        if (definition !== undefined && property === undefined) problems.push(`${id}.${name}: no such property`);
        const type = property === undefined ? undefined : catalogue.resolve(property).type;
        const scalar = type === "integer" || type === "boolean" || (type === "string" && catalogue.resolve(property ?? {}).format === undefined);
        if (scalar && kept.get(id)?.has(name) !== true) problems.push(`${id}.${name}: a written scalar missing from ZERO_KEPT`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('core/v1 Event: eventTime, first/lastTimestamp null, reporting strings "", source {}; omitempty zeros gone; nobody owns the zeros', async () => {
    const created = await server.call("POST", `${EVENTS}?fieldManager=maker`, { body: event("e1") });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(withoutIdentity(created.json), {
      apiVersion: "v1",
      kind: "Event",
      involvedObject: { kind: "Pod", name: "p", namespace: "default" },
      reason: "Tested",
      message: "m",
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: null,
      reportingComponent: "",
      reportingInstance: "",
    });
    // ObjectReference is an atomic struct; the zeros are in kube's empty Event, so nobody owns them.
    const managed = (created.json["metadata"] as Json)["managedFields"] as Json[];
    assert.deepEqual((managed[0] as Json)["fieldsV1"], { "f:involvedObject": {}, "f:message": {}, "f:reason": {} });
    const read = await server.call("GET", `${GROUP_EVENTS}/e1`);
    assert.deepEqual(withoutIdentity(read.json), {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      regarding: { kind: "Pod", name: "p", namespace: "default" },
      reason: "Tested",
      note: "m",
      deprecatedSource: {},
      deprecatedFirstTimestamp: null,
      deprecatedLastTimestamp: null,
      eventTime: null,
    });
    // A PUT of what was read back, and one of the sent object, write nothing.
    const version = (created.json["metadata"] as Json)["resourceVersion"];
    for (const body of [created.json, { ...event("e1"), metadata: { name: "e1", resourceVersion: version } }]) {
      const put = await server.call("PUT", `${EVENTS}/e1?fieldManager=maker`, { body });
      assert.equal(put.status, 200, put.text);
      assert.equal((put.json["metadata"] as Json)["resourceVersion"], version, "no-op");
    }
  });

  it("events.k8s.io/v1 Event: its own zeros, and core's when read as core/v1", async () => {
    const body = {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name: "e2" },
      eventTime: "2026-11-28T10:00:00.000000Z",
      reportingController: "c",
      reportingInstance: "i",
      action: "A",
      reason: "R",
      type: "Normal",
      regarding: { kind: "Pod", name: "p", namespace: "default" },
      series: { lastObservedTime: "2026-11-28T10:00:00.000000Z", count: 2 },
      deprecatedCount: 0,
    };
    const created = await server.call("POST", GROUP_EVENTS, { body });
    assert.equal(created.status, 201, created.text);
    const { deprecatedCount: _count, ...rest } = body;
    assert.deepEqual(withoutIdentity(created.json), {
      ...withoutIdentity(rest),
      deprecatedSource: {},
      deprecatedFirstTimestamp: null,
      deprecatedLastTimestamp: null,
    });
    const core = await server.call("GET", `${EVENTS}/e2`);
    assert.equal((core.json as Json)["firstTimestamp"], null);
    assert.equal((core.json as Json)["reportingComponent"], "c");
    assert.deepEqual((core.json as Json)["source"], {});
  });

  it("status types: untagged counts written 0, omitempty ones dropped, HPA v2 currentMetrics null, condition times null", async () => {
    const template = { metadata: { labels: { app: "s" } }, spec: { containers: [{ name: "c", image: "nginx" }] } };
    const sts = await server.call("POST", "/apis/apps/v1/namespaces/default/statefulsets", {
      body: {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { name: "s" },
        spec: { selector: { matchLabels: { app: "s" } }, serviceName: "s", template },
      },
    });
    assert.equal(sts.status, 201, sts.text);
    assert.deepEqual(sts.json["status"], { replicas: 0, availableReplicas: 0 });
    const status = { readyReplicas: 0, currentRevision: "", conditions: [{ type: "Ready", status: "True", reason: "" }] };
    const put = await server.call("PUT", "/apis/apps/v1/namespaces/default/statefulsets/s/status", { body: { ...sts.json, status } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.json["status"], { replicas: 0, availableReplicas: 0, conditions: [{ type: "Ready", status: "True", lastTransitionTime: null }] });

    const ds = await server.call("POST", "/apis/apps/v1/namespaces/default/daemonsets", {
      body: { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "d" }, spec: { selector: { matchLabels: { app: "s" } }, template } },
    });
    assert.equal(ds.status, 201, ds.text);
    const dsStatus = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };
    assert.deepEqual(ds.json["status"], dsStatus);
    const dsPut = await server.call("PUT", "/apis/apps/v1/namespaces/default/daemonsets/d/status", { body: { ...ds.json, status: { numberAvailable: 0 } } });
    assert.deepEqual(dsPut.json["status"], dsStatus);

    const hpa = await server.call("POST", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", {
      body: {
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "h" },
        spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "StatefulSet", name: "s" }, minReplicas: 1, maxReplicas: 3 },
      },
    });
    assert.equal(hpa.status, 201, hpa.text);
    assert.deepEqual(hpa.json["status"], { currentMetrics: null, desiredReplicas: 0 });
    const v1 = await server.call("GET", "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/h");
    assert.deepEqual(v1.json["status"], { currentReplicas: 0, desiredReplicas: 0 });
    const hpaPut = await server.call("PUT", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/h/status", {
      body: { ...hpa.json, status: { currentReplicas: 0, desiredReplicas: 2, conditions: [{ type: "AbleToScale", status: "True" }] } },
    });
    assert.deepEqual(hpaPut.json["status"], {
      currentMetrics: null,
      desiredReplicas: 2,
      conditions: [{ type: "AbleToScale", status: "True", lastTransitionTime: null }],
    });

    const pod = await server.call("POST", "/api/v1/namespaces/default/pods", { body: { metadata: { name: "p" }, spec: template.spec } });
    assert.equal(pod.status, 201, pod.text);
    const podPut = await server.call("PUT", "/api/v1/namespaces/default/pods/p/status", {
      body: {
        ...pod.json,
        status: { ...(pod.json["status"] as Json), conditions: [{ type: "Ready", status: "False", lastTransitionTime: "2026-11-28T10:00:00Z" }] },
      },
    });
    assert.equal(podPut.status, 200, podPut.text);
    assert.deepEqual((podPut.json["status"] as Json)["conditions"], [
      { type: "Ready", status: "False", lastProbeTime: null, lastTransitionTime: "2026-11-28T10:00:00Z" },
    ]);
  });

  it("EndpointSlice endpoints/ports and a role's rules are written null when absent; an endpoint's conditions {}", async () => {
    const slice = await server.call("POST", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", {
      body: { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", metadata: { name: "sl" }, addressType: "IPv4" },
    });
    assert.equal(slice.status, 201, slice.text);
    assert.deepEqual(withoutIdentity(slice.json), {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      addressType: "IPv4",
      endpoints: null,
      ports: null,
    });
    const filled = await server.call("PUT", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/sl", {
      body: { ...slice.json, endpoints: [{ addresses: ["10.0.0.1"], deprecatedTopology: {} }], ports: [] },
    });
    assert.equal(filled.status, 200, filled.text);
    assert.deepEqual(filled.json["endpoints"], [{ addresses: ["10.0.0.1"], conditions: {} }]);
    assert.deepEqual(filled.json["ports"], []);
    const role = await server.call("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", {
      body: { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: "r" } },
    });
    assert.equal(role.status, 201, role.text);
    assert.equal(role.json["rules"], null);
    const aggregated = await server.call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", {
      body: {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: "agg" },
        rules: [{ nonResourceURLs: ["/x"], verbs: ["get"], apiGroups: [], resources: [] }],
      },
    });
    assert.equal(aggregated.status, 201, aggregated.text);
    assert.deepEqual(aggregated.json["rules"], [{ nonResourceURLs: ["/x"], verbs: ["get"] }]);
    assert.ok(!JSON.stringify((slice.json["metadata"] as Json)["managedFields"]).includes("f:endpoints"));
  });

  it("PriorityClass, StorageClass: untagged value written 0, omitempty zeros and empty lists and maps dropped", async () => {
    const priority = await server.call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", {
      body: { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: "zero" }, globalDefault: false, description: "" },
    });
    assert.equal(priority.status, 201, priority.text);
    assert.deepEqual(withoutIdentity(priority.json), {
      apiVersion: "scheduling.k8s.io/v1",
      kind: "PriorityClass",
      value: 0,
      preemptionPolicy: "PreemptLowerPriority",
    });
    const storage = await server.call("POST", "/apis/storage.k8s.io/v1/storageclasses", {
      body: {
        apiVersion: "storage.k8s.io/v1",
        kind: "StorageClass",
        metadata: { name: "sc" },
        provisioner: "x.io/p",
        parameters: {},
        mountOptions: [],
        allowVolumeExpansion: false,
      },
    });
    assert.equal(storage.status, 201, storage.text);
    assert.deepEqual(withoutIdentity(storage.json), {
      apiVersion: "storage.k8s.io/v1",
      kind: "StorageClass",
      provisioner: "x.io/p",
      allowVolumeExpansion: false,
      reclaimPolicy: "Delete",
      volumeBindingMode: "Immediate",
    });
  });

  // A Node's daemonEndpoints and nodeInfo zeros: src/registry/resources/core/node-status.test.ts.
  it("Service status: loadBalancer {} written when absent", async () => {
    const service = await server.call("POST", "/api/v1/namespaces/default/services", { body: { metadata: { name: "svc" }, spec: { ports: [{ port: 80 }] } } });
    assert.equal(service.status, 201, service.text);
    const statusPut = await server.call("PUT", "/api/v1/namespaces/default/services/svc/status", { body: { ...service.json, status: {} } });
    assert.equal(statusPut.status, 200, statusPut.text);
    assert.deepEqual(statusPut.json["status"], { loadBalancer: {} });
  });
});
