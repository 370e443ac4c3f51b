import type { ApiObject } from "../../api/object.js";
import type { ObjectFeed } from "../../authz/feed.js";
import type { UserInfo } from "../../request/context.js";
import type { RequestInfo } from "../../request/request-info.js";
import type { BootstrapConfiguration } from "./bootstrap.js";
import { allocateConcurrency, DEMAND_SMOOTHING, type AllocationItem, type LevelLimits, levelLimits, SeatDemand } from "./borrowing.js";
import { ClassificationMemo } from "./classification-memo.js";
import { compareFlowSchemas, flowDistinguisher, flowSchemaMatches, flowSchemaRule, type FlowSchemaRule } from "./classifier.js";
import type { FlowControlMetrics } from "./flowcontrol-metrics.js";
import { QueueSet, type QueueSetConfig } from "./queue-set.js";
import { flowHash } from "./shuffle-shard.js";

/** Flows whose hash is remembered, per FlowSchema. */
const MAX_REMEMBERED_FLOWS = 4096;
/** Classifications remembered by what classification reads (forgotten all at once when full, and when the objects change). */
const MAX_REMEMBERED_CLASSIFICATIONS = 4096;

/** A priority level as configured: exempt levels have no queue set. */
export interface PriorityLevel {
  readonly name: string;
  readonly uid: string;
  readonly nominalShares: number;
  readonly queueSet: QueueSet | undefined;
  /** Nominal, lower and upper seat limits from nominalConcurrencyShares, lendablePercent, borrowingLimitPercent. */
  readonly limits: LevelLimits;
  /** Seats executing plus waiting (exempt levels: executing), integrated for borrowing. */
  readonly demand: SeatDemand;
}

/** A level's state between borrowing adjustments. */
interface Borrowing {
  /** The smoothed demand envelope (kube's seatDemandStats.smoothed). */
  smoothed: number;
  /** The limit in force: nominal until the first adjustment. */
  current: number;
}

/**
 * Where one request goes. The same object is handed out for every request with the same
 * classification inputs until the FlowSchemas or priority levels change: callers may key their
 * own per-classification state on it (a WeakMap), and must not change it.
 */
export interface Classification {
  readonly flowSchema: FlowSchemaRule;
  readonly priorityLevel: PriorityLevel;
  readonly distinguisher: string;
  /** The flow's hash (schema name and distinguisher), for shuffle sharding. */
  readonly hash: number;
}

export interface FlowControlOptions {
  /** Live FlowSchemas and PriorityLevelConfigurations; undefined when the API is not served (the bootstrap objects then apply as they are). */
  readonly feeds: { readonly flowSchemas: ObjectFeed; readonly priorityLevels: ObjectFeed } | undefined;
  readonly bootstrap: BootstrapConfiguration;
  /** `--max-requests-inflight` + `--max-mutating-requests-inflight`: the seats shared out among Limited levels. */
  readonly serverConcurrencyLimit: number;
  readonly metrics: FlowControlMetrics;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function integer(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isInteger(value) ? value : fallback;
}

/**
 * API Priority and Fairness' configuration and state: FlowSchemas in matching order, and one
 * queue set per Limited priority level, rebuilt (keeping each level's queue set) whenever the
 * objects change. Each Limited level's seats are its nominalConcurrencyShares' part of the
 * server's limit, rounded up (kube's nominal concurrency limit), until `adjustBorrowing` (run every
 * 10 s by the stage) moves seats from levels that lend them to levels that need them.
 */
export class FlowControl {
  private readonly options: FlowControlOptions;
  private schemas: FlowSchemaRule[] = [];
  private levels = new Map<string, PriorityLevel>();
  private readonly borrowing = new Map<string, Borrowing>();
  /** Flow hashes by FlowSchema name, then distinguisher. */
  private readonly hashes = new Map<string, Map<string, number>>();
  /** Classifications by what classification reads (a GET's classification is a few map lookups, not a walk over every FlowSchema's rules). */
  private readonly classified = new ClassificationMemo<Classification>(MAX_REMEMBERED_CLASSIFICATIONS);
  private stale = true;
  private readonly unsubscribe: (() => void)[] = [];

  constructor(options: FlowControlOptions) {
    this.options = options;
    const markStale = () => {
      this.stale = true;
    };
    if (options.feeds !== undefined) {
      this.unsubscribe.push(options.feeds.flowSchemas.subscribe(markStale), options.feeds.priorityLevels.subscribe(markStale));
    }
  }

  close(): void {
    for (const stop of this.unsubscribe) stop();
  }

