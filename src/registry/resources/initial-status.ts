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

/*
 * Status fields kube's Go types write even when zero (JSON tags without `omitempty`): a new object
 * shows them as 0 before any controller has looked at it, and typed clients require them (the
 * Python client refuses a ReplicaSet whose status has no `replicas`).
 */

/** ReplicaSets and ReplicationControllers. */
export const REPLICAS_STATUS = initialStatus(() => ({ replicas: 0 }));
export const STATEFUL_SET_STATUS = initialStatus(() => ({ replicas: 0, availableReplicas: 0 }));
export const DAEMON_SET_STATUS = initialStatus(() => ({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }));
export const PDB_STATUS = initialStatus(() => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }));
/** v2's `currentMetrics` has no `omitempty` either: kube answers `currentMetrics: null` until the autoscaler writes some. */
export const HPA_V2_STATUS = initialStatus(() => ({ desiredReplicas: 0, currentMetrics: null }));
/** autoscaling/v1 writes both counts; v2 omits a zero `currentReplicas` (stored without it, conversion.ts). */
export const HPA_V1_STATUS = initialStatus(() => ({ currentReplicas: 0, desiredReplicas: 0 }));
