import { isPlainObject, type ApiObject } from "../../api/object.js";
import { apiGroup, ORCH_PROFILE } from "../../api/profile.js";
import { formatQuantityIn, quantityFormat, type QuantityFormat } from "../../api/quantity.js";
import { amount } from "./quantities.js";
import { podResources, type Amount } from "./pod-resources.js";
import { containersOf, isExtendedResource, listOf, recordOf, specOf, stringOf } from "./pod-spec.js";

/**
 * The profile's spellings quota names depend on: the storage group per-class storage names carry
 * (`<class>.storageclass.<storageGroup>/requests.storage`) and the key domain of native resource
 * names (anything else with a domain is an extended resource).
 */
export interface QuotaNaming {
  readonly storageGroup: string;
  readonly keyDomain: string;
}

const DEFAULT_NAMING: QuotaNaming = { storageGroup: apiGroup(ORCH_PROFILE, "storage"), keyDomain: ORCH_PROFILE.keyDomain };

/** Usage of one object, by quota resource name (`pods`, `requests.cpu`, `count/deployments.apps`, …). */
export type Usage = Record<string, number>;

/** The format each usage amount is written in (kube's Quantity keeps the first non-zero addend's). */
export type Formats = Record<string, QuantityFormat>;

/** Quota resource names of a resource: `count/<plural>` (core) or `count/<plural>.<group>`. */
export function countName(group: string, plural: string): string {
  return group === "" ? `count/${plural}` : `count/${plural}.${group}`;
}

/** Legacy object-count names kube also accepts for core resources. */
const LEGACY_COUNTS = new Set(["pods", "services", "configmaps", "secrets", "persistentvolumeclaims", "replicationcontrollers", "resourcequotas"]);

/**
 * kube's QuotaV1Pod: whether a pod is charged beyond its object count. Not when terminal
 * (Succeeded, Failed), nor when stuck terminating past its grace period (its deletionTimestamp
 * plus deletionGracePeriodSeconds is before `now`: a lost node must not block new pods).
 */
function podCharged(pod: ApiObject, now: number): boolean {
  const phase = recordOf(pod["status"])["phase"];
  if (phase === "Succeeded" || phase === "Failed") return false;
  const { deletionTimestamp, deletionGracePeriodSeconds } = pod.metadata;
  if (deletionTimestamp === undefined || typeof deletionGracePeriodSeconds !== "number") return true;
  const deletion = Date.parse(deletionTimestamp);
  return Number.isNaN(deletion) || now <= deletion + deletionGracePeriodSeconds * 1000;
}

/** A claim's class as kube reads it: the beta annotation `volume.beta.<keyDomain>/storage-class` first, then `spec.storageClassName`. */
export function claimClass(claim: ApiObject, keyDomain: string): string | undefined {
  const annotated = claim.metadata.annotations?.[`volume.beta.${keyDomain}/storage-class`];
  if (annotated !== undefined) return annotated;
  const named = recordOf(claim["spec"])["storageClassName"];
  return typeof named === "string" ? named : undefined;
}

/**
 * A pod's usage as kube's pod evaluator computes it: the pod's requests and limits (`podResources`:
 * containers summed, init containers and sidecars, overhead) under kube's quota names — cpu, memory
 * and ephemeral-storage as `<name>`, `requests.<name>` and `limits.<name>`; hugepages as `<name>` and
 * `requests.<name>`; extended resources as `requests.<name>`. Each amount's format is recorded in `formats`.
 */
function podUsage(pod: ApiObject, usage: Usage, formats: Formats | undefined, keyDomain: string, now: number): void {
  if (!podCharged(pod, now)) return;
  usage["pods"] = 1;
  const set = (name: string, amount: Amount): void => {
    usage[name] = amount.value;
    if (formats !== undefined) formats[name] = amount.format;
  };
  const requests = podResources(specOf(pod), "requests");
  const limits = podResources(specOf(pod), "limits");
  for (const name of ["cpu", "memory", "ephemeral-storage"]) {
    const request = requests.get(name);
    if (request !== undefined) {
      set(name, request);
      set(`requests.${name}`, request);
    }
    const limit = limits.get(name);
    if (limit !== undefined) set(`limits.${name}`, limit);
  }
  for (const [name, request] of requests) {
    if (name.startsWith("hugepages-")) {
      set(name, request);
      set(`requests.${name}`, request);
    }
    if (isExtendedResource(name, keyDomain)) set(`requests.${name}`, request);
  }
}

/**
 * What one object charges against quota. A claim of a storage class also charges
 * `<class>.storageclass.<storageGroup>/requests.storage` and `…/persistentvolumeclaims` (kube's
 * per-class storage quota; `naming` carries the profile's spellings).
 */