  /**
   * The first FlowSchema (by precedence, then name) that matches and whose level exists; the
   * mandatory catch-all otherwise. Remembered per classification inputs (`ClassificationMemo`)
   * until the FlowSchemas or priority levels change.
   */
  classify(user: UserInfo, info: RequestInfo): Classification {
    this.refresh();
    let found = this.classified.find(user, info);
    if (found === undefined) {
      found = this.classifyUncached(user, info);
      this.classified.remember(user, info, found);
    }
    return found;
  }

  private classifyUncached(user: UserInfo, info: RequestInfo): Classification {
    for (const schema of this.schemas) {
      const priorityLevel = this.levels.get(schema.priorityLevel);
      if (priorityLevel === undefined || !flowSchemaMatches(schema, user, info)) continue;
      const distinguisher = flowDistinguisher(schema, user, info);
      return { flowSchema: schema, priorityLevel, distinguisher, hash: this.hashOf(schema.name, distinguisher) };
    }
    const fallback = this.fallback();
    return {
      flowSchema: fallback.flowSchema,
      priorityLevel: fallback.priorityLevel,
      distinguisher: user.name,
      hash: this.hashOf(fallback.flowSchema.name, user.name),
    };
  }

  /** Hash of a flow, for shuffle sharding (remembered per flow: a SHA-256 per request is a measurable cost). */
  private hashOf(schema: string, distinguisher: string): number {
    let flows = this.hashes.get(schema);
    if (flows === undefined) {
      flows = new Map();
      this.hashes.set(schema, flows);
    }
    let hash = flows.get(distinguisher);
    if (hash === undefined) {
      // Bounded: a server with more flows than this recomputes hashes of the ones it forgot.
      if (flows.size >= MAX_REMEMBERED_FLOWS) flows.clear();
      hash = flowHash(schema, distinguisher);
      flows.set(distinguisher, hash);
    }
    return hash;
  }

  priorityLevels(): readonly PriorityLevel[] {
    this.refresh();
    return [...this.levels.values()];
  }

  /** The FlowSchema objects as last read. */
  flowSchemaObjects(): readonly ApiObject[] {
    return this.currentObjects().schemas;
  }

  /** FlowSchemas naming a priority level that does not exist (their Dangling condition is True). */
  danglingSchemas(): ReadonlySet<string> {
    this.refresh();
    return new Set(this.schemas.filter((schema) => !this.levels.has(schema.priorityLevel)).map((schema) => schema.name));
  }

  private currentObjects(): { schemas: readonly ApiObject[]; levels: readonly ApiObject[] } {
    const feeds = this.options.feeds;
    if (feeds === undefined) {
      const bootstrap = this.options.bootstrap;
      return {
        schemas: [...bootstrap.mandatoryFlowSchemas, ...bootstrap.suggestedFlowSchemas],
        levels: [...bootstrap.mandatoryPriorityLevels, ...bootstrap.suggestedPriorityLevels],
      };
    }
    return { schemas: [...feeds.flowSchemas.objects()], levels: [...feeds.priorityLevels.objects()] };
  }

  private refresh(): void {
    if (!this.stale) return;
    this.stale = false;
    // Remembered classifications name the old schema and level objects.
    this.classified.clear();
    const { schemas, levels } = this.currentObjects();
    this.schemas = schemas.map(flowSchemaRule).sort(compareFlowSchemas);
    const specs = levels.map((object) => {
      const spec = record(object["spec"]);
      const exempt = spec["type"] === "Exempt";
      return { object, spec, exempt, settings: record(exempt ? spec["exempt"] : spec["limited"]) };
    });
    const shares = (exempt: boolean, settings: Record<string, unknown>) => integer(settings["nominalConcurrencyShares"], exempt ? 0 : 30);
    const totalShares = specs.reduce((sum, { exempt, settings }) => sum + shares(exempt, settings), 0);
    const next = new Map<string, PriorityLevel>();
    for (const { object, exempt, settings } of specs) {
      const name = object.metadata.name ?? "";
      const nominalShares = shares(exempt, settings);
      const borrowingLimit = settings["borrowingLimitPercent"];
      const limits = levelLimits({
        serverConcurrencyLimit: this.options.serverConcurrencyLimit,
        shares: nominalShares,
        totalShares,
        lendablePercent: integer(settings["lendablePercent"], 0),
        // Exempt levels never borrow: their demand is served whatever the limit.
        borrowingLimitPercent: exempt ? 0 : typeof borrowingLimit === "number" ? borrowingLimit : undefined,
      });
      const previous = this.levels.get(name);
      const demand = previous?.demand ?? new SeatDemand();
      const state = this.borrowing.get(name) ?? { smoothed: 0, current: limits.nominal };
      // A changed configuration keeps the limit an adjustment gave, within the new bounds.
      state.current = Math.max(limits.min, Math.min(limits.max, state.current));
      this.borrowing.set(name, state);
      const uid = object.metadata.uid ?? "";
      if (exempt) {
        next.set(name, { name, uid, nominalShares, queueSet: undefined, limits, demand });
        continue;
      }
      const config = this.queueSetConfig(settings, Math.max(1, state.current));
      const queueSet = previous?.queueSet ?? new QueueSet(config, demand);
      if (previous?.queueSet !== undefined) queueSet.reconfigure(config);
      this.options.metrics.limits(name, limits.nominal, config.concurrencyLimit);
      next.set(name, { name, uid, nominalShares, queueSet, limits, demand });
    }
    for (const name of this.borrowing.keys()) if (!next.has(name)) this.borrowing.delete(name);
    this.levels = next;
  }

