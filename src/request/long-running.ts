import type { RequestInfo } from "./request-info.js";

/** Sub-resources whose requests hold their connection open (kube's long-running sub-resources). */
const LONG_RUNNING_SUBRESOURCES = new Set(["attach", "exec", "proxy", "log", "portforward"]);

/**
 * kube's long-running request check (kube-apiserver's `BasicLongRunningRequestCheck` with the
 * `watch` verb and the attach, exec, proxy, log and portforward sub-resources; also
 * `/debug/pprof/` paths). The one check of every stage that asks: the request timeout skips such
 * requests, the max-in-flight limiter does not count them, and priority and fairness lets them
 * past (but watches, which it holds a seat for while they start). Every log request counts, not
 * only followed ones, as in kube; a proxy with a path is `proxy` (RequestInfo's sub-resource is
 * one segment, as kube's).
 */
export function isLongRunning(info: RequestInfo): boolean {
  if (info.kind === "non-resource") return info.path.startsWith("/debug/pprof/");
  return info.verb === "watch" || LONG_RUNNING_SUBRESOURCES.has(info.subresource);
}
