// Admission control as a user meets it through real kubectl v1.30: LimitRange defaults and maximum,
// ResourceQuota under 50 concurrent creates, PodSecurity enforce and warn, ServiceAccount, EventRateLimit.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { request, parseJson } from "./helpers/http.js";
import { kubectlFor, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";
import { startTestServer, useTestServer, type TestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: { containers: [{ name: "c", image: "busybox:1.36" }], ...spec },
});

describe("kubectl against admission control", () => {
  const server = useTestServer();
  let kubectl: Kubectl;
  let apply: (name: string, object: unknown, args?: readonly string[]) => Promise<KubectlResult>;

  before(() => {
    kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir);
    apply = (name, object, args = []) => {
      const file = join(server().dataDir, `${name}.json`);
      writeFileSync(file, JSON.stringify(object));
      return kubectl(["create", "-f", file, ...args]);
    };
  });

  it("LimitRange: defaults fill a pod's resources, a pod over the maximum is refused", async () => {
    ok(await kubectl(["create", "namespace", "limited"]));
    const range = {
      apiVersion: "v1",
      kind: "LimitRange",
      metadata: { name: "bounds" },
      spec: { limits: [{ type: "Container", default: { cpu: "300m" }, defaultRequest: { cpu: "100m" }, max: { cpu: "500m" } }] },
    };
    ok(await apply("range", range, ["-n", "limited"]));
    ok(await kubectl(["run", "small", "-n", "limited", "--image=busybox:1.36"]));
    assert.equal(
      ok(await kubectl(["get", "pod", "small", "-n", "limited", "-o", "jsonpath={.spec.containers[0].resources}"])),
      '{"limits":{"cpu":"300m"},"requests":{"cpu":"100m"}}',
    );
    const big = await apply("big", pod("big", { containers: [{ name: "c", image: "busybox:1.36", resources: { limits: { cpu: "2" } } }] }), ["-n", "limited"]);
    assert.notEqual(big.code, 0);
    assert.match(big.stderr, /pods "big" is forbidden: maximum cpu usage per Container is 500m, but limit is 2/);
  });

  it("ResourceQuota: 50 concurrent creates against pods: 10 admit exactly 10, and describe shows used/hard", async () => {
    ok(await kubectl(["create", "namespace", "quota"]));
    ok(await kubectl(["create", "quota", "pods", "-n", "quota", "--hard=pods=10"]));
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, index) => request(server().admin, "POST", "/api/v1/namespaces/quota/pods", { body: pod(`p${index}`), timeoutMs: 60_000 })),
    );
    assert.equal(results.filter((result) => result.status === 201).length, 10);
    assert.ok(results.filter((result) => result.status !== 201).every((result) => result.status === 403 && /exceeded quota: pods/.test(result.body)));
    const refused = await apply("one-more", pod("one-more"), ["-n", "quota"]);
    assert.match(refused.stderr, /pods "one-more" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=10, limited: pods=10/);
    assert.match(ok(await kubectl(["describe", "quota", "pods", "-n", "quota"])), /pods\s+10\s+10/);
  });

  it("PodSecurity: enforce refuses a privileged pod; warn admits with kubectl printing the warning", async () => {
    ok(await kubectl(["create", "namespace", "secure"]));
    ok(await kubectl(["label", "namespace", "secure", "pod-security.orch.io/enforce=baseline", "pod-security.orch.io/warn=restricted"]));
    const privileged = await apply(
      "privileged",
      pod("privileged", { containers: [{ name: "c", image: "busybox:1.36", securityContext: { privileged: true } }] }),
      ["-n", "secure"],
    );
    assert.notEqual(privileged.code, 0);
    assert.match(privileged.stderr, /violates PodSecurity "baseline:latest": privileged \(container "c" must not set securityContext.privileged=true\)/);
    const plain = await apply("plain", pod("plain"), ["-n", "secure"]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stderr, /Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false/);
  });

  it("PodSecurity on namespaces and workloads: an invalid label is refused, raising enforce warns about existing pods, a Deployment gets warn", async () => {
    ok(await kubectl(["create", "namespace", "raise"]));
    const invalid = await kubectl(["label", "namespace", "raise", "pod-security.orch.io/enforce=strict"]);
    assert.notEqual(invalid.code, 0);
    assert.match(
      invalid.stderr,
      /The Namespace "raise" is invalid: metadata\.labels\[pod-security\.orch\.io\/enforce\]: Invalid value: "strict": must be one of privileged, baseline, restricted/,
    );
    ok(await apply("raise-host", pod("host", { hostNetwork: true }), ["-n", "raise"]));
    const raised = await kubectl(["label", "namespace", "raise", "pod-security.orch.io/enforce=baseline"]);
    assert.equal(raised.code, 0, raised.stderr);
    assert.match(raised.stderr, /Warning: existing pods in namespace "raise" violate the new PodSecurity enforce level "baseline:latest"\n/);
    assert.match(raised.stderr, /Warning: host: host namespaces\n/);
    ok(await kubectl(["label", "namespace", "raise", "pod-security.orch.io/warn=restricted"]));
    const deployment = await kubectl(["create", "deployment", "web", "-n", "raise", "--image=busybox:1.36"]);
    assert.equal(deployment.code, 0, deployment.stderr);
    assert.match(deployment.stderr, /Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false/);
  });

  it("LimitRanger: the pod carries the limit-ranger annotation naming what it set", async () => {
    ok(await kubectl(["create", "namespace", "noted"]));
    const range = { apiVersion: "v1", kind: "LimitRange", metadata: { name: "r" }, spec: { limits: [{ type: "Container", defaultRequest: { cpu: "100m" } }] } };
    ok(await apply("noted-range", range, ["-n", "noted"]));
    ok(await kubectl(["run", "app", "-n", "noted", "--image=busybox:1.36"]));
    const annotations = JSON.parse(ok(await kubectl(["get", "pod", "app", "-n", "noted", "-o", "jsonpath={.metadata.annotations}"]))) as Record<string, string>;
    assert.equal(annotations["orch.io/limit-ranger"], "LimitRanger plugin set: cpu request for container app");
  });

  it("ServiceAccount: default account and its token volume once it exists; a missing named account is 403", async () => {
    ok(await kubectl(["create", "namespace", "accounts"]));
    // The serviceaccount controller creates `default` in the new namespace.
    await waitFor(async () => (await kubectl(["get", "serviceaccount", "default", "-n", "accounts"])).code === 0, { what: "the default ServiceAccount" });
    ok(await kubectl(["run", "worker", "-n", "accounts", "--image=busybox:1.36"]));
    assert.equal(ok(await kubectl(["get", "pod", "worker", "-n", "accounts", "-o", "jsonpath={.spec.serviceAccountName}"])), "default");
    const mount = ok(await kubectl(["get", "pod", "worker", "-n", "accounts", "-o", "jsonpath={.spec.containers[0].volumeMounts[0].mountPath}"]));
    assert.equal(mount, "/var/run/secrets/orch.io/serviceaccount");
    assert.match(ok(await kubectl(["get", "pod", "worker", "-n", "accounts", "-o", "jsonpath={.spec.volumes[0].name}"])), /^orch-api-access-[a-z0-9]{5}$/);
    const missing = await kubectl([
      "run",
      "ghost",
      "-n",
      "accounts",
      "--image=busybox:1.36",
      "--overrides",
      JSON.stringify({ spec: { serviceAccountName: "ghost" } }),
    ]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /pods "ghost" is forbidden: error looking up service account accounts\/ghost: serviceaccount "ghost" not found/);
  });
});

