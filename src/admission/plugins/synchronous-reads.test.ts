import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiClient, ObjectLister } from "../../api/client.js";
import type { ApiObject } from "../../api/object.js";
import { admissionNames, ORCH_PROFILE } from "../../api/profile.js";
import { AdmissionChain } from "../chain.js";
import { DEFAULT_ADMISSION_SETTINGS, type PluginContext } from "../context.js";
import type { AdmissionAttributes } from "../interface.js";
import { selectPlugins } from "../plugin-set.js";
import { builtinPlugins } from "./index.js";

/** Objects by resource plural, as a watch cache would hold them. */
type Objects = Record<string, ApiObject[]>;

/**
 * A lister over fixed objects: `current` says whether the cache is known to reflect every write
 * (then `listNow`/`listCachedNow` answer; otherwise only the waiting `list`/`listCached` do).
 */
function lister(objects: ApiObject[], current: boolean): ObjectLister {
  const inNamespace = (namespace: string): ApiObject[] => objects.filter((object) => namespace === "" || object.metadata.namespace === namespace);
  return {
    get: (namespace, name) => objects.find((object) => (object.metadata.namespace ?? "") === namespace && object.metadata.name === name),
    list: async (namespace) => inNamespace(namespace),
    listCached: async (namespace) => inNamespace(namespace),
    listNow: (namespace) => (current ? inNamespace(namespace) : undefined),
    listCachedNow: (namespace) => (current ? inNamespace(namespace) : undefined),
  };
}

const unusedClient = new Proxy({} as ApiClient, {
  get: (_target, property) => () => {
    throw new Error(`the client was asked (${String(property)}): the lister should have answered`);
  },
});

/** The default chain's plugins that act on a pod create (in kube's order), reading `objects` through listers. */
function podChain(objects: Objects, current: boolean): AdmissionChain {
  const context: Omit<PluginContext, "configuration"> = {
    profile: ORCH_PROFILE,
    names: admissionNames(ORCH_PROFILE),
    client: unusedClient,
    authorizer: { name: "allow", authorize: async () => ({ kind: "allow", reason: "" }) },
    settings: DEFAULT_ADMISSION_SETTINGS,
    now: Date.now,
    resourceOfKind: () => undefined,
    lister: (_group, _version, plural) => lister(objects[plural] ?? [], current),
  };
  const names = ["LimitRanger", "ServiceAccount", "PodSecurity", "Priority", "DefaultTolerationSeconds", "RuntimeClass", "ResourceQuota"];
  const chain = new AdmissionChain();
  for (const descriptor of selectPlugins(builtinPlugins(), { enable: names, disable: [] })) {
    if (!names.includes(descriptor.name) || descriptor.create === undefined) continue;
    chain.register(descriptor.create({ ...context, configuration: descriptor.parseConfiguration?.(undefined, ORCH_PROFILE) }));
  }
  return chain;
}

function podCreate(): AdmissionAttributes {
  return {
    operation: "CREATE",
    resource: { group: "", version: "v1", kind: "Pod", resource: "pods", namespaced: true },
    namespace: "team",
    name: "p",
    subresource: "",
    object: { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "team" }, spec: { containers: [{ name: "c", image: "i" }] } },
    oldObject: undefined,
    dryRun: false,
    user: { name: "u", groups: [] },
  };
}

const objects: Objects = {
  namespaces: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "team", labels: {} } }],
  serviceaccounts: [{ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default", namespace: "team" } }],
  limitranges: [
    {
      apiVersion: "v1",
      kind: "LimitRange",
      metadata: { name: "r", namespace: "team" },
      spec: { limits: [{ type: "Container", defaultRequest: { cpu: "100m" }, max: { cpu: "1" } }] },
    },
  ],
  priorityclasses: [{ apiVersion: "scheduling.orch.io/v1", kind: "PriorityClass", metadata: { name: "normal" }, value: 1000, globalDefault: true }],
  resourcequotas: [],
};

/** The admitted pod with the token volume's random name replaced, to compare two admissions. */
function comparable(pod: ApiObject | undefined): unknown {
  return JSON.parse(JSON.stringify(pod ?? {}).replace(/orch-api-access-[a-z0-9]{5}/g, "orch-api-access-xxxxx"));
}

describe("admission plugins on a pod create read the watch cache synchronously", () => {
  it("with a settled cache every step finishes in the caller's turn (no promise) and admits the pod as with waiting reads", async () => {
    const settled = podCreate();
    const chain = podChain(objects, true);
    assert.equal(chain.mutate(settled), undefined);
    assert.equal(chain.validate(settled), undefined);
    const spec = settled.object?.["spec"] as Record<string, unknown>;
    assert.equal(spec["serviceAccountName"], "default");
    assert.equal(spec["priorityClassName"], "normal");
    assert.equal(spec["priority"], 1000);
    assert.equal((spec["tolerations"] as unknown[]).length, 2);
    assert.equal((spec["volumes"] as unknown[]).length, 1);
    // kube's defaulting of the item: max is the default limit.
    assert.deepEqual((spec["containers"] as Record<string, unknown>[])[0]?.["resources"], { limits: { cpu: "1" }, requests: { cpu: "100m" } });

    // A cache that has not caught up: the same plugins wait for their lists, and admit the same pod.
    const lagging = podCreate();
    const waiting = podChain(objects, false);
    const mutated = waiting.mutate(lagging);
    assert.ok(mutated instanceof Promise);
    await mutated;
    await waiting.validate(lagging);
    assert.deepEqual(comparable(lagging.object), comparable(settled.object));
  });

  it("a synchronous denial is still the plugin's 403", () => {
    const tooBig = podCreate();
    const spec = tooBig.object?.["spec"] as Record<string, unknown>;
    spec["containers"] = [{ name: "c", image: "i", resources: { limits: { cpu: "2" } } }];
    const chain = podChain(objects, true);
    assert.equal(chain.mutate(tooBig), undefined);
    assert.throws(
      () => chain.validate(tooBig),
      (error: unknown) =>
        error instanceof Error && "code" in error && error.code === 403 && /maximum cpu usage per Container is 1, but limit is 2/.test(error.message),
    );
  });
});
