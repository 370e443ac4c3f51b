import { ApiError, badRequest, conflict, internalError, notFound } from "../../../api/errors.js";
import { isPlainObject, nowTimestamp, type ApiObject } from "../../../api/object.js";
import { selectorMatches } from "../../../api/schema/rules/values.js";
import type { CreateOnlyHandler, CreateOnlyRequest } from "../../definition.js";
import { parseListOptions } from "../../list-options.js";
import type { Store } from "../../store.js";

const SUCCESS = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };
const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function labelsOf(object: ApiObject): Record<string, string> {
  return (object.metadata.labels ?? {}) as Record<string, string>;
}

/** Ready and not being deleted: what counts towards a budget (kube's disruption controller). */
function isHealthy(pod: ApiObject): boolean {
  if (pod.metadata.deletionTimestamp !== undefined) return false;
  const conditions = record(pod["status"])["conditions"];
  return (
    Array.isArray(conditions) && conditions.some((condition) => isPlainObject(condition) && condition["type"] === "Ready" && condition["status"] === "True")
  );
}

/** An int-or-percent of `total`, percentages rounded up as kube's GetScaledValueFromIntOrPercent does for budgets. */
function scaled(value: unknown, total: number): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value !== "string") return undefined;
  const match = /^(\d+)%$/.exec(value);
  return match === null ? undefined : Math.ceil((Number(match[1]) * total) / 100);
}

interface Budget {
  readonly expected: number;
  readonly healthy: number;
  readonly desired: number;
}

/** The budget's numbers now, computed from the pods it selects (this server runs no disruption controller). */
function budgetOf(pdb: ApiObject, pods: readonly ApiObject[]): Budget {
  const spec = record(pdb["spec"]);
  const selector = record(spec["selector"]);
  const selected = pods.filter((pod) => selectorMatches(selector, labelsOf(pod)));
  const expected = selected.length;
  const healthy = selected.filter(isHealthy).length;
  const minAvailable = scaled(spec["minAvailable"], expected);
  const maxUnavailable = scaled(spec["maxUnavailable"], expected);
  const desired = minAvailable ?? (maxUnavailable === undefined ? expected : Math.max(0, expected - maxUnavailable));
  return { expected, healthy, desired };
}

function tooManyRequests(pdb: ApiObject, budget: Budget): ApiError {
  const message = `The disruption budget ${pdb.metadata.name ?? ""} needs ${budget.desired} healthy pods and has ${budget.healthy} currently`;
  return new ApiError(429, "TooManyRequests", VIOLATION, { details: { causes: [{ reason: "DisruptionBudget", message }] } });
}

/**
 * `pods/{name}/eviction` (policy/v1 Eviction): deletes the pod unless a PodDisruptionBudget
 * selecting it would be broken. As kube's: a pod that is Pending, Succeeded or Failed, or already
 * being deleted, goes without looking at budgets (a pending pod serves nothing yet); otherwise
 * the budget's allowance is computed from the pods it selects at this moment; an allowed eviction
 * records the pod in the budget's `status.disruptedPods` with a resourceVersion precondition, so
 * two evictions racing for the last allowance cannot both pass (the loser gets 429 and retries, as
 * `kubectl drain` does). A pod that is not healthy may go while the budget holds (kube's
 * IfHealthyBudget) or always (`unhealthyPodEvictionPolicy: AlwaysAllow`).
 */
export const EVICTION_HANDLER: CreateOnlyHandler = {
  group: "policy",
  version: "v1",
  kind: "Eviction",
  async create(request: CreateOnlyRequest): Promise<ApiObject> {
    if (request.object.metadata.name !== request.name) throw badRequest("name in URL does not match name in Eviction object");
    const pods = request.lookup("", "v1", "pods");
    const budgets = request.lookup("policy", "v1", "poddisruptionbudgets");
    if (pods === undefined) throw internalError("pods are not served");
    const pod = await pods.get(request.namespace, request.name);
    const phase = record(pod["status"])["phase"];
    const ignoresBudgets = phase === "Succeeded" || phase === "Failed" || phase === "Pending" || pod.metadata.deletionTimestamp !== undefined;
    if (!ignoresBudgets && budgets !== undefined) await checkBudgets(request, pods, budgets, pod);
    await deletePod(request, pods);
    return SUCCESS;
  },
};

/** kube answers several budgets selecting the pod with a 500 Status without a reason, its message bare (kubectl drain prints it as is). */
const SEVERAL_BUDGETS = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.";

