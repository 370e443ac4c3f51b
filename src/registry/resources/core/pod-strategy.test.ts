import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ORCH_PROFILE } from "../../../api/profile.js";
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

describe("ephemeral containers (kube's ValidatePodCreate and ValidatePodEphemeralContainersUpdate)", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer({ admission: { disable: POD_MUTATORS } });
  });
  after(async () => {
    await server.stop();
  });

  const debug: Json = { name: "debug", image: "busybox:1.36", targetContainerName: "c", command: ["sh"] };
  let counter = 0;
  /** A pod with one ephemeral container added through the sub-resource, as `kubectl debug` does. */
  async function debuggedPod(): Promise<string> {
    const name = `e${counter++}`;
    const created = await server.call("POST", PODS, { body: podBody(name, { containers: [{ name: "c", image: "busybox:1.36" }] }) });
    assert.equal(created.status, 201, created.text);
    const added = await ephemeral(name, [debug]);
    assert.equal(added.status, 200, added.text);
    return name;
  }
  function ephemeral(name: string, containers: Json[]) {
    return server.call("PATCH", `${PODS}/${name}/ephemeralcontainers`, {
      body: { spec: { ephemeralContainers: containers } },
      headers: { "content-type": "application/merge-patch+json" },
    });
  }
  function causes(response: { json: Json }): [unknown, unknown][] {
    const details = response.json["details"] as Json;
    return (details["causes"] as Json[]).map((cause) => [cause["field"], cause["message"]]);
  }

  it("refuses a pod created with ephemeral containers", async () => {
    const created = await server.call("POST", PODS, {
      body: podBody("born-debugged", { containers: [{ name: "c", image: "busybox:1.36" }], ephemeralContainers: [{ name: "e", image: "busybox:1.36" }] }),
    });
    assert.equal(created.status, 422, created.text);
    assert.deepEqual(causes(created), [["spec.ephemeralContainers", "Forbidden: cannot be set on create"]]);
  });

  it("adds a second one and keeps the first", async () => {
    const name = await debuggedPod();
    const stored = await server.call("GET", `${PODS}/${name}`);
    const first = ((stored.json["spec"] as Json)["ephemeralContainers"] as Json[])[0] ?? {};
    const added = await ephemeral(name, [first, { name: "debug2", image: "busybox:1.36" }]);
    assert.equal(added.status, 200, added.text);
  });

  it("refuses removing an ephemeral container", async () => {
    const name = await debuggedPod();
    const removed = await ephemeral(name, [{ name: "other", image: "busybox:1.36" }]);
    assert.equal(removed.status, 422, removed.text);
    assert.deepEqual(causes(removed), [["spec.ephemeralContainers", 'Forbidden: existing ephemeral containers "debug" may not be removed\n']]);
  });

  it("refuses changing an ephemeral container", async () => {
    const name = await debuggedPod();
    const stored = await server.call("GET", `${PODS}/${name}`);
    const first = ((stored.json["spec"] as Json)["ephemeralContainers"] as Json[])[0] ?? {};
    const changed = await ephemeral(name, [{ ...first, image: "alpine:3" }]);
    assert.equal(changed.status, 422, changed.text);
    assert.deepEqual(causes(changed), [["spec.ephemeralContainers", 'Forbidden: existing ephemeral containers "debug" may not be changed\n']]);
  });

  it("refuses the fields an ephemeral container may not set and a missing target", async () => {
    const name = await debuggedPod();
    const stored = await server.call("GET", `${PODS}/${name}`);
    const first = ((stored.json["spec"] as Json)["ephemeralContainers"] as Json[])[0] ?? {};
    const bad: Json = {
      name: "bad",
      image: "busybox:1.36",
      targetContainerName: "nope",
      ports: [{ containerPort: 80 }],
      resources: { limits: { cpu: "1" } },
      livenessProbe: { exec: { command: ["true"] } },
      lifecycle: { preStop: { exec: { command: ["true"] } } },
      volumeMounts: [{ name: "v", mountPath: "/v", subPath: "a" }],
    };
    const refused = await ephemeral(name, [first, bad]);
    assert.equal(refused.status, 422, refused.text);
    const forbidden = "Forbidden: cannot be set for an Ephemeral Container";
    assert.deepEqual(
      causes(refused).filter(([field]) => String(field).startsWith("spec.ephemeralContainers[1]") && !String(field).endsWith(".name")),
      [
        ["spec.ephemeralContainers[1].targetContainerName", 'Not found: "nope"'],
        ["spec.ephemeralContainers[1].ports", forbidden],
        ["spec.ephemeralContainers[1].resources", forbidden],
        ["spec.ephemeralContainers[1].livenessProbe", forbidden],
        ["spec.ephemeralContainers[1].lifecycle", forbidden],
        ["spec.ephemeralContainers[1].volumeMounts[0].subPath", forbidden],
      ],
    );
  });

  it("refuses ephemeral containers on a static pod's mirror, alone, at kube's root path", async () => {
    const created = await server.call("POST", PODS, {
      body: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "mirror", annotations: { [`${ORCH_PROFILE.keyDomain}/config.mirror`]: "hash" } },
        spec: { nodeName: "n1", containers: [{ name: "c", image: "busybox:1.36" }] },
      },
    });
    assert.equal(created.status, 201, created.text);
    const refused = await ephemeral("mirror", [debug]);
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.json["message"], 'Pod "mirror" is invalid: []: Forbidden: static pods do not support ephemeral containers');
  });

  it("accepts what kubectl debug sends: empty resources, env, a security context, stdin and tty", async () => {
    const name = await debuggedPod();
    const stored = await server.call("GET", `${PODS}/${name}`);
    const first = ((stored.json["spec"] as Json)["ephemeralContainers"] as Json[])[0] ?? {};
    const second: Json = {
      name: "d2",
      image: "busybox:1.36",
      resources: {},
      env: [{ name: "A", value: "1" }],
      securityContext: { privileged: false },
      stdin: true,
      tty: true,
    };
    const added = await ephemeral(name, [first, second]);
    assert.equal(added.status, 200, added.text);
  });
});

