import assert from "node:assert/strict";
import { createServer } from "node:https";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import type { ApiClient, ResourceRef } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import type { ApiObject } from "../../api/object.js";
import { admissionNames, ORCH_PROFILE } from "../../api/profile.js";
import type { Authorizer } from "../../authz/authorizer.js";
import { AdmissionChain } from "../chain.js";
import { DEFAULT_ADMISSION_SETTINGS, type PluginContext } from "../context.js";
import type { AdmissionAttributes, AdmissionOperation } from "../interface.js";
import { selectPlugins } from "../plugin-set.js";
import { builtinPlugins } from "./index.js";
import { requestOrganizations } from "./certificates.js";
import { generateTestCertificate, generateTlsPair } from "../../testing/admission-certificates.js";

/** A client over a fixed set of objects, keyed `<plural>/<namespace>/<name>`. */
function fakeClient(objects: ApiObject[], plurals: Record<string, string>): ApiClient & { created: ApiObject[] } {
  const created: ApiObject[] = [];
  const pluralOf = (object: ApiObject): string => plurals[object.kind ?? ""] ?? "";
  return {
    created,
    namespacedResources: () => [],
    servedResources: () => [],
    list: async (resource: ResourceRef, namespace: string) => ({
      items: objects.filter((object) => pluralOf(object) === resource.plural && (namespace === "" || object.metadata.namespace === namespace)),
      resourceVersion: "1",
    }),
    deleteCollection: async () => {},
    update: async (_r, _n, _name, object) => object,
    updateSubresource: async (_r, _n, _name, _s, object) => object,
    get: async (resource, namespace, name) =>
      objects.find((object) => pluralOf(object) === resource.plural && (object.metadata.namespace ?? "") === namespace && object.metadata.name === name),
    delete: async () => false,
    create: async (_resource, _namespace, object) => {
      created.push(object);
      objects.push(object);
      return object;
    },
    changed: async function* () {},
  };
}

const allowAll: Authorizer = { name: "allow-all", authorize: async () => ({ kind: "allow", reason: "" }) };
const denyAll: Authorizer = { name: "deny-all", authorize: async () => ({ kind: "deny", reason: "no" }) };

function context(
  objects: ApiObject[],
  options: { authorizer?: Authorizer; now?: () => number } = {},
): Omit<PluginContext, "configuration"> & { client: ReturnType<typeof fakeClient> } {
  return {
    profile: ORCH_PROFILE,
    names: admissionNames(ORCH_PROFILE),
    client: fakeClient(objects, {
      Namespace: "namespaces",
      StorageClass: "storageclasses",
      IngressClass: "ingressclasses",
      RuntimeClass: "runtimeclasses",
    }),
    authorizer: options.authorizer ?? allowAll,
    settings: DEFAULT_ADMISSION_SETTINGS,
    now: options.now ?? Date.now,
    resourceOfKind: (apiVersion, kind) => (apiVersion === "v1" && kind === "ConfigMap" ? { group: "", plural: "configmaps", namespaced: true } : undefined),
  };
}

/** One plugin of the catalogue, turned on by `--enable-admission-plugins`, as a one-plugin chain. */
function chainOf(name: string, base: ReturnType<typeof context>, configuration?: unknown): AdmissionChain {
  const catalogue = builtinPlugins();
  const selected = selectPlugins(catalogue, { enable: [name], disable: catalogue.filter((plugin) => plugin.name !== name).map((plugin) => plugin.name) });
  assert.deepEqual(
    selected.map((plugin) => plugin.name),
    [name],
  );
  const descriptor = selected[0];
  const plugin = descriptor?.create?.({ ...base, configuration: descriptor.parseConfiguration?.(configuration, ORCH_PROFILE) ?? configuration });
  assert.ok(plugin);
  const chain = new AdmissionChain();
  chain.register(plugin);
  return chain;
}

function attributes(
  operation: AdmissionOperation,
  plural: string,
  object: ApiObject | undefined,
  extra: Partial<AdmissionAttributes> & { group?: string } = {},
): AdmissionAttributes {
  return {
    operation,
    resource: {
      group: extra.group ?? "",
      version: "v1",
      kind: object?.kind ?? "",
      resource: plural,
      namespaced: plural !== "nodes" && plural !== "namespaces",
    },
    namespace: extra.namespace ?? (plural === "nodes" ? "" : "ns"),
    name: object?.metadata.name ?? extra.name ?? "",
    subresource: "",
    object,
    oldObject: undefined,
    dryRun: false,
    user: { name: "alice", groups: [] },
    ...extra,
  };
}