/** Checks (and spends) the allowance of the budget selecting the pod; throws kube's refusals. */
async function checkBudgets(request: CreateOnlyRequest, pods: Store, budgets: Store, pod: ApiObject): Promise<void> {
  const options = parseListOptions(new URLSearchParams(), "");
  const matching = (await budgets.list(request.namespace, options)).items
    .map((item) => item.decode())
    .filter((pdb) => selectorMatches(record(record(pdb["spec"])["selector"]), labelsOf(pod)));
  if (matching.length === 0) return;
  if (matching.length > 1) throw new ApiError(500, "", SEVERAL_BUDGETS);
  const pdb = matching[0] as ApiObject;
  const all = (await pods.list(request.namespace, options)).items.map((item) => item.decode());
  const budget = budgetOf(pdb, all);
  const healthy = isHealthy(pod);
  const allowed = budget.healthy - budget.desired;
  if (!healthy) {
    // An unhealthy pod does not count towards the budget: it goes without spending the allowance
    // when the policy says always, or while the budget is met (IfHealthyBudget, the default).
    if (record(pdb["spec"])["unhealthyPodEvictionPolicy"] === "AlwaysAllow") return;
    if (budget.healthy >= budget.desired && budget.desired > 0) return;
  }
  if (allowed <= 0) throw tooManyRequests(pdb, budget);
  if (request.dryRun) return;
  const name = pdb.metadata.name ?? "";
  try {
    await budgets.update(request.namespace, name, {
      subresource: "status",
      build: () => {
        const status = record(pdb["status"]);
        return {
          ...pdb,
          status: {
            ...status,
            currentHealthy: budget.healthy,
            desiredHealthy: budget.desired,
            expectedPods: budget.expected,
            disruptionsAllowed: allowed - 1,
            disruptedPods: { ...record(status["disruptedPods"]), [request.name]: nowTimestamp() },
            observedGeneration: pdb.metadata.generation ?? 1,
          },
        };
      },
    });
  } catch (error) {
    // Another eviction used the budget first: answer as kube does when its update conflicts.
    if (error instanceof ApiError && error.code === 409) throw tooManyRequests(pdb, { ...budget, healthy: budget.healthy - 1 });
    throw error;
  }
}

interface Preconditions {
  readonly uid?: string;
  readonly resourceVersion?: string;
}

/** The Eviction's `deleteOptions.preconditions` (uid, resourceVersion). */
function preconditionsOf(eviction: ApiObject): Preconditions {
  const given = record(record(eviction["deleteOptions"])["preconditions"]);
  return {
    ...(typeof given["uid"] === "string" && given["uid"] !== "" ? { uid: given["uid"] } : {}),
    ...(typeof given["resourceVersion"] === "string" && given["resourceVersion"] !== "" ? { resourceVersion: given["resourceVersion"] } : {}),
  };
}

/** kube's `DisruptionTarget` condition (PodDisruptionConditions): added, or its status, reason and message set (a new transition time only when the status changes). */
function withDisruptionTarget(pod: ApiObject, now: string): ApiObject {
  const status = record(pod["status"]);
  const conditions = Array.isArray(status["conditions"]) ? status["conditions"].map(record) : [];
  const target = { type: "DisruptionTarget", status: "True", reason: "EvictionByEvictionAPI", message: "Eviction API: evicting" };
  const index = conditions.findIndex((condition) => condition["type"] === "DisruptionTarget");
  const existing = conditions[index];
  if (existing === undefined) conditions.push({ ...target, lastTransitionTime: now });
  else conditions[index] = { ...existing, ...target, ...(existing["status"] === "True" ? {} : { lastTransitionTime: now }) };
  return { ...pod, status: { ...status, conditions } };
}

/**
 * kube's last step of an eviction: the pod gets the `DisruptionTarget` condition (checking the
 * Eviction's preconditions against the pod as stored, in kube's words), then is deleted with
 * those preconditions (a resourceVersion one moved to the version the condition wrote).
 */
async function deletePod(request: CreateOnlyRequest, pods: Store): Promise<void> {
  const preconditions = preconditionsOf(request.object);
  const user = request.user === undefined ? {} : { user: request.user };
  try {
    let resourceVersion = preconditions.resourceVersion;
    if (!request.dryRun) {
      const target = { group: "", resource: "Pod", name: request.name };
      const { object } = await pods.update(request.namespace, request.name, {
        subresource: "status",
        ...user,
        build: (current) => {
          if (current === undefined) throw notFound({ group: "", resource: "pods", name: request.name });
          const { uid, resourceVersion: version } = current.metadata;
          if (preconditions.uid !== undefined && preconditions.uid !== uid)
            throw conflict(
              target,
              `the UID in the precondition (${preconditions.uid}) does not match the UID in record (${uid ?? ""}). The object might have been deleted and then recreated`,
            );
          if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== version)
            throw conflict(
              target,
              `the ResourceVersion in the precondition (${preconditions.resourceVersion}) does not match the ResourceVersion in record (${version ?? ""}). The object might have been modified`,
            );
          return withDisruptionTarget(current, nowTimestamp());
        },
      });
      if (resourceVersion !== undefined) resourceVersion = object.metadata.resourceVersion;
    }
    const kept = { ...(preconditions.uid === undefined ? {} : { uid: preconditions.uid }), ...(resourceVersion === undefined ? {} : { resourceVersion }) };
    await pods.delete(request.namespace, request.name, { dryRun: request.dryRun, ...user, preconditions: kept });
  } catch (error) {
    if (error instanceof ApiError && error.code === 404) throw notFound({ group: "", resource: "pods", name: request.name });
    throw error;
  }
}