describe("volume mounts (kube's ValidateVolumeMounts)", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer({ admission: { disable: POD_MUTATORS } });
  });
  after(async () => {
    await server.stop();
  });

  it("refuses a mount of an undeclared volume, a mount without a path and a repeated path; pod templates too", async () => {
    const spec: Json = {
      volumes: [{ name: "data", emptyDir: {} }],
      containers: [
        {
          name: "c",
          image: "busybox:1.36",
          volumeMounts: [
            { name: "data", mountPath: "/data" },
            { name: "nope", mountPath: "/data" },
            { name: "data", mountPath: "" },
          ],
        },
      ],
    };
    const created = await server.call("POST", PODS, { body: podBody("mounts", spec) });
    assert.equal(created.status, 422, created.text);
    const causes = ((created.json["details"] as Json)["causes"] as Json[]).map((cause) => `${String(cause["field"])}: ${String(cause["message"])}`);
    assert.deepEqual(causes, [
      'spec.containers[0].volumeMounts[1].name: Not found: "nope"',
      'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/data": must be unique',
      "spec.containers[0].volumeMounts[2].mountPath: Required value",
    ]);
    const deployment = await server.call("POST", "/apis/apps/v1/namespaces/default/deployments", {
      body: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "mounts" },
        spec: {
          selector: { matchLabels: { app: "m" } },
          template: {
            metadata: { labels: { app: "m" } },
            spec: { containers: [{ name: "c", image: "busybox:1.36", volumeMounts: [{ name: "gone", mountPath: "/g" }] }] },
          },
        },
      },
    });
    assert.equal(deployment.status, 422, deployment.text);
    assert.match(String(deployment.json["message"]), /spec\.template\.spec\.containers\[0\]\.volumeMounts\[0\]\.name: Not found: "gone"/);
  });

  it("accepts mounts of declared volumes", async () => {
    const created = await server.call("POST", PODS, {
      body: podBody("mounted", {
        volumes: [{ name: "data", emptyDir: {} }],
        containers: [{ name: "c", image: "busybox:1.36", volumeMounts: [{ name: "data", mountPath: "/data" }] }],
        initContainers: [{ name: "i", image: "busybox:1.36", volumeMounts: [{ name: "data", mountPath: "/data" }] }],
      }),
    });
    assert.equal(created.status, 201, created.text);
  });
});

