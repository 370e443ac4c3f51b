import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { FlagError, parseArgs } from "../cli/flags.js";
import { inProcessServer } from "../testing/in-process.js";
import { AdmissionChain } from "./chain.js";
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from "./interface.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;

const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: { containers: [{ name: "c", image: "busybox" }], ...spec },
});
const specOf = (json: Record<string, unknown>) => json["spec"] as Record<string, unknown>;
const containerOf = (json: Record<string, unknown>) => (specOf(json)["containers"] as Record<string, unknown>[])[0] ?? {};
const causesOf = (json: Record<string, unknown>) =>
  ((json["details"] as Record<string, unknown> | undefined)?.["causes"] ?? []) as { reason?: string; message: string }[];

async function namespace(server: Server, name: string, labels: Record<string, string> = {}): Promise<void> {
  const response = await server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name, labels } } });
  assert.equal(response.status, 201, response.text);
}

describe("admission chain, default plugins (in process)", () => {
  let server: Server;
  before(async () => {
    // Without the serviceaccount controller: the ServiceAccount plugin is shown before and after `default` exists.
    server = await inProcessServer({ controllers: ["*", "-serviceaccount"] });
  });
  after(() => server.stop());

  it("first start: a LimitRange in default gives containers a 0.1 CPU request (QoS follows)", async () => {
    const created = await server.call("POST", "/api/v1/namespaces/default/pods", { body: pod("first") });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual((containerOf(created.json)["resources"] as Record<string, unknown>)["requests"], { cpu: "100m" });
    assert.equal((created.json["status"] as Record<string, unknown>)["qosClass"], "Burstable");
  });

  it("LimitRanger: defaults applied, max enforced with a Status naming the plugin", async () => {
    await namespace(server, "limits");
    const range = {
      apiVersion: "v1",
      kind: "LimitRange",
      metadata: { name: "r" },
      spec: { limits: [{ type: "Container", default: { cpu: "500m", memory: "64Mi" }, defaultRequest: { cpu: "200m" }, max: { cpu: "1" } }] },
    };
    assert.equal((await server.call("POST", "/api/v1/namespaces/limits/limitranges", { body: range })).status, 201);
    const defaulted = await server.call("POST", "/api/v1/namespaces/limits/pods", { body: pod("d") });
    assert.equal(defaulted.status, 201, defaulted.text);
    assert.deepEqual(containerOf(defaulted.json)["resources"], { limits: { cpu: "500m", memory: "64Mi" }, requests: { cpu: "200m", memory: "64Mi" } });
    const tooBig = await server.call("POST", "/api/v1/namespaces/limits/pods", {
      body: pod("big", { containers: [{ name: "c", image: "i", resources: { limits: { cpu: "2" } } }] }),
    });
    assert.equal(tooBig.status, 403, tooBig.text);
    assert.equal(tooBig.json["message"], 'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
    assert.deepEqual(causesOf(tooBig.json).at(-1), { reason: "AdmissionPlugin", message: "LimitRanger" });
  });

  it("LimitRanger: a Pod item bounds kube's pod sums (init steps, not their sum with the app) and prints them as kube's Quantity", async () => {
    await namespace(server, "podlimits");
    const range = { apiVersion: "v1", kind: "LimitRange", metadata: { name: "r" }, spec: { limits: [{ type: "Pod", max: { cpu: "1" } }] } };
    assert.equal((await server.call("POST", "/api/v1/namespaces/podlimits/limitranges", { body: range })).status, 201);
    const resources = (cpu: string) => ({ requests: { cpu }, limits: { cpu } });
    // The init container runs before the app: the pod needs max(800m, 600m), within 1.
    const fits = await server.call("POST", "/api/v1/namespaces/podlimits/pods", {
      body: pod("fits", {
        initContainers: [{ name: "init", image: "i", resources: resources("800m") }],
        containers: [{ name: "c", image: "i", resources: resources("600m") }],
      }),
    });
    assert.equal(fits.status, 201, fits.text);
    const tooBig = await server.call("POST", "/api/v1/namespaces/podlimits/pods", {
      body: pod("big", {
        containers: [
          { name: "a", image: "i", resources: resources("600m") },
          { name: "b", image: "i", resources: resources("600m") },
        ],
      }),
    });
    assert.equal(tooBig.status, 403, tooBig.text);
    assert.equal(tooBig.json["message"], 'pods "big" is forbidden: maximum cpu usage per Pod is 1, but limit is 1200m');
  });

  it("ResourceQuota: 50 concurrent creates against pods: 10 admit exactly 10; status is kept by the controller", async () => {
    await namespace(server, "quota");
    const quota = { apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "q" }, spec: { hard: { pods: "10", "count/configmaps": "3" } } };
    assert.equal((await server.call("POST", "/api/v1/namespaces/quota/resourcequotas", { body: quota })).status, 201);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, index) => server.call("POST", "/api/v1/namespaces/quota/pods", { body: pod(`p${index}`) })),
    );
    assert.equal(results.filter((result) => result.status === 201).length, 10);
    const refused = results.filter((result) => result.status !== 201);
    assert.equal(refused.length, 40);
    assert.ok(
      refused.every(
        (result) => result.status === 403 && /exceeded quota: q, requested: pods=1, used: pods=10, limited: pods=10/.test(String(result.json["message"])),
      ),
    );
    const dryRun = await server.call("POST", "/api/v1/namespaces/quota/configmaps?dryRun=All", {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dry" } },
    });
    assert.equal(dryRun.status, 201);
    let status: Record<string, unknown> = {};
    for (let attempt = 0; attempt < 100; attempt++) {
      status = (await server.call("GET", "/api/v1/namespaces/quota/resourcequotas/q")).json["status"] as Record<string, unknown>;
      if (JSON.stringify(status) === JSON.stringify({ hard: { pods: "10", "count/configmaps": "3" }, used: { pods: "10", "count/configmaps": "0" } })) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual(status, { hard: { pods: "10", "count/configmaps": "3" }, used: { pods: "10", "count/configmaps": "0" } });
    assert.equal((await server.call("DELETE", "/api/v1/namespaces/quota/pods/p0")).status, 200);
    const deleted = results.findIndex((result) => result.status === 201);
    if (deleted !== 0) assert.equal((await server.call("DELETE", `/api/v1/namespaces/quota/pods/p${deleted}`)).status, 200);
    let used = "";
    for (let attempt = 0; attempt < 100; attempt++) {
      const current = (await server.call("GET", "/api/v1/namespaces/quota/resourcequotas/q")).json["status"] as Record<string, Record<string, string>>;
      used = current["used"]?.["pods"] ?? "";
      if (used === "9") break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(used, "9", "a delete gives usage back");
  });

  it("PodSecurity: enforce=restricted refuses a privileged pod; warn=baseline admits with a Warning", async () => {
    await namespace(server, "restricted", { "pod-security.orch.io/enforce": "restricted" });
    const refused = await server.call("POST", "/api/v1/namespaces/restricted/pods", {
      body: pod("priv", { containers: [{ name: "c", image: "i", securityContext: { privileged: true } }] }),
    });
    assert.equal(refused.status, 403, refused.text);
    assert.match(
      String(refused.json["message"]),
      /^pods "priv" is forbidden: violates PodSecurity "restricted:latest": privileged \(container "c" must not set securityContext.privileged=true\), /,
    );
    const compliant = await server.call("POST", "/api/v1/namespaces/restricted/pods", {
      body: pod("ok", {
        securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
        containers: [{ name: "c", image: "i", securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } } }],
      }),
    });
    assert.equal(compliant.status, 201, compliant.text);
    await namespace(server, "warned", { "pod-security.orch.io/warn": "baseline" });
    const warned = await server.call("POST", "/api/v1/namespaces/warned/pods", { body: pod("host", { hostNetwork: true }) });
    assert.equal(warned.status, 201, warned.text);
    assert.match(String(warned.headers["warning"]), /would violate PodSecurity \\"baseline:latest\\": host namespaces \(hostNetwork=true\)/);
  });

  it("ServiceAccount: default account set, token volume once the account exists, 403 for a missing named one", async () => {
    await namespace(server, "accounts");
    const early = await server.call("POST", "/api/v1/namespaces/accounts/pods", { body: pod("early") });
    assert.equal(early.status, 201, early.text);
    assert.equal(specOf(early.json)["serviceAccountName"], "default");
    const account = { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default" }, imagePullSecrets: [{ name: "registry" }] };
    assert.equal((await server.call("POST", "/api/v1/namespaces/accounts/serviceaccounts", { body: account })).status, 201);
    const mounted = await server.call("POST", "/api/v1/namespaces/accounts/pods", { body: pod("mounted") });
    assert.equal(mounted.status, 201, mounted.text);
    const volumes = specOf(mounted.json)["volumes"] as { name: string; projected?: { sources: Record<string, Record<string, unknown>>[] } }[];
    const volume = volumes.find((candidate) => candidate.name.startsWith("orch-api-access-"));
    assert.ok(volume, JSON.stringify(volumes));
    assert.match(volume.name, /^orch-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(volume.projected?.sources[0], { serviceAccountToken: { expirationSeconds: 3607, path: "token" } });
    assert.deepEqual(containerOf(mounted.json)["volumeMounts"], [{ name: volume.name, readOnly: true, mountPath: "/var/run/secrets/orch.io/serviceaccount" }]);
    assert.deepEqual(specOf(mounted.json)["imagePullSecrets"], [{ name: "registry" }]);
    const optOut = await server.call("POST", "/api/v1/namespaces/accounts/pods", { body: pod("opt-out", { automountServiceAccountToken: false }) });
    assert.equal(specOf(optOut.json)["volumes"], undefined);
    const missing = await server.call("POST", "/api/v1/namespaces/accounts/pods", { body: pod("m", { serviceAccountName: "ghost" }) });
    assert.equal(missing.status, 403);
    assert.equal(missing.json["message"], 'pods "m" is forbidden: error looking up service account accounts/ghost: serviceaccount "ghost" not found');
  });

  it("DefaultTolerationSeconds and Priority: tolerations added, classes resolved, globalDefault used", async () => {
    await namespace(server, "prio");
    const created = await server.call("POST", "/api/v1/namespaces/prio/pods", { body: pod("t", { priorityClassName: "system-node-critical" }) });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(specOf(created.json)["tolerations"], [
      { key: "node.orch.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      { key: "node.orch.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    ]);
    assert.equal(specOf(created.json)["priority"], 2000001000);
    const unknown = await server.call("POST", "/api/v1/namespaces/prio/pods", { body: pod("u", { priorityClassName: "nope" }) });
    assert.equal(unknown.status, 403);
    assert.equal(unknown.json["message"], 'pods "u" is forbidden: no PriorityClass with name nope was found');
    const plain = await server.call("POST", "/api/v1/namespaces/prio/pods", { body: pod("before-default") });
    assert.equal(specOf(plain.json)["priority"], 0, "no globalDefault class yet");
    assert.equal(specOf(plain.json)["priorityClassName"], undefined);
    const high = { apiVersion: "scheduling.orch.io/v1", kind: "PriorityClass", metadata: { name: "high" }, value: 1000, globalDefault: true };
    assert.equal((await server.call("POST", "/apis/scheduling.orch.io/v1/priorityclasses", { body: high })).status, 201);
    const second = await server.call("POST", "/apis/scheduling.orch.io/v1/priorityclasses", { body: { ...high, metadata: { name: "other" } } });
    assert.equal(second.status, 403);
    const defaulted = await server.call("POST", "/api/v1/namespaces/prio/pods", { body: pod("g") });
    assert.equal(specOf(defaulted.json)["priorityClassName"], "high");
    assert.equal(specOf(defaulted.json)["priority"], 1000);
    assert.equal((await server.call("DELETE", "/apis/scheduling.orch.io/v1/priorityclasses/high")).status, 200);
    const after = await server.call("POST", "/api/v1/namespaces/prio/pods", { body: pod("after-default") });
    assert.equal(specOf(after.json)["priority"], 0, "the deleted default no longer applies");
    assert.equal(specOf(after.json)["priorityClassName"], undefined);
    // The preemption policy is computed too: the class's, or PreemptLowerPriority without one; another is refused.
    const never = { apiVersion: "scheduling.orch.io/v1", kind: "PriorityClass", metadata: { name: "never" }, value: 10, preemptionPolicy: "Never" };
    assert.equal((await server.call("POST", "/apis/scheduling.orch.io/v1/priorityclasses", { body: never })).status, 201);
    const mismatched = await server.call("POST", "/api/v1/namespaces/prio/pods", {
      body: pod("mismatch", { priorityClassName: "never", preemptionPolicy: "PreemptLowerPriority" }),
    });
    assert.equal(mismatched.status, 403, mismatched.text);
    assert.equal(
      mismatched.json["message"],
      'pods "mismatch" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name',
    );
    const classless = await server.call("POST", "/api/v1/namespaces/prio/pods", { body: pod("classless", { preemptionPolicy: "Never" }) });
    assert.equal(classless.status, 403, classless.text);
    const matching = await server.call("POST", "/api/v1/namespaces/prio/pods", {
      body: pod("matching", { priorityClassName: "never", preemptionPolicy: "Never" }),
    });
    assert.equal(matching.status, 201, matching.text);
  });

  it("PodSecurity: a namespace's new labels apply to its next pod", async () => {
    await namespace(server, "relabelled");
    const privileged = () => pod("priv", { containers: [{ name: "c", image: "i", securityContext: { privileged: true } }] });
    const before = await server.call("POST", "/api/v1/namespaces/relabelled/pods", { body: privileged() });
    assert.equal(before.status, 201, before.text);
    const labelled = await server.call("PATCH", "/api/v1/namespaces/relabelled", {
      body: { metadata: { labels: { "pod-security.orch.io/enforce": "baseline" } } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(labelled.status, 200, labelled.text);
    const refused = await server.call("POST", "/api/v1/namespaces/relabelled/pods", { body: { ...privileged(), metadata: { name: "priv2" } } });
    assert.equal(refused.status, 403, refused.text);
    assert.match(String(refused.json["message"]), /violates PodSecurity "baseline:latest": privileged/);
  });
});

describe("admission flags", () => {
  it("--disable-admission-plugins turns defaults off; --enable adds optional ones", async () => {
    const server = await inProcessServer({ admission: { disable: ["LimitRanger", "DefaultTolerationSeconds", "ServiceAccount", "Priority"] } });
    try {
      const created = await server.call("POST", "/api/v1/namespaces/default/pods", { body: pod("plain") });
      assert.equal(created.status, 201, created.text);
      // No LimitRange defaults: kube's always-written empty struct only.
      assert.deepEqual(containerOf(created.json)["resources"], {});
      assert.equal(specOf(created.json)["tolerations"], undefined);
      assert.equal(specOf(created.json)["serviceAccountName"], undefined);
    } finally {
      await server.stop();
    }
  });

  it("unknown plugin names and bad configuration files are flag errors naming the plugin and the field", (t) => {
    assert.throws(
      () => parseArgs(["--enable-admission-plugins=Nope"]),
      (error: unknown) => error instanceof FlagError && /unknown admission plugin "Nope"/.test(error.message),
    );
    const dir = mkdtempSync(join(tmpdir(), "admission-config-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "admission.yaml");
    writeFileSync(file, "apiVersion: apiserver.config.orch.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: Bogus\n  configuration: {}\n");
    assert.throws(() => parseArgs([`--admission-control-config-file=${file}`]), /plugins\[0\]\.name: unknown admission plugin "Bogus"/);
    writeFileSync(file, "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: []\n---\n");
    assert.throws(
      () => parseArgs([`--admission-control-config-file=${file}`]),
      /apiVersion: must be apiserver.config.orch.io\/v1 .*; this server runs --compat orch, which spells apiserver.config.k8s.io as apiserver.config.orch.io: .* start the server with --compat kubernetes to use a stock Kubernetes file as it is$/,
    );
    assert.doesNotThrow(() => parseArgs(["--compat=kubernetes", `--admission-control-config-file=${file}`]));
    writeFileSync(
      join(dir, "psa.yaml"),
      "apiVersion: pod-security.admission.config.orch.io/v1\nkind: PodSecurityConfiguration\ndefaults:\n  enforce: strict\n",
    );
    writeFileSync(file, "apiVersion: apiserver.config.orch.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  path: psa.yaml\n");
    assert.throws(
      () => parseArgs([`--admission-control-config-file=${file}`]),
      /plugin "PodSecurity": defaults.enforce: must be one of privileged, baseline, restricted/,
    );
  });
});

describe("admission chain: which plugins run", () => {
  const attributesFor = (operation: AdmissionOperation, resource: string, dryRun = false): AdmissionAttributes => ({
    operation,
    resource: { group: "", version: "v1", kind: "Thing", resource, namespaced: true },
    namespace: "default",
    name: "x",
    subresource: "",
    object: { apiVersion: "v1", kind: "Thing", metadata: { name: "x" } },
    oldObject: undefined,
    dryRun,
    user: undefined,
  });

  it("runs each step of the plugins whose resources and operations match, in order; a plugin registered later joins", async () => {
    const calls: string[] = [];
    const plugin = (name: string, options: Partial<AdmissionPlugin> = {}): AdmissionPlugin => ({
      name,
      handles: (operation) => operation === "CREATE",
      mutate: async () => void calls.push(`${name}:mutate`),
      validate: async () => void calls.push(`${name}:validate`),
      ...options,
    });
    const chain = new AdmissionChain();
    chain.register(
      plugin("Pods", { resources: new Set(["pods"]) }),
      plugin("Everything", { handles: () => true }),
      plugin("ValidateOnly", { mutate: undefined }),
      plugin("SideEffects", { sideEffects: true }),
    );
    await chain.mutate(attributesFor("CREATE", "pods"));
    await chain.validate(attributesFor("CREATE", "pods"));
    assert.deepEqual(calls, [
      "Pods:mutate",
      "Everything:mutate",
      "SideEffects:mutate",
      "Pods:validate",
      "Everything:validate",
      "ValidateOnly:validate",
      "SideEffects:validate",
    ]);
    calls.length = 0;
    await chain.mutate(attributesFor("UPDATE", "pods"));
    await chain.mutate(attributesFor("CREATE", "services", true));
    assert.deepEqual(calls, ["Everything:mutate", "Everything:mutate"]);
    calls.length = 0;
    chain.register(plugin("Later"));
    await chain.mutate(attributesFor("CREATE", "pods"));
    assert.deepEqual(calls, ["Pods:mutate", "Everything:mutate", "SideEffects:mutate", "Later:mutate"]);
  });

  it("a step of synchronous plugins finishes in the caller's turn (undefined, nothing to await); one asynchronous plugin continues it in order", async () => {
    const calls: string[] = [];
    const observed: string[] = [];
    const chain = new AdmissionChain({
      step: (type, _operation, rejected) => void observed.push(`step ${type}${rejected ? " rejected" : ""}`),
      plugin: (name, type, _operation, rejected) => void observed.push(`${name} ${type}${rejected ? " rejected" : ""}`),
    });
    const sync = (name: string): AdmissionPlugin => ({
      name,
      handles: () => true,
      mutate: () => void calls.push(`${name}:mutate`),
      validate: () => void calls.push(`${name}:validate`),
    });
    chain.register(sync("A"), sync("B"));
    assert.equal(chain.mutate(attributesFor("CREATE", "pods")), undefined);
    assert.equal(chain.validate(attributesFor("CREATE", "pods")), undefined);
    assert.deepEqual(calls, ["A:mutate", "B:mutate", "A:validate", "B:validate"]);
    assert.deepEqual(observed, ["A admit", "B admit", "step admit", "A validate", "B validate", "step validate"]);

    calls.length = 0;
    observed.length = 0;
    const later = new AdmissionChain({
      step: (type, _operation, rejected) => void observed.push(`step ${type}${rejected ? " rejected" : ""}`),
      plugin: (name, type, _operation, rejected) => void observed.push(`${name} ${type}${rejected ? " rejected" : ""}`),
    });
    const asynchronous: AdmissionPlugin = {
      name: "Async",
      handles: () => true,
      mutate: async () => {
        await new Promise((resolve) => setImmediate(resolve));
        calls.push("Async:mutate");
      },
    };
    later.register(sync("A"), asynchronous, sync("B"));
    const pending = later.mutate(attributesFor("CREATE", "pods"));
    assert.ok(pending instanceof Promise);
    assert.deepEqual(calls, ["A:mutate"], "the plugins after the asynchronous one wait for it");
    await pending;
    assert.deepEqual(calls, ["A:mutate", "Async:mutate", "B:mutate"]);
    assert.deepEqual(observed, ["A admit", "Async admit", "B admit", "step admit"]);
  });

  it("a plugin's synchronous throw and its rejection both reject the step, naming the plugin and observed as rejected", async () => {
    const observed: string[] = [];
    const chain = new AdmissionChain({
      step: (type, _operation, rejected) => void observed.push(`step ${type}${rejected ? " rejected" : ""}`),
      plugin: (name, type, _operation, rejected) => void observed.push(`${name} ${type}${rejected ? " rejected" : ""}`),
    });
    chain.register(
      {
        name: "Throws",
        handles: () => true,
        mutate: () => {
          throw new Error("boom");
        },
      },
      { name: "Rejects", handles: () => true, validate: () => Promise.reject(new Error("late boom")) },
    );
    assert.throws(() => chain.mutate(attributesFor("CREATE", "pods")), /admission plugin "Throws" failed: boom/);
    await assert.rejects(Promise.resolve(chain.validate(attributesFor("CREATE", "pods"))), /admission plugin "Rejects" failed: late boom/);
    assert.deepEqual(observed, ["Throws admit rejected", "step admit rejected", "Rejects validate rejected", "step validate rejected"]);
  });
});
