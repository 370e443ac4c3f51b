import type { RequestInfo } from "./request-info.js";

/** Sub-resources whose requests hold their connection open (kube's long-running sub-resources). */
const LONG_RUNNING_SUBRESOURCES = new Set(["attach", "exec", "proxy", "log", "portforward"]);

/**
 * kube's long-running request check (kube-apiserver's `BasicLongRunningRequestCheck` with the
 * `watch` verb and the attach, exec, proxy, log and portforward sub-resources; also
 * `/debug/pprof/` paths). The one check of every stage that asks: the request timeout skips such
 * requests, the max-in-flight limiter does not count them, and priority and fairness lets them
 * past (but watches, which it holds a seat for while they start). Every log request counts, not
 * only followed ones, as in kube. The sub-resource is its first path segment, as kube's
 * RequestInfo has it (`pods/p/proxy/some/path` is `proxy`).
 */
export function isLongRunning(info: RequestInfo): boolean {
  if (info.kind === "non-resource") return info.path.startsWith("/debug/pprof/");
  if (info.verb === "watch") return true;
  const slash = info.subresource.indexOf("/");
  return LONG_RUNNING_SUBRESOURCES.has(slash === -1 ? info.subresource : info.subresource.slice(0, slash));
}
