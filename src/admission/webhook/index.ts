import type { Tracer } from "@opentelemetry/api";
import type { Registry as MetricsRegistry } from "prom-client";
import type { ApiObject } from "../../api/object.js";
import type { Authorizer } from "../../authz/authorizer.js";
import type { ObjectFeed } from "../../authz/feed.js";
import type { AdmissionPlugin } from "../interface.js";
import { HookClients } from "./client.js";
import type { DispatchContext } from "./dispatch.js";
import { webhookMetrics } from "./metrics.js";
import { mutatingWebhookPlugin } from "./mutating.js";
import type { EquivalentResources } from "./rules.js";
import { endpointsResolver } from "./service-resolver.js";
import { HookSource } from "./source.js";
import { validatingWebhookPlugin } from "./validating.js";

export type { EquivalentResource, EquivalentResources } from "./rules.js";
export { HookClients, WebhookCallError, type HookCall, type ServiceResolver } from "./client.js";
export { readTarget } from "./hook.js";
export { endpointsResolver } from "./service-resolver.js";

/** What the webhook plugins are built over (the composition root supplies each from the registry). */
export interface WebhookAdmissionOptions {
  /** The watch cache's feeds of Mutating/ValidatingWebhookConfigurations (storage version). */
  readonly mutatingConfigurations: ObjectFeed;
  readonly validatingConfigurations: ObjectFeed;
  /** `admission.<apiDomain>` (AdmissionReview), `admissionregistration.<apiDomain>`, `meta.<apiDomain>`. */
  readonly reviewGroup: string;
  readonly configurationGroup: string;
  readonly metaGroup: string;
  /** The domain of the audit annotation keys: `mutation.webhook.admission.<domain>/round_<n>_index_<m>`. */
  readonly annotationDomain: string;
  /** Peeks at a core/v1 object in the watch cache: namespaces (for labels), services and endpoints (service hooks). */
  readonly readCore: (plural: "namespaces" | "services" | "endpoints", namespace: string, name: string) => ApiObject | undefined;
  readonly equivalents: EquivalentResources;
  /** The server's metric registry; without one nothing is counted. */
  readonly metrics?: MetricsRegistry;
  /** Request uids (tests). */
  readonly newUid?: () => string;
  /** Answers matchConditions' `authorizer` checks (the server's authorizer); without one they answer no opinion. */
  readonly authorizer?: Authorizer;
  /** Applies a served version's schema defaults (to objects mutating hooks patched); none: patched objects are kept as they come. */
  readonly applyDefaults?: (resource: { readonly group: string; readonly version: string; readonly resource: string }, object: ApiObject) => void;
  /** With tracing on: a span per hook call. */
  readonly tracer?: Tracer;
}

/** Both webhook plugins, sharing one client pool and metric; `close` drops pooled connections. */
export interface WebhookAdmission {
  readonly mutating: AdmissionPlugin;
  readonly validating: AdmissionPlugin;
  close(): void;
}

export function webhookAdmission(options: WebhookAdmissionOptions): WebhookAdmission {
  const clients = new HookClients(endpointsResolver((plural, namespace, name) => options.readCore(plural, namespace, name)));
  const mutatingSource = new HookSource(options.mutatingConfigurations, true);
  const validatingSource = new HookSource(options.validatingConfigurations, false);
  // Agents of hooks that went away are dropped on the next configuration change.
  const prune = (): void => {
    queueMicrotask(() => clients.retain(new Set([...mutatingSource.current().hooks, ...validatingSource.current().hooks].map((hook) => hook.id))));
  };
  const unsubscribe = [options.mutatingConfigurations.subscribe(prune), options.validatingConfigurations.subscribe(prune)];
  const context: DispatchContext = {
    clients,
    metrics: webhookMetrics(options.metrics),
    reviewGroup: options.reviewGroup,
    configurationGroup: options.configurationGroup,
    metaGroup: options.metaGroup,
    namespaceObject: (name) => options.readCore("namespaces", "", name),
    equivalents: options.equivalents,
    ...(options.newUid === undefined ? {} : { newUid: options.newUid }),
    ...(options.authorizer === undefined ? {} : { authorizer: options.authorizer }),
    ...(options.applyDefaults === undefined ? {} : { applyDefaults: options.applyDefaults }),
    ...(options.tracer === undefined ? {} : { tracer: options.tracer }),
  };
  return {
    mutating: mutatingWebhookPlugin(mutatingSource, context, options.annotationDomain),
    validating: validatingWebhookPlugin(validatingSource, context),
    close() {
      for (const stop of unsubscribe) stop();
      mutatingSource.close();
      validatingSource.close();
      clients.close();
    },
  };
}
