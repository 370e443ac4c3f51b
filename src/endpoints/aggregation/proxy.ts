import { ApiError } from "../../api/errors.js";
import { errorResponse } from "../../codec/status.js";
import { requireUser, type ApiResponse, type RequestContext } from "../../request/context.js";
import type { AggregatedApis, AggregatedVersion } from "./aggregated-apis.js";
import { backendRequest, type ProxyClient } from "./backend-request.js";

/** What kube's clients read from its aggregator's 503 (kube writes it as plain text; here it is a Status). */
export const UNAVAILABLE_MESSAGE = "the server is currently unable to handle the request";

/** The largest request body passed on, as the server's own resources accept. */
const MAX_BODY_BYTES = 3 * 1024 * 1024;

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "upgrade", "trailer"]);

/** The aggregated group version a path is under (`/apis/<group>/<version>[/...]`), if any. */
export function aggregatedTarget(apis: AggregatedApis, path: string): AggregatedVersion | undefined {
  // Most servers aggregate nothing: their requests skip the path's split.
  if (!path.startsWith("/apis/") || apis.groups().length === 0) return undefined;
  const [group = "", version = ""] = path.slice("/apis/".length).split("/");
  return group === "" || version === "" ? undefined : apis.find(group, version);
}

function unavailable(): ApiError {
  return new ApiError(503, "ServiceUnavailable", UNAVAILABLE_MESSAGE, { details: {} });
}

/**
 * kube's aggregator proxy for one request under an aggregated group version (after the request
 * was authenticated and authorized here): 503 while the APIService is not Available or its
 * service has no address; otherwise the request goes to the backend with the user in the
 * front-proxy headers, and the backend's answer streams back as it comes (a watch stays open).
 */
export async function proxyAggregated(context: RequestContext, target: AggregatedVersion, client: ProxyClient | undefined): Promise<ApiResponse> {
  // An expected answer while the backend is down, not a fault of this server: no error log for it.
  if (!target.view.available || target.address().kind === "unresolved") return errorResponse(unavailable());
  const request = context.request;
  const method = request.method.toUpperCase();
  const body = method === "GET" || method === "HEAD" || method === "DELETE" ? undefined : await request.body(MAX_BODY_BYTES);
  const query = request.query.toString();
  const { "accept-encoding": _encoding, ...headers } = Object.fromEntries(
    Object.entries(request.headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  let response: Awaited<ReturnType<typeof backendRequest>>;
  try {
    response = await backendRequest(
      target,
      { method, path: `${request.path}${query === "" ? "" : `?${query}`}`, headers, body, user: requireUser(context), signal: request.signal },
      client,
    );
  } catch (error) {
    if (request.signal.aborted) throw error;
    throw new ApiError(503, "ServiceUnavailable", `error trying to reach service: ${error instanceof Error ? error.message : String(error)}`, { details: {} });
  }
  const responseHeaders: Record<string, string | readonly string[]> = {};
  for (const [name, value] of Object.entries(response.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) responseHeaders[name] = value;
  const watching = request.query.get("watch") === "true" || request.query.get("watch") === "1";
  return { status: response.statusCode ?? 502, headers: responseHeaders, body: response, ...(watching ? { longRunning: true } : {}) };
}