describe("EventRateLimit from --admission-control-config-file", () => {
  let running: TestServer;
  let dir = "";
  before(async () => {
    const { makeTempDir } = await import("./helpers/server.js");
    dir = makeTempDir("orch-admission-config-");
    writeFileSync(
      join(dir, "admission.yaml"),
      [
        "apiVersion: apiserver.config.orch.io/v1",
        "kind: AdmissionConfiguration",
        "plugins:",
        "- name: EventRateLimit",
        "  configuration:",
        "    apiVersion: eventratelimit.admission.orch.io/v1alpha1",
        "    kind: Configuration",
        "    limits:",
        "    - {type: Server, qps: 0.5, burst: 3}",
        "",
      ].join("\n"),
    );
    running = await startTestServer({
      admission: {
        enable: ["EventRateLimit"],
        disable: [],
        configFile: join(dir, "admission.yaml"),
        notReadyTolerationSeconds: 300,
        unreachableTolerationSeconds: 300,
      },
    });
  });
  after(async () => {
    await running.close();
    const { removeDir } = await import("./helpers/server.js");
    removeDir(dir);
  });

  it("over the burst is 429 with Retry-After", async () => {
    const event = (index: number) => ({
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: `e${index}` },
      involvedObject: { kind: "Pod", name: "p", namespace: "default" },
      reason: "Tested",
      message: "m",
    });
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof request>> | undefined;
    for (let index = 0; index < 4; index++) {
      const result = await request(running.admin, "POST", "/api/v1/namespaces/default/events", { body: event(index) });
      statuses.push(result.status);
      if (result.status === 429) limited = result;
    }
    assert.deepEqual(statuses, [201, 201, 201, 429]);
    assert.equal(limited?.headers["retry-after"], "2");
    assert.equal(parseJson(limited?.body ?? "{}")["reason"], "TooManyRequests");
  });
});
