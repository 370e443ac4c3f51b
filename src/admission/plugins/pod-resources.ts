import { formatQuantityIn, quantityFormat, quantityValue, type QuantityFormat } from "../../api/quantity.js";
import { isPlainObject } from "../../api/object.js";

/** A summed quantity: its value and the format it is written in (the first non-zero addend's). */
export interface Amount {
  value: number;
  format: QuantityFormat;
}

/** A resource list being summed, by resource name, in the order names were first seen. */
export type Amounts = Map<string, Amount>;

/** Adds one quantity as apimachinery's Add does: a zero takes the other's format. */
export function addAmount(list: Amounts, name: string, amount: Amount): void {
  const current = list.get(name);
  if (current === undefined) {
    list.set(name, { ...amount });
    return;
  }
  if (current.value === 0) current.format = amount.format;
  current.value += amount.value;
}

function addAll(list: Amounts, other: Amounts): void {
  for (const [name, amount] of other) addAmount(list, name, amount);
}

/** Each resource's larger amount (a tie keeps the first). */
function maxAll(list: Amounts, other: Amounts): void {
  for (const [name, amount] of other) {
    const current = list.get(name);
    if (current === undefined || amount.value > current.value) list.set(name, { ...amount });
  }
}

/** A ResourceList field as amounts; values that are not quantities are skipped (validation refused them). */
export function amountsOf(resourceList: unknown): Amounts {
  const out: Amounts = new Map();
  if (!isPlainObject(resourceList)) return out;
  for (const [name, raw] of Object.entries(resourceList)) {
    const value = quantityValue(raw);
    if (value !== undefined) out.set(name, { value, format: quantityFormat(raw) });
  }
  return out;
}

function containers(spec: Record<string, unknown>, list: "containers" | "initContainers"): Record<string, unknown>[] {
  const value = spec[list];
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

function resourcesOf(container: Record<string, unknown>, field: "requests" | "limits"): Amounts {
  const resources = container["resources"];
  return amountsOf(isPlainObject(resources) ? resources[field] : undefined);
}

/**
 * What a pod asks for (`requests`) or is capped at (`limits`), as the scheduler and quota count it
 * (kube's PodRequests / PodLimits): the regular containers summed; each init container runs alone
 * beside the sidecars started before it (init containers with `restartPolicy: Always`, which also
 * run for the pod's life and so add to the sum), and the pod needs the larger of the sum and the
 * largest init step; then the pod overhead, which for limits is added only to resources already limited.
 */
export function podResources(spec: Record<string, unknown>, field: "requests" | "limits", options: { readonly overhead?: boolean } = {}): Amounts {
  const total: Amounts = new Map();
  for (const container of containers(spec, "containers")) addAll(total, resourcesOf(container, field));
  const sidecars: Amounts = new Map();
  const initSteps: Amounts = new Map();
  for (const container of containers(spec, "initContainers")) {
    const own = resourcesOf(container, field);
    let step: Amounts;
    if (container["restartPolicy"] === "Always") {
      addAll(total, own);
      addAll(sidecars, own);
      step = sidecars;
    } else {
      step = new Map();
      addAll(step, own);
      addAll(step, sidecars);
    }
    maxAll(initSteps, step);
  }
  maxAll(total, initSteps);
  // LimitRanger leaves the overhead out (kube's own copy of these sums, as a user cannot set it).
  if (options.overhead === false) return total;
  const overhead = amountsOf(spec["overhead"]);
  if (field === "requests") addAll(total, overhead);
  else for (const [name, amount] of overhead) if (total.has(name)) addAmount(total, name, amount);
  return total;
}

/** Amounts as a resource list of quantity texts, each written in its format. */
export function resourceListOf(amounts: Amounts): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, amount] of amounts) out[name] = formatQuantityIn(amount.value, amount.format);
  return out;
}
