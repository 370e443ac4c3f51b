import { MetricVisibility, ShowHiddenMetricsError } from "../server/metrics/stability.js";
import { DEFAULT_FEATURE_GATES, FeatureGateError, featureGates, parseFeatureGates } from "../util/feature-gates.js";
import { apiGroup } from "../api/profile.js";
import type { AuditConfig, AuditTruncateConfig } from "./config.js";
import { AUDIT_LOG_MODES } from "../server/audit/log-backend.js";
import { AUDIT_WEBHOOK_MODES } from "../server/audit/webhook-backend.js";
import { FlagError, parseBool, parseChoice, parseCount, parseDurationFlag, type FlagSpec, type MutableConfig } from "./flag-spec.js";

function nonNegative(value: string, flag: string): number {
  if (!/^\d+$/.test(value)) throw new FlagError(`invalid value "${value}" for flag --${flag}: must be a non-negative integer`);
  return Number(value);
}

function setAudit(config: MutableConfig, change: Partial<AuditConfig>): void {
  config.audit = { ...config.audit, ...change };
}

/** `--audit-<backend>-truncate-enabled`, `-max-batch-size`, `-max-event-size` (kube's defaults: off, 10 MiB, 100 KiB). */
function truncateFlags(backend: "log" | "webhook"): FlagSpec[] {
  const key = backend === "log" ? "logTruncate" : "webhookTruncate";
  const set = (config: MutableConfig, change: Partial<AuditTruncateConfig>): void => setAudit(config, { [key]: { ...config.audit[key], ...change } });
  return [
    {
      name: `audit-${backend}-truncate-enabled`,
      help: `Whether large ${backend} audit events lose their request and response objects (annotated audit.<domain>/truncated) and batches are split.`,
      defaultText: "false",
      boolean: true,
      apply: (config, value) => set(config, { enabled: parseBool(value, `audit-${backend}-truncate-enabled`) }),
    },
    {
      name: `audit-${backend}-truncate-max-batch-size`,
      help: "Bytes of events handed on at once at most; a larger batch is split.",
      defaultText: "10485760",
      apply: (config, value) => set(config, { maxBatchBytes: parseCount(value, `audit-${backend}-truncate-max-batch-size`) }),
    },
    {
      name: `audit-${backend}-truncate-max-event-size`,
      help: "Bytes of one event at most: a larger one is truncated, and dropped if still too large.",
      defaultText: "102400",
      apply: (config, value) => set(config, { maxEventBytes: parseCount(value, `audit-${backend}-truncate-max-event-size`) }),
    },
  ];
}

/** Every `--feature-gates` setting so far; the gates are rebuilt from them on each use of the flag. */
const gateSettings = new WeakMap<MutableConfig, Map<string, boolean>>();