export function usageOf(
  group: string,
  plural: string,
  object: ApiObject,
  formats?: Formats,
  naming: QuotaNaming = DEFAULT_NAMING,
  now: number = Date.now(),
): Usage {
  const usage: Usage = { [countName(group, plural)]: 1 };
  if (group !== "") return usage;
  // A pod's `pods` is charged by podUsage (not for terminal or long-terminating pods); its object count always is.
  if (LEGACY_COUNTS.has(plural) && plural !== "pods") usage[plural] = 1;
  if (plural === "pods") podUsage(object, usage, formats, naming.keyDomain, now);
  if (plural === "services") {
    const spec = recordOf(object["spec"]);
    const type = stringOf(spec["type"]);
    if (type === "LoadBalancer") usage["services.loadbalancers"] = 1;
    if (type === "NodePort" || type === "LoadBalancer") usage["services.nodeports"] = listOf(spec["ports"]).length;
  }
  if (plural === "persistentvolumeclaims") {
    const text = recordOf(recordOf(recordOf(object["spec"])["resources"])["requests"])["storage"];
    const storage = amount(text);
    const storageClass = claimClass(object, naming.keyDomain) ?? "";
    const perClass = storageClass === "" ? undefined : `${storageClass}.storageclass.${naming.storageGroup}`;
    if (perClass !== undefined) usage[`${perClass}/persistentvolumeclaims`] = 1;
    if (storage !== undefined) {
      for (const name of perClass === undefined ? ["requests.storage"] : ["requests.storage", `${perClass}/requests.storage`]) {
        usage[name] = storage;
        if (formats !== undefined) formats[name] = quantityFormat(text);
      }
    }
  }
  return usage;
}

/** A quota's scopes as requirements: each of `spec.scopes` as `Exists`, then `spec.scopeSelector.matchExpressions`. */
export function quotaScopes(quota: ApiObject): { scopeName: string; operator: string; values: string[] }[] {
  const spec = recordOf(quota["spec"]);
  const scopes = Array.isArray(spec["scopes"]) ? spec["scopes"].map(String) : [];
  const selector = listOf(recordOf(spec["scopeSelector"])["matchExpressions"]);
  return [
    ...scopes.map((scopeName) => ({ scopeName, operator: "Exists", values: [] })),
    ...selector.map((expression) => ({
      scopeName: stringOf(expression["scopeName"]),
      operator: stringOf(expression["operator"]),
      values: Array.isArray(expression["values"]) ? expression["values"].map(String) : [],
    })),
  ];
}

/** Whether a pod's (anti-)affinity has a term naming `namespaces` or a `namespaceSelector` (kube's usesCrossNamespacePodAffinity). */
function usesCrossNamespaceAffinity(spec: Record<string, unknown>): boolean {
  const affinity = recordOf(spec["affinity"]);
  return ["podAffinity", "podAntiAffinity"].some((kind) => {
    const rules = recordOf(affinity[kind]);
    const required = listOf(rules["requiredDuringSchedulingIgnoredDuringExecution"]);
    const preferred = listOf(rules["preferredDuringSchedulingIgnoredDuringExecution"]).map((weighted) => recordOf(weighted["podAffinityTerm"]));
    return [...required, ...preferred].some(
      (term) => (Array.isArray(term["namespaces"]) && term["namespaces"].length > 0) || isPlainObject(term["namespaceSelector"]),
    );
  });
}

/** Whether a pod meets one scope requirement (Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass). */
export function podInScope(object: ApiObject, requirement: { scopeName: string; operator: string; values: readonly string[] }): boolean {
  const pod = specOf(object);
  const { scopeName, operator, values } = requirement;
  switch (scopeName) {
    case "Terminating":
      return typeof pod["activeDeadlineSeconds"] === "number";
    case "NotTerminating":
      return typeof pod["activeDeadlineSeconds"] !== "number";
    case "BestEffort":
    case "NotBestEffort": {
      // kube's QoS class: BestEffort when no container asks for or is capped at a positive cpu or memory.
      const bestEffort = containersOf(pod).every((container) => {
        const resources = recordOf(container["resources"]);
        return [recordOf(resources["requests"]), recordOf(resources["limits"])].every((list) =>
          ["cpu", "memory"].every((name) => !((amount(list[name]) ?? 0) > 0)),
        );
      });
      return scopeName === "BestEffort" ? bestEffort : !bestEffort;
    }
    case "CrossNamespacePodAffinity":
      if (operator === "DoesNotExist") return !usesCrossNamespaceAffinity(pod);
      return usesCrossNamespaceAffinity(pod);
    case "PriorityClass": {
      const priorityClass = stringOf(pod["priorityClassName"]);
      if (operator === "Exists") return priorityClass !== "";
      if (operator === "DoesNotExist") return priorityClass === "";
      if (operator === "In") return values.includes(priorityClass);
      if (operator === "NotIn") return !values.includes(priorityClass);
      return false;
    }
    default:
      return false;
  }
}