describe("AppArmor annotations and fields on create (kube 1.30's applyAppArmorVersionSkew)", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer({ admission: { disable: POD_MUTATORS } });
  });
  after(async () => {
    await server.stop();
  });
  const KEY = `container.apparmor.security.beta.${ORCH_PROFILE.keyDomain}/`;

  it("turns a create's annotation into the field, with kube's warning, and a field into the annotation", async () => {
    const created = await server.call("POST", PODS, {
      body: {
        ...podBody("aa-sync", {
          containers: [
            { name: "annotated", image: "busybox:1.36" },
            { name: "field", image: "busybox:1.36", securityContext: { appArmorProfile: { type: "Localhost", localhostProfile: "deny-write" } } },
          ],
        }),
        metadata: { name: "aa-sync", annotations: { [`${KEY}annotated`]: "runtime/default" } },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual([created.headers["warning"]].flat(), [
      `299 - "metadata.annotations[${KEY}annotated]: deprecated since v1.30; use the \\"appArmorProfile\\" field instead"`,
    ]);
    const stored = await server.call("GET", `${PODS}/aa-sync`);
    const annotations = (stored.json["metadata"] as Json)["annotations"];
    assert.deepEqual(annotations, { [`${KEY}annotated`]: "runtime/default", [`${KEY}field`]: "localhost/deny-write" });
    const containers = (stored.json["spec"] as Json)["containers"] as Json[];
    assert.deepEqual(
      containers.map((container) => (container["securityContext"] as Json)["appArmorProfile"]),
      [{ type: "RuntimeDefault" }, { type: "Localhost", localhostProfile: "deny-write" }],
    );
  });

  it("refuses an annotation that contradicts the field, at kube's path", async () => {
    const created = await server.call("POST", PODS, {
      body: {
        ...podBody("aa-mismatch", { containers: [{ name: "c", image: "busybox:1.36", securityContext: { appArmorProfile: { type: "Unconfined" } } }] }),
        metadata: { name: "aa-mismatch", annotations: { [`${KEY}c`]: "runtime/default" } },
      },
    });
    assert.equal(created.status, 422, created.text);
    assert.equal(
      created.json["message"],
      'Pod "aa-mismatch" is invalid: spec.containers[0].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match',
    );
  });

  it("refuses adding, changing or removing AppArmor and mirror-pod annotations on update (kube's ValidatePodSpecificAnnotationUpdates)", async () => {
    const MIRROR = `${ORCH_PROFILE.keyDomain}/config.mirror`;
    const created = await server.call("POST", PODS, {
      body: {
        ...podBody("aa-update", { containers: [{ name: "c", image: "busybox:1.36" }] }),
        metadata: { name: "aa-update", annotations: { [`${KEY}c`]: "unconfined" } },
      },
    });
    assert.equal(created.status, 201, created.text);
    const patch = (annotations: Json) =>
      server.call("PATCH", `${PODS}/aa-update`, { body: { metadata: { annotations } }, headers: { "content-type": "application/merge-patch+json" } });
    const added = await patch({ [`${KEY}d`]: "unconfined", [MIRROR]: "x" });
    assert.equal(added.status, 422, added.text);
    assert.equal(
      added.json["message"],
      // kube's order: the update rules, then ValidatePodSpecificAnnotations of the new pod (the mirror annotation wants a node too).
      `Pod "aa-update" is invalid: [metadata.annotations[${KEY}d]: Forbidden: may not add AppArmor annotations, metadata.annotations[${MIRROR}]: Forbidden: may not add mirror pod annotation, metadata.annotations[${MIRROR}]: Invalid value: "x": must set spec.nodeName if mirror pod annotation is set, metadata.annotations[${KEY}d]: Invalid value: "d": container not found]`,
    );
    for (const annotations of [{ [`${KEY}c`]: "runtime/default" }, { [`${KEY}c`]: null }]) {
      const refused = await patch(annotations);
      assert.equal(refused.status, 422, refused.text);
      assert.equal(
        refused.json["message"],
        `Pod "aa-update" is invalid: metadata.annotations[${KEY}c]: Forbidden: may not remove or update AppArmor annotations`,
      );
    }
    // Other annotations stay free, and the stored AppArmor one is kept as it was.
    const other = await patch({ note: "fine" });
    assert.equal(other.status, 200, other.text);
    assert.deepEqual((other.json["metadata"] as Json)["annotations"], { [`${KEY}c`]: "unconfined", note: "fine" });
  });
});