/** The operations flags: audit, feature gates, tracing and HTTP/2 GOAWAY (kube's names and defaults). */
export const OPERATIONS_FLAGS: readonly FlagSpec[] = [
  {
    name: "audit-policy-file",
    help: "Audit Policy (audit.<domain>/v1): the first matching rule sets each request's level. Needs a log or webhook backend.",
    defaultText: "",
    apply: (config, value) => setAudit(config, { policyFile: value }),
  },
  {
    name: "audit-log-path",
    help: "Write audit events to this file, one JSON event per line; - is standard output.",
    defaultText: "",
    apply: (config, value) => setAudit(config, { logPath: value }),
  },
  {
    name: "audit-log-maxage",
    help: "Days to keep rotated audit log files; 0 keeps them.",
    defaultText: "0",
    apply: (config, value) => setAudit(config, { logMaxAgeDays: nonNegative(value, "audit-log-maxage") }),
  },
  {
    name: "audit-log-maxbackup",
    help: "Rotated audit log files to keep; 0 keeps all.",
    defaultText: "0",
    apply: (config, value) => setAudit(config, { logMaxBackups: nonNegative(value, "audit-log-maxbackup") }),
  },
  {
    name: "audit-log-maxsize",
    help: "Megabytes an audit log file may grow to before it is rotated; 0 means 100.",
    defaultText: "0",
    apply: (config, value) => setAudit(config, { logMaxSizeMb: nonNegative(value, "audit-log-maxsize") }),
  },
  {
    name: "audit-log-format",
    help: "Format of audit log lines: json (kube's Event, one per line) or legacy (kube's one-line text: timestamp, AUDIT: id, stage, ip, method, user…).",
    defaultText: "json",
    apply: (config, value) => {
      if (value !== "json" && value !== "legacy") throw new FlagError(`invalid value "${value}" for flag --audit-log-format: known formats are legacy,json`);
      setAudit(config, { logFormat: value });
    },
  },
  {
    name: "audit-log-compress",
    help: "Gzip each rotated audit log file (the backup gets a .gz suffix).",
    defaultText: "false",
    boolean: true,
    apply: (config, value) => setAudit(config, { logCompress: parseBool(value, "audit-log-compress") }),
  },
  {
    name: "audit-log-version",
    help: "API group and version of the events written to the log (only audit.<domain>/v1).",
    defaultText: "audit.<domain>/v1",
    apply: (config, value) => setAudit(config, { logVersion: value }),
  },
  {
    name: "audit-log-mode",
    help: "How events reach the log file: blocking (never dropped; written on the server's thread at the end of each event-loop turn), blocking-strict (also fails a request whose RequestReceived event cannot be written), batch (bounded buffer, written off the main thread; overflow dropped and counted).",
    defaultText: "blocking",
    apply: (config, value) => setAudit(config, { logMode: parseChoice(value, AUDIT_LOG_MODES, "audit-log-mode") }),
  },
  {
    name: "audit-log-batch-buffer-size",
    help: "Events buffered before they are written; beyond it new events are dropped (and counted). Batch mode only.",
    defaultText: "10000",
    apply: (config, value) => setAudit(config, { logBatchBufferSize: parseCount(value, "audit-log-batch-buffer-size") }),
  },
  {
    name: "audit-log-batch-max-size",
    help: "Events written together at most. Batch mode only.",
    defaultText: "1",
    apply: (config, value) => setAudit(config, { logBatchMaxSize: parseCount(value, "audit-log-batch-max-size") }),
  },
  {
    name: "audit-log-batch-max-wait",
    help: "How long a write of fewer than --audit-log-batch-max-size events waits for more. Batch mode only.",
    defaultText: "0s",
    apply: (config, value) => setAudit(config, { logBatchMaxWaitMs: parseDurationFlag(value, "audit-log-batch-max-wait") }),
  },
  {
    name: "audit-log-batch-throttle-enable",
    help: "Whether writes are throttled (--audit-log-batch-throttle-qps, -burst). Batch mode only.",
    defaultText: "false",
    boolean: true,
    apply: (config, value) => setAudit(config, { logBatchThrottleEnable: parseBool(value, "audit-log-batch-throttle-enable") }),
  },
  {
    name: "audit-log-batch-throttle-qps",
    help: "Writes per second at most on average, when throttling is enabled. Batch mode only.",
    defaultText: "0",
    apply: (config, value) => {
      const qps = Number(value);
      if (value.trim() === "" || !Number.isFinite(qps) || qps < 0)
        throw new FlagError(`invalid value "${value}" for flag --audit-log-batch-throttle-qps: must be a non-negative number`);
      setAudit(config, { logBatchThrottleQps: qps });
    },
  },
  {
    name: "audit-log-batch-throttle-burst",
    help: "Writes at once at most when the throttle has been idle, when throttling is enabled. Batch mode only.",
    defaultText: "0",
    apply: (config, value) => setAudit(config, { logBatchThrottleBurst: nonNegative(value, "audit-log-batch-throttle-burst") }),
  },
  ...truncateFlags("log"),
  {
    name: "audit-webhook-config-file",
    help: "Kubeconfig-format file of the audit webhook: batches of events are POSTed to it as an EventList.",
    defaultText: "",
    apply: (config, value) => setAudit(config, { webhookConfigFile: value }),
  },
  {
    name: "audit-webhook-mode",
    help: "How events reach the webhook: batch (buffered, sent in batches, never blocking requests; overflow dropped and counted), blocking (each event sent at once, the request waiting for it), blocking-strict (also fails a request whose RequestReceived event cannot be delivered).",
    defaultText: "batch",
    apply: (config, value) => setAudit(config, { webhookMode: parseChoice(value, AUDIT_WEBHOOK_MODES, "audit-webhook-mode") }),
  },
  {
    name: "audit-webhook-batch-buffer-size",
    help: "Events buffered for the webhook; beyond it new events are dropped (and counted).",
    defaultText: "10000",
    apply: (config, value) => setAudit(config, { webhookBatchBufferSize: parseCount(value, "audit-webhook-batch-buffer-size") }),
  },
  {
    name: "audit-webhook-batch-max-size",
    help: "Events per webhook batch at most.",
    defaultText: "400",
    apply: (config, value) => setAudit(config, { webhookBatchMaxSize: parseCount(value, "audit-webhook-batch-max-size") }),
  },
  {
    name: "audit-webhook-batch-max-wait",
    help: "How long a batch smaller than the maximum waits before it is sent.",
    defaultText: "30s",
    apply: (config, value) => setAudit(config, { webhookBatchMaxWaitMs: parseDurationFlag(value, "audit-webhook-batch-max-wait") }),
  },
  {
    name: "audit-webhook-batch-throttle-enable",
    help: "Whether batches sent to the webhook are throttled (--audit-webhook-batch-throttle-qps, -burst).",
    defaultText: "true",
    boolean: true,
    apply: (config, value) => setAudit(config, { webhookBatchThrottleEnable: parseBool(value, "audit-webhook-batch-throttle-enable") }),
  },
  {
    name: "audit-webhook-version",
    help: "API group and version of the EventLists sent to the webhook (only audit.<domain>/v1).",
    defaultText: "audit.<domain>/v1",
    apply: (config, value) => setAudit(config, { webhookVersion: value }),
  },
  {
    name: "audit-webhook-batch-throttle-qps",
    help: "Batches per second sent at most on average; 0 disables throttling.",
    defaultText: "10",
    apply: (config, value) => {
      const qps = Number(value);
      if (value.trim() === "" || !Number.isFinite(qps) || qps < 0)
        throw new FlagError(`invalid value "${value}" for flag --audit-webhook-batch-throttle-qps: must be a non-negative number`);
      setAudit(config, { webhookBatchThrottleQps: qps });
    },
  },
  {
    name: "audit-webhook-batch-throttle-burst",
    help: "Batches sent at once at most when the throttle has been idle.",
    defaultText: "15",
    apply: (config, value) => setAudit(config, { webhookBatchThrottleBurst: parseCount(value, "audit-webhook-batch-throttle-burst") }),
  },
  {
    name: "audit-webhook-initial-backoff",
    help: "Wait before retrying a failed webhook batch (growing 1.5x over 4 retries).",
    defaultText: "10s",
    apply: (config, value) => setAudit(config, { webhookInitialBackoffMs: parseDurationFlag(value, "audit-webhook-initial-backoff") }),
  },
  ...truncateFlags("webhook"),
  {
    name: "feature-gates",
    help: "Name=bool pairs, comma-separated, turning features on or off (alpha ones are off by default, beta on); GA gates are locked, unknown gates are an error.",
    defaultText: "",
    apply: (config, value) => {
      const settings = gateSettings.get(config) ?? new Map<string, boolean>();
      gateSettings.set(config, settings);
      try {
        config.featureGates = featureGates(parseFeatureGates(value, settings));
      } catch (error) {
        if (error instanceof FeatureGateError) throw new FlagError(`invalid value "${value}" for flag --feature-gates: ${error.message}`);
        throw error;
      }
    },
  },
  {
    name: "tracing-config-file",
    help: "TracingConfiguration (apiserver.config.<domain>/v1): OTLP endpoint and samplingRatePerMillion. Needs APIServerTracing.",
    defaultText: "",
    apply: (config, value) => void (config.tracingConfigFile = value),
  },
  {
    name: "goaway-chance",
    help: "Probability (0 to 0.02) that an HTTP/2 request is answered and its connection sent GOAWAY, so clients reconnect and spread over servers.",
    defaultText: "0",
    apply: (config, value) => {
      const chance = Number(value);
      if (value.trim() === "" || !Number.isFinite(chance) || chance < 0 || chance > 0.02)
        throw new FlagError(`invalid value "${value}" for flag --goaway-chance: must be between 0 and 0.02 inclusive`);
      config.goawayChance = chance;
    },
  },
  {
    name: "show-hidden-metrics-for-version",
    help: "The previous minor version (e.g. 1.29): deprecated metrics hidden in this release are shown again. Only the previous minor version is allowed.",
    defaultText: "",
    apply: (config, value) => void (config.showHiddenMetricsForVersion = value === "" ? undefined : value),
  },
];