/** Whether a pod is in a quota's scopes (`spec.scopes` and `spec.scopeSelector`); non-pods only match unscoped quotas. */
export function inScope(quota: ApiObject, plural: string, object: ApiObject): boolean {
  const requirements = quotaScopes(quota);
  if (requirements.length === 0) return true;
  if (plural !== "pods") return false;
  return requirements.every((requirement) => podInScope(object, requirement));
}

/** Resource names of a quota's `spec.hard`, as numbers. */
export function hardOf(quota: ApiObject): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, value] of Object.entries(recordOf(recordOf(quota["spec"])["hard"]))) {
    const quantity = amount(value);
    if (quantity !== undefined) out[name] = quantity;
  }
  return out;
}

/** Adds `usage` (with its formats) to `total`, as kube's quota.Add: a name at zero takes the addend's format. */
export function addUsage(total: Usage, totalFormats: Formats, usage: Usage, formats: Formats): void {
  for (const [name, value] of Object.entries(usage)) {
    const current = total[name] ?? 0;
    const format = formats[name];
    if (current === 0 && format !== undefined) totalFormats[name] = format;
    total[name] = current + value;
  }
}

/**
 * A usage map as a quota's `status.used` (only the names the quota tracks, zero included), each
 * written in its recorded format (counts and untracked names in DecimalSI, kube's starting zero).
 */
export function asResourceList(names: readonly string[], usage: Usage, formats: Formats = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) out[name] = formatQuantityIn(usage[name] ?? 0, formats[name] ?? "DecimalSI");
  return out;
}

/**
 * The quota bookkeeping admission and the quota controller share: a per-namespace lock (charging
 * is read-check-write on the quota's status) and the charges admitted but not yet seen stored,
 * which a recalculation counts so it never hands out what admission has promised.
 */
export class QuotaLedger {
  private readonly locks = new Map<string, Promise<void>>();
  private readonly pending = new Map<string, { readonly plural: string; readonly group: string; readonly object: ApiObject; readonly expires: number }>();

  /** `now` is the clock; `naming` the profile's spellings of quota names (`usageOf`). */
  constructor(
    private readonly now: () => number = Date.now,
    readonly naming: QuotaNaming = DEFAULT_NAMING,
  ) {}

  /** Runs `work` alone among this namespace's quota work. */
  async locked<T>(namespace: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(namespace) ?? Promise.resolve();
    let release = (): void => {};
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.locks.set(namespace, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (this.locks.get(namespace) === tail) this.locks.delete(namespace);
    }
  }

  /**
   * Records an admitted object (counted by recalculations until it is seen stored or a minute passes).
   * Entries are kept in expiry order and the expired ones at the front dropped here: on a server whose
   * quota controller does not run (another server holds the controllers' Lease, or
   * `--controllers=-resourcequota`) neither `stored` nor `inFlight` ever drops them.
   */
  charge(group: string, plural: string, object: ApiObject): void {
    const now = this.now();
    for (const [key, entry] of this.pending) {
      if (entry.expires >= now) break;
      this.pending.delete(key);
    }
    const key = `${group}/${plural}/${object.metadata.namespace ?? ""}/${object.metadata.name ?? ""}`;
    this.pending.delete(key);
    this.pending.set(key, { group, plural, object, expires: now + 60_000 });
  }

  /** Admitted objects recorded and not dropped yet. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Forgets an admitted object once it is seen stored (the quota controller's informers): a later delete of it then gives its usage back. */
  stored(group: string, plural: string, object: ApiObject): void {
    this.pending.delete(`${group}/${plural}/${object.metadata.namespace ?? ""}/${object.metadata.name ?? ""}`);
  }

  /** Admitted objects of a namespace that a listing (`stored` keys `<group>/<plural>/<namespace>/<name>`) does not show yet. */
  inFlight(namespace: string, stored: ReadonlySet<string>): { group: string; plural: string; object: ApiObject }[] {
    const out: { group: string; plural: string; object: ApiObject }[] = [];
    for (const [key, entry] of this.pending) {
      if (entry.expires < this.now() || stored.has(key)) {
        this.pending.delete(key);
        continue;
      }
      if ((entry.object.metadata.namespace ?? "") === namespace) out.push(entry);
    }
    return out;
  }
}
