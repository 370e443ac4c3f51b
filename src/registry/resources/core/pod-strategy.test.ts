import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../../testing/in-process.js";

const POD_MUTATORS = ["LimitRanger", "ServiceAccount", "Priority", "DefaultTolerationSeconds"];

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

const PODS = "/api/v1/namespaces/default/pods";

function podBody(name: string, spec: Json): Json {
  return { apiVersion: "v1", kind: "Pod", metadata: { name }, spec };
}

describe("pod defaulting and update rules (kube 1.30)", () => {
  let server: Server;
  before(async () => {
    // The strategy alone: without the admission plugins that add tolerations, volumes and priority to pods.
    server = await inProcessServer({ admission: { disable: POD_MUTATORS } });
  });
  after(async () => {
    await server.stop();
  });

  const defaults: [string, Json, (spec: Json) => unknown, unknown][] = [
    ["restartPolicy", {}, (spec) => spec["restartPolicy"], "Always"],
    ["dnsPolicy", {}, (spec) => spec["dnsPolicy"], "ClusterFirst"],
    ["terminationGracePeriodSeconds", {}, (spec) => spec["terminationGracePeriodSeconds"], 30],
    ["schedulerName", {}, (spec) => spec["schedulerName"], "default-scheduler"],
    ["securityContext", {}, (spec) => spec["securityContext"], {}],
    ["enableServiceLinks", {}, (spec) => spec["enableServiceLinks"], true],
    ["terminationMessagePath", {}, (spec) => container(spec)["terminationMessagePath"], "/dev/termination-log"],
    ["terminationMessagePolicy", {}, (spec) => container(spec)["terminationMessagePolicy"], "File"],
    ["imagePullPolicy untagged", { image: "nginx" }, (spec) => container(spec)["imagePullPolicy"], "Always"],
    ["imagePullPolicy latest", { image: "nginx:latest" }, (spec) => container(spec)["imagePullPolicy"], "Always"],
    ["imagePullPolicy tagged", { image: "registry:5000/nginx:1.25" }, (spec) => container(spec)["imagePullPolicy"], "IfNotPresent"],
    ["port protocol", { ports: [{ containerPort: 80 }] }, (spec) => (container(spec)["ports"] as Json[])[0]?.["protocol"], "TCP"],
    [
      "probe timings and HTTP action",
      { readinessProbe: { httpGet: { port: 8080 } } },
      (spec) => container(spec)["readinessProbe"],
      { httpGet: { port: 8080, path: "/", scheme: "HTTP" }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
    ],
    [
      "requests from limits",
      { resources: { limits: { cpu: "500m", memory: "1Gi" } } },
      (spec) => (container(spec)["resources"] as Json)["requests"],
      { cpu: "500m", memory: "1Gi" },
    ],
  ];
  for (const [name, extra, read, expected] of defaults) {
    it(`defaults ${name}`, async () => {
      const created = await server.call("POST", PODS, {
        body: podBody(`d-${name.replace(/[^a-z]/gi, "").toLowerCase()}`, { containers: [{ name: "c", image: "busybox:1.36", ...extra }] }),
      });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(read(created.json["spec"] as Json), expected);
    });
  }

  type Change = (spec: Json) => void;
  const allowed: [string, Json, Change][] = [
    ["the image", {}, (spec) => void (container(spec)["image"] = "busybox:1.37")],
    ["activeDeadlineSeconds set and lowered", { activeDeadlineSeconds: 100 }, (spec) => void (spec["activeDeadlineSeconds"] = 50)],
    [
      "an added toleration",
      { tolerations: [{ key: "a", operator: "Exists" }] },
      (spec) =>
        void (spec["tolerations"] = [
          { key: "a", operator: "Exists" },
          { key: "b", operator: "Exists" },
        ]),
    ],
    ["a removed scheduling gate", { schedulingGates: [{ name: "wait" }] }, (spec) => void (spec["schedulingGates"] = [])],
    ["a node selector added while gated", { schedulingGates: [{ name: "wait" }] }, (spec) => void (spec["nodeSelector"] = { zone: "a" })],
  ];
  const refused: [string, Json, Change, string][] = [
    [
      "restartPolicy",
      {},
      (spec) => void (spec["restartPolicy"] = "Never"),
      "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`",
    ],
    [
      "a container's env",
      {},
      (spec) => void (container(spec)["env"] = [{ name: "A", value: "1" }]),
      "spec: Forbidden: pod updates may not change fields other than",
    ],
    [
      "activeDeadlineSeconds raised",
      { activeDeadlineSeconds: 100 },
      (spec) => void (spec["activeDeadlineSeconds"] = 200),
      "spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value",
    ],
    [
      "activeDeadlineSeconds removed",
      { activeDeadlineSeconds: 100 },
      (spec) => void delete spec["activeDeadlineSeconds"],
      "must not update from a positive integer to nil value",
    ],
    [
      "a removed toleration",
      { tolerations: [{ key: "a", operator: "Exists" }] },
      (spec) => void (spec["tolerations"] = []),
      "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds",
    ],
    [
      "an added scheduling gate",
      {},
      (spec) => void (spec["schedulingGates"] = [{ name: "late" }]),
      "spec.schedulingGates: Forbidden: only deletion is allowed, but found new scheduling gate 'late'",
    ],
    ["the node name", {}, (spec) => void (spec["nodeName"] = "n1"), "spec: Forbidden: pod updates may not change fields other than"],
  ];
  let counter = 0;
  async function createAndUpdate(extra: Json, change: Change) {
    const name = `u${counter++}`;
    const created = await server.call("POST", PODS, { body: podBody(name, { containers: [{ name: "c", image: "busybox:1.36" }], ...extra }) });
    assert.equal(created.status, 201, created.text);
    const pod = created.json;
    change(pod["spec"] as Json);
    return server.call("PUT", `${PODS}/${name}`, { body: pod });
  }
  for (const [name, extra, change] of allowed) {
    it(`lets an update change ${name}`, async () => {
      const updated = await createAndUpdate(extra, change);
      assert.equal(updated.status, 200, updated.text);
    });
  }
  for (const [name, extra, change, message] of refused) {
    it(`refuses an update of ${name} with kube's message`, async () => {
      const updated = await createAndUpdate(extra, change);
      assert.equal(updated.status, 422, updated.text);
      assert.equal(updated.json["reason"], "Invalid");
      assert.ok(String(updated.json["message"]).includes(message), String(updated.json["message"]));
    });
  }
});

function container(spec: Json): Json {
  return (spec["containers"] as Json[])[0] ?? {};
}
