import type { Tracer } from "@opentelemetry/api";
import { apiGroup, type Profile } from "../api/profile.js";
import type { Authenticator } from "../auth/authenticator.js";
import { protobufCodec, protobufMediaTypes } from "../codec/protobuf/codec.js";
import type { Authorizer } from "../authz/authorizer.js";
import { chain, requireInfo, type ApiResponse, type Filter, type Handler, type RequestContext } from "../request/context.js";
import type { NonResourceRequestInfo, ResourceRequestInfo } from "../request/request-info.js";
import { errorFields, type Logger } from "../util/logger.js";
import { auditFilter, failedAuthenticationAudit, type AuditFilterOptions } from "./filters/audit.js";
import { auditIdFilter } from "./filters/audit-id.js";
import { authenticateFilter } from "./filters/authenticate.js";
import { authorizeFilter } from "./filters/authorize.js";
import { compressionFilter } from "./filters/compression.js";
import { errorFunnel } from "./filters/error-funnel.js";
import { impersonateFilter } from "./filters/impersonate.js";
import { metricsFilter } from "./filters/metrics.js";
import { timeoutFilter, type TimeoutFilterOptions } from "./filters/timeout.js";
import { tracingFilter } from "./filters/tracing.js";
import { prettyFilter } from "./filters/pretty.js";
import { requestInfoFilter } from "./filters/request-info.js";
import { requestLogFilter } from "./filters/request-log.js";
import type { ApiMetrics } from "./metrics/metrics.js";

export interface FilterChainOptions {
  readonly profile: Profile;
  readonly logger: Logger;
  readonly metrics: ApiMetrics;
  readonly authenticator: Authenticator;
  readonly anonymousAuth: boolean;
  readonly authorizer: Authorizer;
  /** API Priority and Fairness (filters/priority-and-fairness.ts), between impersonation and authorization; none when off. */
  readonly flowControl?: Filter;
  /** Resource requests (endpoints/resource-handler) and everything else (server/routes). */
  readonly resources: (context: RequestContext, info: ResourceRequestInfo) => Promise<ApiResponse>;
  readonly nonResources: (context: RequestContext, info: NonResourceRequestInfo) => Promise<ApiResponse>;
  /** Requests under an aggregated group version (an APIService with a service), answered by its server; undefined for the rest. */
  readonly aggregated?: (context: RequestContext) => Promise<ApiResponse> | undefined;
  /** The audit policy and backend (`--audit-policy-file` with a log or webhook backend); none = no events, only `Audit-ID`. */
  readonly audit?: AuditFilterOptions;
  /** Gzip large responses for clients that accept it (the APIResponseCompression gate; default on). */
  readonly compression?: boolean;
  /** A span per request (`--tracing-config-file` with APIServerTracing); none = no tracing filter at all. */
  readonly tracer?: Tracer;
  /** `--request-timeout` and what a timeout counts in (filters/timeout.ts); none = no handler timeout. */
  readonly requestTimeout?: TimeoutFilterOptions;
}

/** What the audit filter needs to record protobuf bodies as JSON, as kube does. */
function auditProtobuf(profile: Profile): NonNullable<AuditFilterOptions["protobuf"]> {
  return { mediaTypes: protobufMediaTypes(profile), decode: (bytes) => protobufCodec(profile).decode(bytes) };
}

/**
 * The filter chain, in execution order: log → tracing (when on) → metrics → compression → audit id → error funnel → request info →
 * request timeout → authenticate → audit → impersonate → priority and fairness → authorize → route. The error funnel turns anything thrown
 * inside it into a Status body; metrics sit outside it so they see the status each client got.
 * Audit sits before impersonation, as in kube: its event names the authenticated user and the
 * impersonated one.
 */
export function filterChain(options: FilterChainOptions): Handler {
  const route: Handler = async (context) => {
    const info = requireInfo(context);
    const proxied = options.aggregated?.(context);
    if (proxied !== undefined) return proxied;
    return info.kind === "resource" ? options.resources(context, info) : options.nonResources(context, info);
  };
  return chain(
    [
      requestLogFilter(options.logger),
      ...(options.tracer === undefined ? [] : [tracingFilter(options.tracer)]),
      metricsFilter(options.metrics),
      ...(options.compression === false ? [] : [compressionFilter()]),
      auditIdFilter(),
      prettyFilter(),
      errorFunnel((error) => options.logger.error("request failed", errorFields(error)), {
        codec: protobufCodec(options.profile),
        mediaTypes: protobufMediaTypes(options.profile),
      }),
      requestInfoFilter(),
      ...(options.requestTimeout === undefined ? [] : [timeoutFilter(options.requestTimeout)]),
      authenticateFilter(options.authenticator, {
        anonymous: options.anonymousAuth,
        ...(options.audit === undefined ? {} : { onUnauthenticated: failedAuthenticationAudit(options.audit) }),
      }),
      ...(options.audit === undefined ? [] : [auditFilter({ protobuf: auditProtobuf(options.profile), ...options.audit })]),
      impersonateFilter(options.authorizer, { authenticationGroup: apiGroup(options.profile, "authentication") }),
      ...(options.flowControl === undefined ? [] : [options.flowControl]),
      authorizeFilter(options.authorizer, { annotationPrefix: apiGroup(options.profile, "authorization") }),
    ],
    route,
  );
}
