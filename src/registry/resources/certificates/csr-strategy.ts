import { cloneObject, isPlainObject, type ApiObject } from "../../../api/object.js";
import { forbidden } from "../../../api/schema/field-path.js";
import type { FieldError } from "../../../api/errors.js";
import type { Strategy, StrategyContext } from "../../definition.js";

type Condition = Record<string, unknown>;

/** Conditions only the approval sub-resource sets, and which no update may take away. */
const APPROVAL = ["Approved", "Denied"];
const PERMANENT = ["Approved", "Denied", "Failed"];

function conditionsOf(object: ApiObject): Condition[] {
  const status = isPlainObject(object["status"]) ? object["status"] : {};
  return Array.isArray(status["conditions"]) ? status["conditions"].filter(isPlainObject) : [];
}

function setConditions(object: ApiObject, conditions: Condition[]): void {
  const status = isPlainObject(object["status"]) ? object["status"] : {};
  if (conditions.length === 0) delete status["conditions"];
  else status["conditions"] = conditions;
  object["status"] = status;
}

/** Missing timestamps are now; a condition whose status did not change keeps its transition time. */
function populateTimestamps(object: ApiObject, old: ApiObject, now: string): void {
  const previous = conditionsOf(old);
  setConditions(
    object,
    conditionsOf(object).map((condition) => {
      const result = { ...condition };
      if (typeof result["lastUpdateTime"] !== "string" || result["lastUpdateTime"] === "") result["lastUpdateTime"] = now;
      if (typeof result["lastTransitionTime"] !== "string" || result["lastTransitionTime"] === "") {
        const same = previous.find((entry) => entry["type"] === result["type"] && entry["status"] === result["status"]);
        result["lastTransitionTime"] = typeof same?.["lastTransitionTime"] === "string" ? same["lastTransitionTime"] : now;
      }
      return result;
    }),
  );
}

/**
 * A `status` write keeps the approval conditions as they were. As kube's strategy does, when
 * the write carries as many of a type as stored, each is put back where the write has it (so
 * a signer appending `Failed` leaves `Approved` first); otherwise the stored ones replace
 * whatever the write sent, after its other conditions.
 */
function preserveApproval(conditions: Condition[], previous: Condition[]): Condition[] {
  let result = [...conditions];
  for (const type of APPROVAL) {
    const stored = previous.filter((condition) => condition["type"] === type);
    const sent = result.flatMap((condition, index) => (condition["type"] === type ? [index] : []));
    if (sent.length === stored.length) {
      sent.forEach((index, i) => {
        const kept = stored[i];
        if (kept !== undefined) result[index] = kept;
      });
    } else {
      result = [...result.filter((condition) => condition["type"] !== type), ...stored];
    }
  }
  return result;
}

/**
 * CertificateSigningRequest, as kube's strategies treat it: the requester (username, uid, groups,
 * extra) is recorded from the authenticated user on create, never from the body; the spec never
 * changes after create; Approved/Denied come only through `approval`, which changes nothing but
 * the conditions; `status` writes keep the approval conditions; no update removes Approved,
 * Denied or Failed.
 */
export const CSR_STRATEGY: Partial<Strategy> = {
  prepareForCreate(csr, context) {
    const spec = isPlainObject(csr["spec"]) ? csr["spec"] : {};
    delete spec["username"];
    delete spec["uid"];
    delete spec["groups"];
    delete spec["extra"];
    const user = context.user;
    if (user !== undefined) {
      spec["username"] = user.name;
      if (user.uid !== undefined && user.uid !== "") spec["uid"] = user.uid;
      if (user.groups.length > 0) spec["groups"] = [...user.groups];
      if (user.extra !== undefined && Object.keys(user.extra).length > 0)
        spec["extra"] = Object.fromEntries(Object.entries(user.extra).map(([key, values]) => [key, [...values]]));
    }
    csr["spec"] = spec;
  },
  prepareForUpdate(csr, old) {
    csr["spec"] = cloneObject(old)["spec"];
  },
  prepareForStatusUpdate(csr, old, context: StrategyContext) {
    setConditions(csr, preserveApproval(conditionsOf(csr), conditionsOf(old)));
    populateTimestamps(csr, old, context.now);
  },
  updateSubresource(subresource, desired, old, context) {
    if (subresource !== "approval") return old;
    const next = cloneObject(old);
    setConditions(next, conditionsOf(desired));
    populateTimestamps(next, old, context.now);
    return next;
  },
  validateUpdate(csr, old): FieldError[] {
    const now = new Set(conditionsOf(csr).map((condition) => String(condition["type"])));
    return conditionsOf(old)
      .map((condition) => String(condition["type"]))
      .filter((type, index, all) => PERMANENT.includes(type) && !now.has(type) && all.indexOf(type) === index)
      .map((type) => forbidden("status.conditions", `updates may not remove a condition of type "${type}"`));
  },
};
