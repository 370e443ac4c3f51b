import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../../profile.js";
import { inProcessServer } from "../../../testing/in-process.js";

const PODS = "/api/v1/namespaces/default/pods";

function pod(name: string, spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers: [{ name: "a", image: "x" }], ...spec } };
}

function container(extra: Record<string, unknown>): Record<string, unknown> {
  return { name: "a", image: "x", ...extra };
}

const QUALIFIED =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const ID_RANGE = "must be between 0 and 2147483647, inclusive";
const FILE_MODE = "must be a number between 0 and 0777 (octal), both inclusive";

describe("pod spec rules, as kube 1.30's ValidatePodSpec", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  async function refused(body: Record<string, unknown>, message: string): Promise<void> {
    const answer = await server.call("POST", PODS, { body });
    assert.equal(answer.status, 422, answer.text);
    assert.equal(answer.json["message"], message);
  }

  it("refuses tolerations with a value beside Exists, seconds without NoExecute, bad keys and values, and an empty key with Equal", async () => {
    const at = "spec.tolerations";
    await refused(
      pod("tol", {
        tolerations: [
          { key: "k", operator: "Exists", value: "v" },
          { key: "k", operator: "Equal", value: "v", effect: "NoSchedule", tolerationSeconds: 5 },
          { key: "bad key", value: "v" },
          { operator: "Equal", value: "v" },
          { key: "k", value: "bad value!" },
        ],
      }),
      `Pod "tol" is invalid: [${at}[0].operator: Invalid value: "v": value must be empty when \`operator\` is 'Exists', ` +
        `${at}[1].effect: Invalid value: "NoSchedule": effect must be 'NoExecute' when \`tolerationSeconds\` is set, ` +
        `${at}[2].key: Invalid value: "bad key": ${QUALIFIED}, ` +
        `${at}[3].operator: Invalid value: "Equal": operator must be Exists when \`key\` is empty, which means "match all values and all keys", ` +
        `${at}[4].operator: Invalid value: "bad value!": ${LABEL_VALUE}]`,
    );
    const ok = await server.call("POST", PODS, {
      body: pod("tol-ok", { tolerations: [{ operator: "Exists" }, { key: "k", effect: "NoExecute", tolerationSeconds: 5 }] }),
    });
    assert.equal(ok.status, 201, ok.text);
  });

  it("refuses bad node selector labels and affinity terms", async () => {
    await refused(pod("sel", { nodeSelector: { "bad key": "v" } }), `Pod "sel" is invalid: spec.nodeSelector: Invalid value: "bad key": ${QUALIFIED}`);
    const node = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
    await refused(
      pod("empty-terms", { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } } }),
      `Pod "empty-terms" is invalid: ${node}: Required value: must have at least one node selector term`,
    );
    const expressions = [
      { key: "k", operator: "In" },
      { key: "k", operator: "Exists", values: ["a"] },
      { key: "k", operator: "Gt", values: ["1", "2"] },
    ];
    await refused(
      pod("exprs", {
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: expressions }] } } },
      }),
      `Pod "exprs" is invalid: [${node}[0].matchExpressions[0].values: Required value: must be specified when \`operator\` is 'In' or 'NotIn', ` +
        `${node}[0].matchExpressions[1].values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist', ` +
        `${node}[0].matchExpressions[2].values: Required value: must be specified single value when \`operator\` is 'Lt' or 'Gt']`,
    );
    const term = "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]";
    await refused(
      pod("pod-aff", {
        affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, podAffinityTerm: { labelSelector: {} } }] } },
      }),
      `Pod "pod-aff" is invalid: [${term}.weight: Invalid value: 0: must be in the range 1-100, ` +
        `${term}.podAffinityTerm.topologyKey: Required value: can not be empty, ` +
        `${term}.podAffinityTerm.topologyKey: Invalid value: "": name part must be non-empty, ` +
        `${term}.podAffinityTerm.topologyKey: Invalid value: "": ${QUALIFIED}]`,
    );
    // A term's selector is judged once, where every LabelSelector is (two sweeps each added a check: it was reported twice).
    const required = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector";
    await refused(
      pod("pod-aff-selector", {
        affinity: {
          podAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "zone", labelSelector: { matchExpressions: [{ key: "a", operator: "Foo" }] } }],
          },
        },
      }),
      `Pod "pod-aff-selector" is invalid: ${required}.matchExpressions[0].operator: Invalid value: "Foo": not a valid selector operator`,
    );
  });

  it("refuses negative ids, bad sysctls and profiles, and no privilege escalation for a privileged container", async () => {
    await refused(
      pod("sc", {
        securityContext: { runAsUser: -1, fsGroup: -3, sysctls: [{ name: "Bad Name", value: "1" }], seccompProfile: { type: "Localhost" } },
        containers: [container({ securityContext: { allowPrivilegeEscalation: false, privileged: true, runAsGroup: -2 } })],
      }),
      `Pod "sc" is invalid: [spec.containers[0].securityContext.runAsGroup: Invalid value: -2: ${ID_RANGE}, ` +
        `spec.containers[0].securityContext: Invalid value: {"allowPrivilegeEscalation":false,"privileged":true,"runAsGroup":-2}: cannot set \`allowPrivilegeEscalation\` to false and \`privileged\` to true, ` +
        `spec.securityContext.fsGroup: Invalid value: -3: ${ID_RANGE}, spec.securityContext.runAsUser: Invalid value: -1: ${ID_RANGE}, ` +
        'spec.securityContext.sysctls[0].name: Invalid value: "Bad Name": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$, ' +
        "spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost]",
    );
    await refused(
      pod("share", { hostPID: true, shareProcessNamespace: true }),
      'Pod "share" is invalid: spec.securityContext.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled',
    );
    const nonRoot = await server.call("POST", PODS, { body: pod("non-root", { securityContext: { runAsNonRoot: true, runAsUser: 0 } }) });
    assert.equal(nonRoot.status, 201, "runAsNonRoot with runAsUser 0 is the kubelet's to refuse, not admission's");
  });

  it("checks probe handlers, host ports, port names and a regular container's restartPolicy", async () => {
    const at = "spec.containers[0]";
    await refused(
      pod("handlers", {
        containers: [
          container({
            livenessProbe: { exec: {} },
            readinessProbe: { httpGet: { port: 70000 }, terminationGracePeriodSeconds: 5 },
            startupProbe: { tcpSocket: { port: "bad_name" } },
            restartPolicy: "Always",
          }),
        ],
      }),
      `Pod "handlers" is invalid: [${at}.livenessProbe.exec.command: Required value, ${at}.readinessProbe.httpGet.port: Invalid value: 70000: must be between 1 and 65535, inclusive, ` +
        `${at}.readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes, ` +
        `${at}.startupProbe.tcpSocket.port: Invalid value: "bad_name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-), ` +
        `${at}.restartPolicy: Forbidden: may not be set for non-init containers]`,
    );
    await refused(
      pod("ports", {
        hostNetwork: true,
        containers: [
          container({
            ports: [
              { containerPort: 80, hostPort: 81, name: "123" },
              { containerPort: 82, hostPort: 81, name: "a--b" },
            ],
          }),
        ],
      }),
      `Pod "ports" is invalid: [${at}.ports[0].name: Invalid value: "123": must contain at least one letter (a-z), ${at}.ports[1].name: Invalid value: "a--b": must not contain consecutive hyphens, ` +
        `${at}.ports[1].hostPort: Duplicate value: "TCP//81", ${at}.ports[0].hostPort: Invalid value: 81: must match \`containerPort\` when \`hostNetwork\` is true, ` +
        `${at}.ports[1].hostPort: Invalid value: 81: must match \`containerPort\` when \`hostNetwork\` is true]`,
    );
  });

  it("accepts a host-network pod whose ports leave hostPort unset or 0, with or without limits (kube defaults it to the container port)", async () => {
    const answer = await server.call("POST", PODS, {
      body: pod("hostnet", {
        hostNetwork: true,
        initContainers: [container({ name: "init", ports: [{ containerPort: 90 }] })],
        containers: [container({ ports: [{ containerPort: 80 }, { containerPort: 81, hostPort: 0 }] })],
      }),
    });
    assert.equal(answer.status, 201, answer.text);
    const spec = answer.json["spec"] as { containers: { ports: { hostPort: number }[] }[]; initContainers: { ports: { hostPort: number }[] }[] };
    assert.deepEqual(
      spec.containers[0]?.ports.map((port) => port.hostPort),
      [80, 81],
    );
    assert.equal(spec.initContainers[0]?.ports[0]?.hostPort, 90);
  });

  it("takes the deprecated serviceAccount alias as the account name and writes the alias back, as kube's v1 conversion", async () => {
    const account = await server.call("POST", "/api/v1/namespaces/default/serviceaccounts", { body: { metadata: { name: "legacy" } } });
    assert.equal(account.status, 201, account.text);
    const aliased = await server.call("POST", PODS, { body: pod("alias", { serviceAccount: "legacy" }) });
    assert.equal(aliased.status, 201, aliased.text);
    const aliasedSpec = aliased.json["spec"] as Record<string, unknown>;
    assert.deepEqual([aliasedSpec["serviceAccountName"], aliasedSpec["serviceAccount"]], ["legacy", "legacy"]);
    const plain = await server.call("POST", PODS, { body: pod("alias-default", {}) });
    const plainSpec = plain.json["spec"] as Record<string, unknown>;
    assert.deepEqual([plainSpec["serviceAccountName"], plainSpec["serviceAccount"]], ["default", "default"]);
    const replaced = await server.call("PUT", `${PODS}/alias`, { body: aliased.json });
    assert.equal(replaced.status, 200, replaced.text);
    const template = (spec: Record<string, unknown>): Record<string, unknown> => ({
      selector: { matchLabels: { app: "a" } },
      template: { metadata: { labels: { app: "a" } }, spec: { containers: [{ name: "a", image: "x" }], ...spec } },
    });
    const deployments = "/apis/apps/v1/namespaces/default/deployments";
    for (const [name, spec, expected] of [
      ["alias-only", { serviceAccount: "legacy" }, ["legacy", "legacy"]],
      ["name-wins", { serviceAccount: "old", serviceAccountName: "legacy" }, ["legacy", "legacy"]],
      ["neither", {}, [undefined, undefined]],
    ] as const) {
      const answer = await server.call("POST", deployments, { body: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name }, spec: template(spec) } });
      assert.equal(answer.status, 201, answer.text);
      const podSpec = ((answer.json["spec"] as Record<string, unknown>)["template"] as Record<string, Record<string, unknown>>)["spec"] ?? {};
      assert.deepEqual([podSpec["serviceAccountName"], podSpec["serviceAccount"]], expected, name);
    }
  });

  it("stores quantities given as numbers as kube's canonical strings (cpu: 1, memory ratio 2, 1.5)", async () => {
    const answer = await server.call("POST", PODS, {
      body: pod("numeric-quantities", {
        containers: [container({ resources: { limits: { cpu: 1, "nvidia.com/gpu": 1, memory: 1.5e9 }, requests: { cpu: 0.5 } } })],
      }),
    });
    assert.equal(answer.status, 201, answer.text);
    const resources = ((answer.json["spec"] as Record<string, unknown[]>)["containers"]?.[0] as Record<string, unknown>)["resources"];
    assert.deepEqual(resources, {
      limits: { cpu: "1", "nvidia.com/gpu": "1", memory: "1500M" },
      requests: { cpu: "500m", "nvidia.com/gpu": "1", memory: "1500M" },
    });
    const range = await server.call("POST", "/api/v1/namespaces/default/limitranges", {
      body: { metadata: { name: "ratio" }, spec: { limits: [{ type: "Pod", maxLimitRequestRatio: { memory: 2 } }] } },
    });
    assert.equal(range.status, 201, range.text);
    assert.deepEqual((range.json["spec"] as Record<string, unknown>)["limits"], [{ type: "Pod", maxLimitRequestRatio: { memory: "2" } }]);
    await server.call("DELETE", "/api/v1/namespaces/default/limitranges/ratio");
  });

  it("checks volume sources and mount sub-paths, and defaults file modes and token lifetimes", async () => {
    await refused(
      pod("vols", {
        volumes: [
          { name: "h", hostPath: { path: "../etc" } },
          { name: "s", secret: { secretName: "s", defaultMode: 1000, items: [{ key: "k", path: "/abs", mode: -1 }] } },
          {
            name: "p",
            projected: { sources: [{ secret: { name: "s" }, configMap: { name: "c" } }, { serviceAccountToken: { expirationSeconds: 60, path: "t" } }] },
          },
          { name: "e", emptyDir: {} },
        ],
        containers: [
          container({
            volumeMounts: [
              { name: "e", mountPath: "/a", subPath: "/abs" },
              { name: "e", mountPath: "/b", subPath: "x", subPathExpr: "y" },
              { name: "h", mountPath: "/c" },
            ],
          }),
        ],
      }),
      'Pod "vols" is invalid: [spec.volumes[0].hostPath.path: Invalid value: "../etc": must not contain \'..\', ' +
        `spec.volumes[1].secret.defaultMode: Invalid value: 1000: ${FILE_MODE}, spec.volumes[1].secret.items[0].path: Invalid value: "/abs": must be a relative path, ` +
        `spec.volumes[1].secret.items[0].mode: Invalid value: -1: ${FILE_MODE}, spec.volumes[2].projected.sources[0]: Forbidden: may not specify more than 1 volume type per source, ` +
        "spec.volumes[2].projected.sources[1].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes, " +
        'spec.containers[0].volumeMounts[2].name: Not found: "h", spec.containers[0].volumeMounts.subPath: Invalid value: "/abs": must be a relative path, ' +
        'spec.containers[0].volumeMounts[1].subPathExpr: Invalid value: "y": subPathExpr and subPath are mutually exclusive]',
    );
    const ok = await server.call("POST", PODS, {
      body: pod("vols-ok", {
        volumes: [
          { name: "s", secret: { secretName: "s" } },
          { name: "p", projected: { sources: [{ serviceAccountToken: { path: "token" } }] } },
        ],
      }),
    });
    assert.equal(ok.status, 201, ok.text);
    const volumes = (ok.json["spec"] as { volumes: Record<string, unknown>[] }).volumes;
    assert.deepEqual(volumes[0], { name: "s", secret: { secretName: "s", defaultMode: 420 } });
    assert.deepEqual(volumes[1], {
      name: "p",
      projected: { defaultMode: 420, sources: [{ serviceAccountToken: { path: "token", expirationSeconds: 3600 } }] },
    });
  });

  it("reports a downward API file without a path once (the schema's Required), in a volume or a projection", async () => {
    await refused(
      pod("dapi", {
        volumes: [
          { name: "a", downwardAPI: { items: [{ fieldRef: { fieldPath: "metadata.name" } }] } },
          { name: "b", projected: { sources: [{ downwardAPI: { items: [{ path: "", fieldRef: { fieldPath: "metadata.name" } }] } }] } },
        ],
      }),
      'Pod "dapi" is invalid: [spec.volumes[0].downwardAPI.items[0].path: Required value, spec.volumes[1].projected.sources[0].downwardAPI.items[0].path: Required value]',
    );
  });

  it("checks the deadline, host names and DNS settings", async () => {
    await refused(
      pod("scalars", { activeDeadlineSeconds: 0, hostname: "Bad_Host", dnsPolicy: "None" }),
      'Pod "scalars" is invalid: [spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None, ' +
        "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive, " +
        "spec.hostname: Invalid value: \"Bad_Host\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]",
    );
    await refused(
      pod("dns", { dnsConfig: { nameservers: ["1.1.1.1", "2.2.2.2", "3.3.3.3", "bad"], options: [{ value: "x" }] } }),
      'Pod "dns" is invalid: [spec.dnsConfig.nameservers: Invalid value: []string{"1.1.1.1", "2.2.2.2", "3.3.3.3", "bad"}: must not have more than 3 nameservers, ' +
        'spec.dnsConfig.nameservers[3]: Invalid value: "bad": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff), spec.dnsConfig.options[0]: Required value: must not be empty]',
    );
  });

  it("checks the pod spec inside workload templates too, where host ports may stay unset", async () => {
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d" },
      spec: {
        selector: { matchLabels: { a: "b" } },
        template: {
          metadata: { labels: { a: "b" } },
          spec: { hostNetwork: true, tolerations: [{ key: "k", operator: "Exists", value: "v" }], containers: [container({ ports: [{ containerPort: 80 }] })] },
        },
      },
    };
    const answer = await server.call("POST", "/apis/apps/v1/namespaces/default/deployments", { body: deployment });
    assert.equal(answer.status, 422, answer.text);
    assert.equal(
      answer.json["message"],
      'Deployment.apps "d" is invalid: spec.template.spec.tolerations[0].operator: Invalid value: "v": value must be empty when `operator` is \'Exists\'',
    );
  });

  it("lets controllers write the status of objects stored before a spec rule existed, as kube's status updates judge only the status", async () => {
    const merge = { "content-type": "application/merge-patch+json" };
    const legacySpec = { containers: [container({})], tolerations: [{ key: "k", operator: "Exists", value: "v" }] };
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "legacy", namespace: "default", uid: "0f0f0f0f-0000-4000-8000-0000000000d1", creationTimestamp: "2026-01-01T00:00:00Z", generation: 1 },
      spec: { replicas: 1, selector: { matchLabels: { a: "b" } }, template: { metadata: { labels: { a: "b" } }, spec: legacySpec } },
      status: {},
    };
    await server.storage.create("/deployments/default/legacy", JSON.stringify(deployment));
    const status = await server.call("PATCH", "/apis/apps/v1/namespaces/default/deployments/legacy/status", {
      headers: merge,
      body: { status: { observedGeneration: 1 } },
    });
    assert.equal(status.status, 200, status.text);
    // A write of the object itself is judged whole, as kube's update is.
    const update = await server.call("PATCH", "/apis/apps/v1/namespaces/default/deployments/legacy", {
      headers: merge,
      body: { metadata: { labels: { x: "y" } } },
    });
    assert.equal(update.status, 422, update.text);
    assert.match(String(update.json["message"]), /spec\.template\.spec\.tolerations\[0\]\.operator: Invalid value: "v"/);
  });

  it("refuses namespace finalizers that are neither qualified nor standard", async () => {
    const answer = await server.call("POST", "/api/v1/namespaces", {
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "fin" }, spec: { finalizers: ["bad finalizer", "foo", "example.com/ok"] } },
    });
    assert.equal(answer.status, 422, answer.text);
    assert.equal(
      answer.json["message"],
      `Namespace "fin" is invalid: [spec.finalizers: Invalid value: "bad finalizer": ${QUALIFIED}, ` +
        'spec.finalizers: Invalid value: "bad finalizer": name is neither a standard finalizer name nor is it fully qualified, ' +
        'spec.finalizers: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified]',
    );
  });
});
