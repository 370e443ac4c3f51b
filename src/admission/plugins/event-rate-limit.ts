import { isPlainObject } from "../../api/object.js";
import { admissionNames, foreignConfigHint, type Profile } from "../../api/profile.js";
import { AdmissionConfigError, tooManyRequests } from "../deny.js";
import type { PluginContext } from "../context.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../interface.js";
import { recordOf, stringOf } from "./pod-spec.js";

const TYPES = ["Server", "Namespace", "User", "SourceAndObject"] as const;
type LimitType = (typeof TYPES)[number];

export interface EventRateLimitConfig {
  readonly limits: readonly { readonly type: LimitType; readonly qps: number; readonly burst: number; readonly cacheSize: number }[];
}

/** Reads the `Configuration` (`eventratelimit.admission.<apiDomain>/v1alpha1`); errors name the field. */
export function parseEventRateLimitConfig(raw: unknown, profile: Profile): EventRateLimitConfig {
  const fail = (field: string, message: string): never => {
    throw new AdmissionConfigError(`plugin "EventRateLimit": ${field}: ${message}`);
  };
  if (!isPlainObject(raw)) return fail("configuration", "required: a Configuration with limits");
  const apiVersion = `${admissionNames(profile).eventRateLimitGroup}/v1alpha1`;
  if (raw["apiVersion"] !== apiVersion)
    fail("apiVersion", `must be ${apiVersion}${foreignConfigHint(admissionNames(profile).eventRateLimitGroup, raw["apiVersion"])}`);
  if (raw["kind"] !== "Configuration") fail("kind", "must be Configuration");
  const limits = raw["limits"];
  if (!Array.isArray(limits) || limits.length === 0) return fail("limits", "must have at least one limit");
  return {
    limits: limits.map((limit: unknown, index) => {
      const item = recordOf(limit);
      const type = item["type"];
      if (!(TYPES as readonly unknown[]).includes(type)) fail(`limits[${index}].type`, `must be one of ${TYPES.join(", ")}`);
      const qps = item["qps"];
      const burst = item["burst"];
      if (typeof qps !== "number" || qps <= 0) fail(`limits[${index}].qps`, "must be positive");
      if (typeof burst !== "number" || burst <= 0 || !Number.isInteger(burst)) fail(`limits[${index}].burst`, "must be a positive integer");
      const cacheSize = item["cacheSize"] ?? 4096;
      if (typeof cacheSize !== "number" || cacheSize <= 0 || !Number.isInteger(cacheSize)) fail(`limits[${index}].cacheSize`, "must be a positive integer");
      return { type: type as LimitType, qps: qps as number, burst: burst as number, cacheSize: cacheSize as number };
    }),
  };
}

/** A token bucket: `burst` tokens, refilled at `qps` per second. */
class Bucket {
  private tokens: number;
  private last: number;
  constructor(
    private readonly qps: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.last = now;
  }
  take(now: number): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** Buckets by key, the least recently used dropped past `cacheSize`. */
class BucketCache {
  private readonly buckets = new Map<string, Bucket>();
  constructor(private readonly limit: EventRateLimitConfig["limits"][number]) {}
  take(key: string, now: number): boolean {
    let bucket = this.buckets.get(key);
    if (bucket === undefined) bucket = new Bucket(this.limit.qps, this.limit.burst, now);
    else this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.limit.cacheSize) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
    return bucket.take(now);
  }
}

function keyOf(type: LimitType, attributes: AdmissionAttributes): string {
  switch (type) {
    case "Server":
      return "";
    case "Namespace":
      return attributes.namespace;
    case "User":
      return attributes.user?.name ?? "";
    case "SourceAndObject": {
      const event = recordOf(attributes.object);
      const source = recordOf(event["source"]);
      const involved = recordOf(event["involvedObject"] ?? event["regarding"]);
      return [
        stringOf(source["component"]) || stringOf(event["reportingController"]),
        stringOf(source["host"]),
        stringOf(involved["kind"]),
        stringOf(involved["namespace"]),
        stringOf(involved["name"]),
        stringOf(involved["uid"]),
        stringOf(involved["apiVersion"]),
      ].join("/");
    }
  }
}

/**
 * EventRateLimit: creating Events (core and the events group) draws from token buckets per limit
 * type (one for the server, one per namespace, user, or event source and object); an empty bucket
 * is 429 with `Retry-After`. Spending a token is a side effect, so dry-run requests skip it.
 */
export function eventRateLimit(context: PluginContext): AdmissionPlugin {
  const config = context.configuration as EventRateLimitConfig | undefined;
  if (config === undefined) throw new AdmissionConfigError(`plugin "EventRateLimit": configuration: required in --admission-control-config-file`);
  const caches = config.limits.map((limit) => ({ limit, cache: new BucketCache(limit) }));
  return {
    name: "EventRateLimit",
    resources: new Set(["events"]),
    sideEffects: true,
    handles: (operation) => operation === "CREATE",
    async validate(attributes) {
      const now = context.now();
      for (const { limit, cache } of caches) {
        const key = keyOf(limit.type, attributes);
        if (!cache.take(key, now)) throw tooManyRequests(`limit reached on type ${limit.type} for key ${key}`, Math.max(1, Math.ceil(1 / limit.qps)));
      }
    },
  };
}