async function admit(chain: AdmissionChain, attrs: AdmissionAttributes): Promise<ApiError | undefined> {
  try {
    await chain.mutate(attrs);
    await chain.validate(attrs);
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

const pod = (spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "ns", ...metadata },
  spec: { containers: [{ name: "c", image: "nginx" }], ...spec },
});

describe("optional and remaining default admission plugins (table)", () => {
  it("the catalogue is in kube's order and the defaults are the spec's set plus PodSecurity", () => {
    const names = builtinPlugins().map((plugin) => plugin.name);
    assert.ok(names.indexOf("NamespaceLifecycle") < names.indexOf("LimitRanger"));
    assert.ok(names.indexOf("LimitRanger") < names.indexOf("ServiceAccount"));
    assert.ok(names.indexOf("PodSecurity") < names.indexOf("Priority"));
    assert.equal(names.at(-1), "ResourceQuota");
    assert.deepEqual(
      builtinPlugins()
        .filter((plugin) => plugin.defaultOn)
        .map((plugin) => plugin.name)
        .sort(),
      [
        "CertificateApproval",
        "CertificateSigning",
        "CertificateSubjectRestriction",
        "DefaultIngressClass",
        "DefaultStorageClass",
        "DefaultTolerationSeconds",
        "LimitRanger",
        "MutatingAdmissionWebhook",
        "NamespaceLifecycle",
        "PersistentVolumeClaimResize",
        "PodSecurity",
        "Priority",
        "ResourceQuota",
        "RuntimeClass",
        "ServiceAccount",
        "StorageObjectInUseProtection",
        "TaintNodesByCondition",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionWebhook",
      ],
    );
    assert.throws(() => selectPlugins(builtinPlugins(), { enable: ["Nope"], disable: [] }), /--enable-admission-plugins: unknown admission plugin "Nope"/);
  });

  it("AlwaysPullImages sets Always on every container", async () => {
    const chain = chainOf("AlwaysPullImages", context([]));
    const object = pod({ initContainers: [{ name: "i", image: "x", imagePullPolicy: "IfNotPresent" }] });
    assert.equal(await admit(chain, attributes("CREATE", "pods", object)), undefined);
    assert.deepEqual(
      (object["spec"] as { initContainers: { imagePullPolicy: string }[]; containers: { imagePullPolicy: string }[] }).containers.map((c) => c.imagePullPolicy),
      ["Always"],
    );
  });

  it("DenyServiceExternalIPs refuses new external IPs, keeps existing ones", async () => {
    const chain = chainOf("DenyServiceExternalIPs", context([]));
    const service = (ips: string[]): ApiObject => ({ apiVersion: "v1", kind: "Service", metadata: { name: "s" }, spec: { externalIPs: ips } });
    assert.equal(
      (await admit(chain, attributes("CREATE", "services", service(["1.2.3.4"]))))?.message,
      'services "s" is forbidden: use of external IPs is denied by admission control',
    );
    assert.equal(await admit(chain, attributes("UPDATE", "services", service(["1.2.3.4"]), { oldObject: service(["1.2.3.4", "5.6.7.8"]) })), undefined);
    assert.equal(await admit(chain, attributes("CREATE", "services", service([]))), undefined);
  });

  it("NamespaceExists 404s in a missing namespace; NamespaceAutoProvision creates it (not on dry-run)", async () => {
    const exists = chainOf("NamespaceExists", context([]));
    assert.equal((await admit(exists, attributes("CREATE", "configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } })))?.code, 404);
    const base = context([]);
    const provision = chainOf("NamespaceAutoProvision", base);
    const configMap: ApiObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } };
    assert.equal(await admit(provision, attributes("CREATE", "configmaps", configMap, { dryRun: true })), undefined);
    assert.equal(base.client.created.length, 0);
    assert.equal(await admit(provision, attributes("CREATE", "configmaps", configMap)), undefined);
    assert.deepEqual(
      base.client.created.map((object) => object.metadata.name),
      ["ns"],
    );
  });

  it("DefaultStorageClass and DefaultIngressClass fill the one default, refuse several", async () => {
    const annotated = (kind: string, name: string, annotation: string): ApiObject => ({
      apiVersion: "",
      kind,
      metadata: { name, annotations: { [annotation]: "true" } },
    });
    const storage = chainOf("DefaultStorageClass", context([annotated("StorageClass", "fast", "storageclass.orch.io/is-default-class")]));
    const claim: ApiObject = { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "c" }, spec: {} };
    assert.equal(await admit(storage, attributes("CREATE", "persistentvolumeclaims", claim)), undefined);
    assert.deepEqual(claim["spec"], { storageClassName: "fast" });
    const explicit: ApiObject = { ...claim, spec: { storageClassName: "" } };
    await admit(storage, attributes("CREATE", "persistentvolumeclaims", explicit));
    assert.deepEqual(explicit["spec"], { storageClassName: "" });
    // kube reads a claim's class from the beta annotation first: such a claim names one already.
    const annotatedClaim: ApiObject = { ...claim, metadata: { name: "b", annotations: { "volume.beta.orch.io/storage-class": "slow" } }, spec: {} };
    await admit(storage, attributes("CREATE", "persistentvolumeclaims", annotatedClaim));
    assert.deepEqual(annotatedClaim["spec"], {});
    const two = chainOf(
      "DefaultIngressClass",
      context([
        annotated("IngressClass", "a", "ingressclass.orch.io/is-default-class"),
        annotated("IngressClass", "b", "ingressclass.orch.io/is-default-class"),
      ]),
    );
    const ingress: ApiObject = { apiVersion: "networking.orch.io/v1", kind: "Ingress", metadata: { name: "i" }, spec: {} };
    const refused = await admit(two, attributes("CREATE", "ingresses", ingress, { group: "networking.orch.io" }));
    assert.equal(refused?.message, 'ingresses.networking.orch.io "i" is forbidden: 2 default IngressClasses were found, only 1 allowed');
  });

  it("TaintNodesByCondition taints new nodes not-ready; ExtendedResourceToleration tolerates extended resources", async () => {
    const node: ApiObject = { apiVersion: "v1", kind: "Node", metadata: { name: "n" } };
    await admit(chainOf("TaintNodesByCondition", context([])), attributes("CREATE", "nodes", node));
    assert.deepEqual(node["spec"], { taints: [{ key: "node.orch.io/not-ready", effect: "NoSchedule" }] });
    const gpu = pod({ containers: [{ name: "c", image: "i", resources: { limits: { "example.com/gpu": "1", cpu: "1" } } }] });
    await admit(chainOf("ExtendedResourceToleration", context([])), attributes("CREATE", "pods", gpu));
    assert.deepEqual((gpu["spec"] as Record<string, unknown>)["tolerations"], [{ key: "example.com/gpu", operator: "Exists", effect: "NoSchedule" }]);
  });

  it("RuntimeClass refuses an overhead its class does not define, a conflicting node selector in kube's words, and merges tolerations as kube's MergeTolerations", async () => {
    const kata: ApiObject = {
      apiVersion: "node.orch.io/v1",
      kind: "RuntimeClass",
      metadata: { name: "kata" },
      handler: "kata",
      overhead: { podFixed: { cpu: "250m", memory: "120Mi" } },
      scheduling: {
        nodeSelector: { runtime: "kata" },
        tolerations: [
          { key: "kata", operator: "Exists", effect: "NoSchedule" },
          { key: "dedicated", operator: "Equal", value: "x", effect: "NoSchedule" },
        ],
      },
    };
    const plain: ApiObject = { apiVersion: "node.orch.io/v1", kind: "RuntimeClass", metadata: { name: "runc" }, handler: "runc" };
    const chain = chainOf("RuntimeClass", context([kata, plain]));
    const message = async (spec: Record<string, unknown>): Promise<string | undefined> =>
      (await admit(chain, attributes("CREATE", "pods", pod(spec))))?.message;
    assert.equal(
      await message({ overhead: { cpu: "1" } }),
      'pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead',
    );
    assert.equal(
      await message({ runtimeClassName: "runc", overhead: { cpu: "1" } }),
      'pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead',
    );
    // The class's overhead written another way (0.25 cores) is the same overhead.
    assert.equal(await message({ runtimeClassName: "kata", overhead: { cpu: "0.25", memory: "120Mi" } }), undefined);
    assert.equal(
      await message({ runtimeClassName: "kata", overhead: { cpu: "1", memory: "120Mi" } }),
      `pods "p" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`,
    );
    assert.equal(
      await message({ runtimeClassName: "kata", nodeSelector: { runtime: "runc" } }),
      'pods "p" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[runtime] = kata; pod.spec.nodeSelector[runtime] = runc',
    );
    // A pod toleration covering the class's `dedicated=x` (every value of the key) keeps it out; the class's `kata` is added.
    const object = pod({ runtimeClassName: "kata", tolerations: [{ key: "dedicated", operator: "Exists" }] });
    assert.equal(await admit(chain, attributes("CREATE", "pods", object)), undefined);
    assert.deepEqual((object["spec"] as Record<string, unknown>)["tolerations"], [
      { key: "dedicated", operator: "Exists" },
      { key: "kata", operator: "Exists", effect: "NoSchedule" },
    ]);
  });

  it("RuntimeClass sets overhead and scheduling, refuses a missing class; PodNodeSelector merges the namespace's selector", async () => {
    const runtime: ApiObject = {
      apiVersion: "node.orch.io/v1",
      kind: "RuntimeClass",
      metadata: { name: "gvisor" },
      handler: "runsc",
      overhead: { podFixed: { cpu: "250m" } },
      scheduling: { nodeSelector: { sandbox: "true" } },
    };
    const chain = chainOf("RuntimeClass", context([runtime]));
    const object = pod({ runtimeClassName: "gvisor" });
    assert.equal(await admit(chain, attributes("CREATE", "pods", object)), undefined);
    assert.deepEqual((object["spec"] as Record<string, unknown>)["overhead"], { cpu: "250m" });
    assert.deepEqual((object["spec"] as Record<string, unknown>)["nodeSelector"], { sandbox: "true" });
    assert.equal(
      (await admit(chain, attributes("CREATE", "pods", pod({ runtimeClassName: "kata" }))))?.message,
      'pods "p" is forbidden: pod rejected: RuntimeClass "kata" not found',
    );
    const namespace: ApiObject = {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "ns", annotations: { "scheduler.alpha.orch.io/node-selector": "zone=a" } },
    };
    const selector = chainOf("PodNodeSelector", context([namespace]));
    const placed = pod();
    assert.equal(await admit(selector, attributes("CREATE", "pods", placed)), undefined);
    assert.deepEqual((placed["spec"] as Record<string, unknown>)["nodeSelector"], { zone: "a" });
    assert.equal((await admit(selector, attributes("CREATE", "pods", pod({ nodeSelector: { zone: "b" } }))))?.code, 403);
    const configured = chainOf("PodNodeSelector", context([]), { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: "tier=web" } });
    const defaulted = pod();
    await admit(configured, attributes("CREATE", "pods", defaulted));
    assert.deepEqual((defaulted["spec"] as Record<string, unknown>)["nodeSelector"], { tier: "web" });
  });

  it("PersistentVolumeClaimResize refuses growth unless the class allows expansion", async () => {
    const claim = (size: string): ApiObject => ({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "c" },
      spec: { storageClassName: "fixed", resources: { requests: { storage: size } } },
    });
    const fixed: ApiObject = { apiVersion: "", kind: "StorageClass", metadata: { name: "fixed" } };
    const chain = chainOf("PersistentVolumeClaimResize", { ...context([fixed]), client: fakeClient([fixed], { StorageClass: "storageclasses" }) });
    assert.equal((await admit(chain, attributes("UPDATE", "persistentvolumeclaims", claim("2Gi"), { oldObject: claim("1Gi") })))?.code, 403);
    assert.equal(await admit(chain, attributes("UPDATE", "persistentvolumeclaims", claim("1Gi"), { oldObject: claim("1Gi") })), undefined);
  });

  it("CertificateApproval, CertificateSigning, CertificateSubjectRestriction", async () => {
    const csr = (signerName: string, request = ""): ApiObject => ({
      apiVersion: "certificates.orch.io/v1",
      kind: "CertificateSigningRequest",
      metadata: { name: "r" },
      spec: { signerName, request },
    });
    const group = { group: "certificates.orch.io" };
    const approval = chainOf("CertificateApproval", context([], { authorizer: denyAll }));
    assert.equal(
      (await admit(approval, attributes("UPDATE", "certificatesigningrequests", csr("example.com/s"), { ...group, subresource: "approval", namespace: "" })))
        ?.message,
      'certificatesigningrequests.certificates.orch.io "r" is forbidden: user not permitted to approve requests with signerName "example.com/s"',
    );
    assert.equal(
      await admit(
        chainOf("CertificateApproval", context([])),
        attributes("UPDATE", "certificatesigningrequests", csr("example.com/s"), { ...group, subresource: "approval", namespace: "" }),
      ),
      undefined,
    );
    const signed = { ...csr("example.com/s"), status: { certificate: "Y2VydA==" } };
    const signing = chainOf("CertificateSigning", context([], { authorizer: denyAll }));
    assert.equal(
      (
        await admit(
          signing,
          attributes("UPDATE", "certificatesigningrequests", signed, { ...group, subresource: "status", oldObject: csr("example.com/s"), namespace: "" }),
        )
      )?.code,
      403,
    );
    const masters = Buffer.from(generateTestCertificate(["system:masters"])).toString("base64");
    assert.deepEqual(requestOrganizations(generateTestCertificate(["system:masters", "dev"])), ["system:masters", "dev"]);
    const restriction = chainOf("CertificateSubjectRestriction", context([]));
    assert.equal(
      (await admit(restriction, attributes("CREATE", "certificatesigningrequests", csr("orch.io/apiserver-client", masters), { ...group, namespace: "" })))
        ?.message,
      'certificatesigningrequests.certificates.orch.io "r" is forbidden: use of orch.io/apiserver-client signer with system:masters group is not allowed',
    );
    assert.equal(
      await admit(restriction, attributes("CREATE", "certificatesigningrequests", csr("example.com/s", masters), { ...group, namespace: "" })),
      undefined,
    );
  });

  it("EventRateLimit: over the burst is 429 with Retry-After; dry-run spends nothing; configuration is required", async () => {
    let now = 0;
    const configuration = { apiVersion: "eventratelimit.admission.orch.io/v1alpha1", kind: "Configuration", limits: [{ type: "Namespace", qps: 1, burst: 2 }] };
    const chain = chainOf("EventRateLimit", context([], { now: () => now }), configuration);
    const event: ApiObject = { apiVersion: "v1", kind: "Event", metadata: { name: "e" } };
    assert.equal(await admit(chain, attributes("CREATE", "events", event, { dryRun: true })), undefined);
    assert.equal(await admit(chain, attributes("CREATE", "events", event)), undefined);
    assert.equal(await admit(chain, attributes("CREATE", "events", event)), undefined);
    const limited = await admit(chain, attributes("CREATE", "events", event));
    assert.equal(limited?.code, 429);
    assert.equal(limited?.headers["Retry-After"], "1");
    assert.equal(await admit(chain, attributes("CREATE", "events", event, { namespace: "other" })), undefined);
    now = 1000;
    assert.equal(await admit(chain, attributes("CREATE", "events", event)), undefined);
    assert.throws(
      () => chainOf("EventRateLimit", context([]), { ...configuration, limits: [{ type: "Pod", qps: 1, burst: 1 }] }),
      /limits\[0\]\.type: must be one of/,
    );
    assert.throws(() => chainOf("EventRateLimit", context([])), /plugin "EventRateLimit": configuration: required/);
  });

  it("NodeRestriction and OwnerReferencesPermissionEnforcement", async () => {
    const node = { name: "system:node:n1", groups: ["system:nodes"] };
    const chain = chainOf("NodeRestriction", context([]));
    const bound = pod({ nodeName: "n2" });
    assert.equal((await admit(chain, attributes("UPDATE", "pods", bound, { user: node, oldObject: bound })))?.code, 403);
    const own: ApiObject = { apiVersion: "v1", kind: "Node", metadata: { name: "n1", labels: { "node-restriction.orch.io/x": "y" } } };
    assert.match(
      (await admit(chain, attributes("UPDATE", "nodes", own, { user: node, oldObject: { ...own, metadata: { name: "n1" } } })))?.message ?? "",
      /node-restriction.orch.io\/x/,
    );
    assert.equal((await admit(chain, attributes("DELETE", "nodes", undefined, { user: node, name: "n1", oldObject: own })))?.code, 403);
    const owned: ApiObject = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "o", uid: "u", blockOwnerDeletion: true }] },
    };
    assert.equal(
      (await admit(chainOf("OwnerReferencesPermissionEnforcement", context([], { authorizer: denyAll })), attributes("CREATE", "configmaps", owned)))?.code,
      403,
    );
    assert.equal(await admit(chainOf("OwnerReferencesPermissionEnforcement", context([])), attributes("CREATE", "configmaps", owned)), undefined);
  });

  it("ImagePolicyWebhook against a loopback TLS backend: allow, deny with reason, backend down with defaultAllow both ways", async (t) => {
    const { key, cert } = generateTlsPair();
    const seen: unknown[] = [];
    const backend = createServer({ key, cert }, (request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => void (body += chunk.toString()));
      request.on("end", () => {
        const review = JSON.parse(body) as { spec: { containers: { image: string }[]; annotations?: Record<string, string> } };
        seen.push(review.spec);
        const bad = review.spec.containers.some((container) => container.image.startsWith("evil/"));
        response.setHeader("content-type", "application/json");
        response.end(
          JSON.stringify({
            apiVersion: "imagepolicy.orch.io/v1alpha1",
            kind: "ImageReview",
            status: bad ? { allowed: false, reason: "evil images are not allowed" } : { allowed: true },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => backend.listen(0, "127.0.0.1", resolve));
    const port = (backend.address() as AddressInfo).port;
    const dir = mkdtempSync(join(tmpdir(), "image-policy-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const kubeconfig = (target: number): string => {
      const file = join(dir, `backend-${target}.yaml`);
      writeFileSync(
        file,
        `apiVersion: v1\nkind: Config\nclusters:\n- name: b\n  cluster:\n    server: https://127.0.0.1:${target}/review\n    certificate-authority-data: ${Buffer.from(cert).toString("base64")}\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: c\n  context: {cluster: b, user: u}\ncurrent-context: c\n`,
      );
      return file;
    };
    try {
      const configuration = (file: string, defaultAllow: boolean) => ({
        imagePolicy: { kubeConfigFile: file, allowTTL: 50, denyTTL: 50, retryBackoff: 1, defaultAllow },
      });
      const chain = chainOf("ImagePolicyWebhook", context([]), configuration(kubeconfig(port), false));
      assert.equal(
        await admit(chain, attributes("CREATE", "pods", pod({}, { annotations: { "mycluster.image-policy.orch.io/ticket": "42", other: "x" } }))),
        undefined,
      );
      assert.deepEqual(seen[0], { containers: [{ image: "nginx" }], annotations: { "mycluster.image-policy.orch.io/ticket": "42" }, namespace: "ns" });
      const refused = await admit(chain, attributes("CREATE", "pods", pod({ containers: [{ name: "c", image: "evil/miner" }] })));
      assert.equal(refused?.message, 'pods "p" is forbidden: image policy webhook backend denied one or more images: evil images are not allowed');
      backend.close();
      const down = (await new Promise<number>((resolve) => {
        const probe = createServer({ key, cert });
        probe.listen(0, "127.0.0.1", () => {
          const free = (probe.address() as AddressInfo).port;
          probe.close(() => resolve(free));
        });
      })) as number;
      const closed = chainOf("ImagePolicyWebhook", context([]), configuration(kubeconfig(down), false));
      assert.match((await admit(closed, attributes("CREATE", "pods", pod())))?.message ?? "", /^pods "p" is forbidden: image policy webhook backend failed: /);
      const open = chainOf("ImagePolicyWebhook", context([]), configuration(kubeconfig(down), true));
      const admitted = pod();
      assert.equal(await admit(open, attributes("CREATE", "pods", admitted)), undefined);
      assert.equal(admitted.metadata.annotations?.["alpha.image-policy.orch.io/failed-open"], "true");
      writeFileSync(
        join(dir, "plain.yaml"),
        "apiVersion: v1\nkind: Config\nclusters:\n- name: b\n  cluster:\n    server: http://127.0.0.1:1/\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: c\n  context: {cluster: b, user: u}\ncurrent-context: c\n",
      );
      assert.throws(
        () => chainOf("ImagePolicyWebhook", context([]), configuration(join(dir, "plain.yaml"), true)),
        /imagePolicy.kubeConfigFile: the backend must be reached over TLS/,
      );
    } finally {
      backend.close();
    }
  });
});