  /**
   * kube's periodic borrowing adjustment (every 10 s): each level's seat demand over the period
   * gives a target (its smoothed avg + stddev, at least its lower bound and the period's high
   * watermark up to its nominal limit, at most its upper bound); exempt levels take their high
   * watermark first; the remaining seats are shared among Limited levels in proportion to their
   * targets, each between its lower and upper bound (levels with lendablePercent lend what they do
   * not need, a level with borrowingLimitPercent 0 never exceeds its nominal seats).
   */
  adjustBorrowing(): void {
    this.refresh();
    const limited: { level: PriorityLevel; state: Borrowing; item: AllocationItem }[] = [];
    let remaining = 0;
    for (const level of this.levels.values()) remaining += level.limits.nominal;
    for (const level of this.levels.values()) {
      const state = this.borrowing.get(level.name);
      if (state === undefined) continue;
      const statistics = level.demand.take();
      const envelope = statistics.average + statistics.deviation;
      state.smoothed = Math.max(envelope, DEMAND_SMOOTHING * state.smoothed + (1 - DEMAND_SMOOTHING) * envelope);
      const { min, max, nominal } = level.limits;
      if (level.queueSet === undefined) {
        state.current = Math.max(min, statistics.highWatermark);
        remaining -= state.current;
        continue;
      }
      const lower = Math.max(min, Math.min(nominal, statistics.highWatermark));
      const target = Math.max(lower, Math.min(max, state.smoothed));
      limited.push({ level, state, item: { lower, upper: max, target } });
    }
    const { allocations } = allocateConcurrency(
      Math.max(0, remaining),
      limited.map((entry) => entry.item),
    );
    limited.forEach(({ level, state }, index) => {
      state.current = Math.max(1, Math.round(allocations[index] ?? level.limits.nominal));
      const queueSet = level.queueSet;
      if (queueSet === undefined || queueSet.concurrencyLimit === state.current) return;
      queueSet.reconfigure({ ...queueSet.configuration, concurrencyLimit: state.current });
      this.options.metrics.limits(level.name, level.limits.nominal, state.current);
    });
  }

  private queueSetConfig(limited: Record<string, unknown>, concurrencyLimit: number): QueueSetConfig {
    const response = record(limited["limitResponse"]);
    if (response["type"] !== "Queue") return { concurrencyLimit };
    const queuing = record(response["queuing"]);
    return {
      concurrencyLimit,
      queuing: {
        queues: Math.max(1, integer(queuing["queues"], 64)),
        handSize: Math.max(1, integer(queuing["handSize"], 8)),
        queueLengthLimit: Math.max(1, integer(queuing["queueLengthLimit"], 50)),
      },
    };
  }

  /** The mandatory catch-all, used when no configured schema matches (the objects are being recreated). */
  private fallback(): { flowSchema: FlowSchemaRule; priorityLevel: PriorityLevel } {
    const catchAllSchema = this.options.bootstrap.mandatoryFlowSchemas.find((object) => object.metadata.name === "catch-all");
    const flowSchema = flowSchemaRule(catchAllSchema ?? { metadata: { name: "catch-all" } });
    let priorityLevel = this.levels.get("catch-all");
    if (priorityLevel === undefined) {
      const demand = new SeatDemand();
      priorityLevel = {
        name: "catch-all",
        uid: "",
        nominalShares: 5,
        queueSet: new QueueSet({ concurrencyLimit: 1 }, demand),
        limits: { nominal: 1, min: 1, max: 1 },
        demand,
      };
      this.levels.set("catch-all", priorityLevel);
    }
    return { flowSchema, priorityLevel };
  }
}
