import { apiGroup, type Profile } from "../api/profile.js";
import { loadWebhookConfig, webhookClient } from "../auth/webhook-client.js";
import { unionBackend, type AuditBackend } from "../server/audit/event.js";
import { logBackend } from "../server/audit/log-backend.js";
import { AuditPolicyError, loadAuditPolicy } from "../server/audit/policy.js";
import { truncatingBackend } from "../server/audit/truncate.js";
import { webhookBackend } from "../server/audit/webhook-backend.js";
import type { AuditFilterOptions } from "../server/filters/audit.js";
import type { AuditMetrics } from "../server/metrics/audit-metrics.js";
import { errorFields, type Logger } from "../util/logger.js";
import type { AuditConfig, AuditTruncateConfig } from "./config.js";
import { StartupError } from "./data-dir.js";

/** The audit stage as configured: the filter's options and the backends' shutdown, or undefined when audit is off. */
export interface ConfiguredAudit {
  readonly filter: AuditFilterOptions;
  shutdown(): Promise<void>;
}

/**
 * Builds audit from the `--audit-*` flags: on when a policy file and at least one backend are
 * given (kube's rule: a policy without a backend records nothing). A bad policy or webhook file
 * is a StartupError naming it.
 */
export function configureAudit(options: { config: AuditConfig; profile: Profile; metrics: AuditMetrics; logger: Logger }): ConfiguredAudit | undefined {
  const { config, profile, metrics, logger } = options;
  if (config.policyFile === undefined || (config.logPath === undefined && config.webhookConfigFile === undefined)) return undefined;
  const auditGroup = apiGroup(profile, "audit");
  let policy;
  try {
    policy = loadAuditPolicy(config.policyFile, auditGroup);
  } catch (error) {
    if (error instanceof AuditPolicyError) throw new StartupError(error.message);
    throw error;
  }
  const backends: AuditBackend[] = [];
  // kube's truncating backend in front of a backend whose truncate flags are on.
  const truncated = (backend: AuditBackend, truncate: AuditTruncateConfig): AuditBackend =>
    truncate.enabled
      ? truncatingBackend(backend, {
          maxEventBytes: truncate.maxEventBytes,
          maxBatchBytes: truncate.maxBatchBytes,
          annotationKey: `${auditGroup}/truncated`,
          // kube counts these under its truncate plugin's name.
          onDropped: (error) => {
            metrics.eventsFailed("truncate", 1);
            logger.error("audit event dropped", { ...errorFields(error), plugin: "truncate" });
          },
        })
      : backend;
  if (config.logPath !== undefined) {
    const log = logBackend({
      path: config.logPath,
      maxBytes: config.logMaxSizeMb * 1024 * 1024,
      maxBackups: config.logMaxBackups,
      maxAgeDays: config.logMaxAgeDays,
      mode: config.logMode,
      format: config.logFormat,
      compress: config.logCompress,
      batch: {
        bufferSize: config.logBatchBufferSize,
        maxSize: config.logBatchMaxSize,
        maxWaitMs: config.logBatchMaxWaitMs,
        throttleQps: config.logBatchThrottleEnable ? config.logBatchThrottleQps : 0,
        throttleBurst: config.logBatchThrottleBurst,
      },
      onError: (error, dropped, plugin = "log") => {
        metrics.eventsFailed(plugin, dropped);
        logger.error(plugin === "buffered" ? "audit log buffer full: events dropped" : "audit log write failed", { ...errorFields(error), dropped });
      },
    });
    backends.push(truncated(log, config.logTruncate));
  }
  if (config.webhookConfigFile !== undefined) {
    let client;
    try {
      client = webhookClient(loadWebhookConfig(config.webhookConfigFile));
    } catch (error) {
      throw new StartupError(`--audit-webhook-config-file: ${error instanceof Error ? error.message : String(error)}`);
    }
    const webhook = webhookBackend({
      client,
      apiVersion: `${auditGroup}/v1`,
      mode: config.webhookMode,
      bufferSize: config.webhookBatchBufferSize,
      maxBatchSize: config.webhookBatchMaxSize,
      maxWaitMs: config.webhookBatchMaxWaitMs,
      throttleQps: config.webhookBatchThrottleEnable ? config.webhookBatchThrottleQps : 0,
      throttleBurst: config.webhookBatchThrottleBurst,
      initialBackoffMs: config.webhookInitialBackoffMs,
      onError: (plugin, error, count) => {
        metrics.eventsFailed(plugin, count);
        logger.error("audit webhook dropped events", { ...errorFields(error), plugin, count });
      },
    });
    backends.push(
      truncated(
        {
          ...webhook,
          shutdown: async () => {
            await webhook.shutdown();
            client.close();
          },
        },
        config.webhookTruncate,
      ),
    );
  }
  const backend = unionBackend(backends);
  return { filter: { policy, backend, apiVersion: `${auditGroup}/v1`, metrics }, shutdown: () => backend.shutdown() };
}