export function operationsDefaults(): Pick<MutableConfig, "audit" | "featureGates" | "goawayChance"> {
  return {
    audit: {
      logMaxAgeDays: 0,
      logMaxBackups: 0,
      logMaxSizeMb: 0,
      logFormat: "json",
      logCompress: false,
      logTruncate: { enabled: false, maxBatchBytes: 10 * 1024 * 1024, maxEventBytes: 100 * 1024 },
      webhookTruncate: { enabled: false, maxBatchBytes: 10 * 1024 * 1024, maxEventBytes: 100 * 1024 },
      logMode: "blocking",
      logBatchBufferSize: 10_000,
      logBatchMaxSize: 1,
      logBatchMaxWaitMs: 0,
      logBatchThrottleEnable: false,
      logBatchThrottleQps: 0,
      logBatchThrottleBurst: 0,
      webhookMode: "batch",
      webhookBatchBufferSize: 10_000,
      webhookBatchMaxSize: 400,
      webhookBatchMaxWaitMs: 30_000,
      webhookBatchThrottleEnable: true,
      webhookBatchThrottleQps: 10,
      webhookBatchThrottleBurst: 15,
      webhookInitialBackoffMs: 10_000,
    },
    featureGates: DEFAULT_FEATURE_GATES,
    goawayChance: 0,
  };
}

