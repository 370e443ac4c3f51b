import type { RequestInfo } from "../../request/request-info.js";

/** kube's list work estimator: one seat per this many objects a list processes. */
export const OBJECTS_PER_SEAT = 100;
/** kube's bounds on the seats one request occupies. */
export const MIN_SEATS = 1;
export const MAX_SEATS = 10;

/**
 * The seats a request occupies while it executes, as kube's APF work estimator computes them for
 * reads: a list (or a watch that starts with its initial events, `sendInitialEvents=true`) costs
 * one seat per 100 objects it processes, between 1 and 10 seats. What it processes depends on
 * where kube serves it from: from the watch cache (a `resourceVersion` that does not ask for a
 * consistent read, no `continue`, no `limit` unless `resourceVersion=0`, match NotOlderThan or
 * none) every stored object of the resource; from storage with a label or field selector the
 * stored objects plus the limit; otherwise twice the limit (or twice the count). Other requests
 * take one seat. `stored` is the resource's object count (the `apiserver_storage_objects` poll;
 * undefined when not counted yet, which costs the minimum, as kube does without a count).
 */
export function estimateSeats(info: RequestInfo, query: URLSearchParams, stored: number | undefined): number {
  if (info.kind !== "resource" || info.name !== "" || info.subresource !== "") return MIN_SEATS;
  if (info.verb === "watch" && query.get("sendInitialEvents") !== "true") return MIN_SEATS;
  if (info.verb !== "list" && info.verb !== "watch") return MIN_SEATS;
  if (stored === undefined) return MIN_SEATS;
  const resourceVersion = query.get("resourceVersion") ?? "";
  const match = query.get("resourceVersionMatch") ?? "";
  const limitValue = Number(query.get("limit") ?? "0");
  const limited = Number.isInteger(limitValue) && limitValue > 0;
  const fromCache =
    info.verb === "watch" ||
    (resourceVersion !== "" && (query.get("continue") ?? "") === "" && !(limited && resourceVersion !== "0") && (match === "" || match === "NotOlderThan"));
  const limit = limited && limitValue < stored ? limitValue : stored;
  const selective = (query.get("labelSelector") ?? "") !== "" || (query.get("fieldSelector") ?? "") !== "";
  const processed = fromCache ? stored : selective ? stored + limit : 2 * limit;
  return Math.min(MAX_SEATS, Math.max(MIN_SEATS, Math.ceil(processed / OBJECTS_PER_SEAT)));
}

/** Whether `estimateSeats` reads the resource's object count (collection lists and watches): other requests need not look it up. */
export function readsObjectCount(info: RequestInfo): boolean {
  return info.kind === "resource" && info.name === "" && info.subresource === "" && (info.verb === "list" || info.verb === "watch");
}

/** The resource key of `apiserver_storage_objects`: `<plural>` or `<plural>.<group>`. */
export function countedResource(info: RequestInfo): string {
  if (info.kind !== "resource") return "";
  return info.group === "" ? info.resource : `${info.resource}.${info.group}`;
}

/** kube's mutating work estimator: one final seat per this many watchers to notify. */
export const WATCHES_PER_SEAT = 10;
/** kube's assumed cost of sending one event to a seat's worth of watchers. */
export const EVENT_ADDITIONAL_DURATION_MS = 5;

/** What a mutating request costs after it has executed: seats held on while its watchers are notified. */
export interface MutatingEstimate {
  /** Seats held after execution (0: none; at most MAX_SEATS). */
  readonly finalSeats: number;
  /** How long the final seats are held after execution. */
  readonly additionalLatencyMs: number;
}

/** The estimate of a request with nothing to do after it executed (shared: estimates are read, never changed). */
export const NO_MUTATING_WORK: MutatingEstimate = Object.freeze({ finalSeats: 0, additionalLatencyMs: 0 });

/**
 * kube's estimate for create, update, patch and delete: with fewer than 10 interested watchers
 * nothing extra; otherwise ceil(watchers / 10) final seats for 5 ms each, the work reshaped to at
 * most 10 seats held proportionally longer. The request executes holding max(1, final) seats.
 */
export function estimateMutating(info: RequestInfo, watchers: number): MutatingEstimate {
  if (info.kind !== "resource" || watchers < WATCHES_PER_SEAT) return NO_MUTATING_WORK;
  if (info.verb !== "create" && info.verb !== "update" && info.verb !== "patch" && info.verb !== "delete") return NO_MUTATING_WORK;
  const seats = Math.ceil(watchers / WATCHES_PER_SEAT);
  const finalSeats = Math.min(seats, MAX_SEATS);
  return { finalSeats, additionalLatencyMs: (seats * EVENT_ADDITIONAL_DURATION_MS) / finalSeats };
}
