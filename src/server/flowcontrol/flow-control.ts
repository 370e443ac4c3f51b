import type { ApiObject } from "../../api/object.js";
import type { ObjectFeed } from "../../authz/feed.js";
import type { UserInfo } from "../../request/context.js";
import type { RequestInfo } from "../../request/request-info.js";
import type { BootstrapConfiguration } from "./bootstrap.js";
import { compareFlowSchemas, flowDistinguisher, flowSchemaMatches, flowSchemaRule, type FlowSchemaRule } from "./classifier.js";
import type { FlowControlMetrics } from "./flowcontrol-metrics.js";
import { QueueSet, type QueueSetConfig } from "./queue-set.js";
import { flowHash } from "./shuffle-shard.js";

/** A priority level as configured: exempt levels have no queue set. */
export interface PriorityLevel {
  readonly name: string;
  readonly uid: string;
  readonly nominalShares: number;
  readonly queueSet: QueueSet | undefined;
}

/** Where one request goes. */
export interface Classification {
  readonly flowSchema: FlowSchemaRule;
  readonly priorityLevel: PriorityLevel;
  readonly distinguisher: string;
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
 * server's limit, rounded up (kube's nominal concurrency limit); lending and borrowing are not
 * done, so a level never exceeds its nominal seats.
 */
export class FlowControl {
  private readonly options: FlowControlOptions;
  private schemas: FlowSchemaRule[] = [];
  private levels = new Map<string, PriorityLevel>();
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

  /** The first FlowSchema (by precedence, then name) that matches and whose level exists; the mandatory catch-all otherwise. */
  classify(user: UserInfo, info: RequestInfo): Classification {
    this.refresh();
    for (const schema of this.schemas) {
      const priorityLevel = this.levels.get(schema.priorityLevel);
      if (priorityLevel === undefined || !flowSchemaMatches(schema, user, info)) continue;
      return { flowSchema: schema, priorityLevel, distinguisher: flowDistinguisher(schema, user, info) };
    }
    const fallback = this.fallback();
    return { flowSchema: fallback.flowSchema, priorityLevel: fallback.priorityLevel, distinguisher: user.name };
  }

  /** Hash of a classified request's flow, for shuffle sharding. */
  hashOf(classification: Classification): number {
    return flowHash(classification.flowSchema.name, classification.distinguisher);
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
    const { schemas, levels } = this.currentObjects();
    this.schemas = schemas.map(flowSchemaRule).sort(compareFlowSchemas);
    const specs = levels.map((object) => ({ object, spec: record(object["spec"]) }));
    const shares = (spec: Record<string, unknown>) =>
      integer(record(spec["type"] === "Exempt" ? spec["exempt"] : spec["limited"])["nominalConcurrencyShares"], spec["type"] === "Exempt" ? 0 : 30);
    const totalShares = specs.reduce((sum, { spec }) => sum + shares(spec), 0);
    const next = new Map<string, PriorityLevel>();
    for (const { object, spec } of specs) {
      const name = object.metadata.name ?? "";
      const nominalShares = shares(spec);
      const previous = this.levels.get(name);
      if (spec["type"] === "Exempt") {
        next.set(name, { name, uid: object.metadata.uid ?? "", nominalShares, queueSet: undefined });
        continue;
      }
      const config = this.queueSetConfig(record(spec["limited"]), nominalShares, totalShares);
      const queueSet = previous?.queueSet ?? new QueueSet(config);
      if (previous?.queueSet !== undefined) queueSet.reconfigure(config);
      this.options.metrics.limits(name, config.concurrencyLimit, config.concurrencyLimit);
      next.set(name, { name, uid: object.metadata.uid ?? "", nominalShares, queueSet });
    }
    this.levels = next;
  }

  private queueSetConfig(limited: Record<string, unknown>, shares: number, totalShares: number): QueueSetConfig {
    const concurrencyLimit = Math.max(1, Math.ceil((this.options.serverConcurrencyLimit * shares) / Math.max(1, totalShares)));
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
      priorityLevel = { name: "catch-all", uid: "", nominalShares: 5, queueSet: new QueueSet({ concurrencyLimit: 1 }) };
      this.levels.set("catch-all", priorityLevel);
    }
    return { flowSchema, priorityLevel };
  }
}
