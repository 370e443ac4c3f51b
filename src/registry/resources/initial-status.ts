import type { ApiObject } from "../../api/object.js";
import type { Strategy, StrategyContext } from "../definition.js";

/**
 * A strategy that gives new objects kube's initial status. The Store has already dropped the
 * status the client sent (kinds with a status sub-resource); this sets what kube's strategy sets.
 */
export function initialStatus(status: (object: ApiObject, context: StrategyContext) => Record<string, unknown>): Partial<Strategy> {
  return {
    prepareForCreate(object, context) {
      object["status"] = status(object, context);
    },
  };
}

/** Services and Ingresses: an empty load balancer. */
export const LOAD_BALANCER_STATUS = initialStatus(() => ({ loadBalancer: {} }));