/** Checks across the operations flags, after all are read. */
export function checkOperationsConfig(config: MutableConfig): void {
  try {
    new MetricVisibility(config.profile.gitVersion, config.showHiddenMetricsForVersion);
  } catch (error) {
    if (error instanceof ShowHiddenMetricsError) throw new FlagError(error.message);
    throw error;
  }
  if (config.tracingConfigFile !== undefined && !config.featureGates.enabled("APIServerTracing"))
    throw new FlagError("--tracing-config-file requires the APIServerTracing feature gate (--feature-gates=APIServerTracing=true)");
  // kube serves audit events only as audit.<domain>/v1 (v1alpha1 and v1beta1 were removed in 1.24).
  const served = `${apiGroup(config.profile, "audit")}/v1`;
  for (const [flag, value] of [
    ["audit-log-version", config.audit.logVersion],
    ["audit-webhook-version", config.audit.webhookVersion],
  ] as const) {
    if (value !== undefined && value !== served) throw new FlagError(`invalid value "${value}" for flag --${flag}: only ${served} is supported`);
  }
  for (const [backend, truncate] of [
    ["log", config.audit.logTruncate],
    ["webhook", config.audit.webhookTruncate],
  ] as const) {
    if (truncate.enabled && truncate.maxEventBytes > truncate.maxBatchBytes)
      throw new FlagError(
        `--audit-${backend}-truncate-max-event-size (${truncate.maxEventBytes}) must not exceed --audit-${backend}-truncate-max-batch-size (${truncate.maxBatchBytes})`,
      );
  }
}
