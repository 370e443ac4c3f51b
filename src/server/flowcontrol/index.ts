import type { Registry as MetricsRegistry } from "prom-client";
import type { Profile } from "../../api/profile.js";
import type { Registry } from "../../registry/index.js";
import type { Filter } from "../../request/context.js";
import { errorFields, type Logger } from "../../util/logger.js";
import { priorityAndFairnessFilter } from "../filters/priority-and-fairness.js";
import { bootstrapConfiguration } from "./bootstrap.js";
import { ADJUSTMENT_PERIOD_MS } from "./borrowing.js";
import { ensureBootstrapConfiguration, keepBootstrapConfiguration, updateDanglingConditions } from "./configuration-keeper.js";
import { dumpPriorityLevels, dumpQueues, dumpRequests } from "./dumps.js";
import { FlowControl } from "./flow-control.js";
import { flowControlMetrics } from "./flowcontrol-metrics.js";
import { WatchTracker } from "./watch-tracker.js";

export { bootstrapConfiguration, type BootstrapConfiguration } from "./bootstrap.js";
export { FlowControl, type Classification, type PriorityLevel } from "./flow-control.js";
export { QueueSet, type QueueSetConfig } from "./queue-set.js";
export { dealHand } from "./shuffle-shard.js";
export { WatchTracker } from "./watch-tracker.js";

export interface FlowControlStageOptions {
  readonly registry: Registry;
  readonly profile: Profile;
  readonly logger: Logger;
  readonly metrics: MetricsRegistry;
  /** `--max-requests-inflight` + `--max-mutating-requests-inflight`. */
  readonly serverConcurrencyLimit: number;
  /** How long a request may wait in a queue (kube: a quarter of `--request-timeout`). */
  readonly waitLimitMs: number;
  /** Stored objects per resource (`<plural>[.<group>]`, the `apiserver_storage_objects` poll): lists' seat estimates. */
  readonly objectCount?: (resource: string) => number | undefined;
}

/** API Priority and Fairness as the composition root wires it. */
export interface FlowControlStage {
  readonly flowControl: FlowControl;
  readonly filter: Filter;
  /** The `/debug/api_priority_and_fairness/dump_*` pages. */
  readonly debug: ReadonlyMap<string, (query: URLSearchParams) => string>;
  /** Puts the bootstrap objects in place (after the registry started) and every minute after, then keeps FlowSchemas' Dangling conditions current. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Builds flow control over the registry's FlowSchema and PriorityLevelConfiguration feeds (asked
 * for here, before the registry starts). With the flowcontrol API turned off (`--runtime-config`),
 * the bootstrap configuration applies as it is.
 */
export function createFlowControlStage(options: FlowControlStageOptions): FlowControlStage {
  const { registry, profile, logger } = options;
  const bootstrap = bootstrapConfiguration(profile);
  const served =
    registry.find(bootstrap.group, "v1", "flowschemas") !== undefined && registry.find(bootstrap.group, "v1", "prioritylevelconfigurations") !== undefined;
  const feeds = served
    ? { flowSchemas: registry.feed(bootstrap.group, "v1", "flowschemas"), priorityLevels: registry.feed(bootstrap.group, "v1", "prioritylevelconfigurations") }
    : undefined;
  const metrics = flowControlMetrics(options.metrics);
  const flowControl = new FlowControl({ feeds, bootstrap, serverConcurrencyLimit: options.serverConcurrencyLimit, metrics });
  const filter = priorityAndFairnessFilter({
    flowControl,
    metrics,
    profile,
    waitLimitMs: options.waitLimitMs,
    objectCount: options.objectCount,
    watches: new WatchTracker(),
  });
  const prefix = "/debug/api_priority_and_fairness";
  const debug = new Map<string, (query: URLSearchParams) => string>([
    [`${prefix}/dump_priority_levels`, () => dumpPriorityLevels(flowControl)],
    [`${prefix}/dump_queues`, () => dumpQueues(flowControl)],
    [`${prefix}/dump_requests`, (query) => dumpRequests(flowControl, query.get("includeRequestDetails") === "1")],
  ]);

  // Dangling conditions: one pass at a time, another queued behind it when objects change meanwhile.
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const unsubscribe: (() => void)[] = [];
  // Borrowing: seats move between levels by demand, every adjustment period (kube: 10 s).
  const adjuster = setInterval(() => flowControl.adjustBorrowing(), ADJUSTMENT_PERIOD_MS);
  adjuster.unref();
  const schemas = registry.find(bootstrap.group, "v1", "flowschemas");
  const pass = (): void => {
    if (stopped || schemas === undefined) return;
    if (running !== undefined) {
      again = true;
      return;
    }
    running = updateDanglingConditions(schemas, flowControl)
      .catch((error: unknown) => logger.error("flowschema status", errorFields(error)))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          pass();
        }
      });
  };
  return {
    flowControl,
    filter,
    debug,
    async start() {
      if (feeds === undefined) return;
      await ensureBootstrapConfiguration(registry, bootstrap);
      // kube's ensurer keeps running every minute after the start: changed mandatory objects go back.
      unsubscribe.push(keepBootstrapConfiguration(registry, bootstrap, { onError: (error) => logger.error("flowcontrol bootstrap", errorFields(error)) }));
      // Requests classify by the feeds: let them reflect the objects just written before serving.
      await registry.freshness.waitForCurrent(5000);
      // Feeds call listeners while applying a change: the pass runs after it.
      const later = () => void setImmediate(pass);
      unsubscribe.push(feeds.flowSchemas.subscribe(later), feeds.priorityLevels.subscribe(later));
      pass();
    },
    async stop() {
      stopped = true;
      clearInterval(adjuster);
      for (const stop of unsubscribe) stop();
      flowControl.close();
      await running;
    },
  };
}
