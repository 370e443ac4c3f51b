import type { RequestInfo } from "./request-info.js";

/** Sub-resources whose requests hold their connection open (kube's long-running sub-resources). */
const LONG_RUNNING_SUBRESOURCES = new Set(["attach", "exec", "proxy", "log", "portforward"]);

/**
 * kube's long-running request check (the apiserver's `BasicLongRunningRequestCheck` with the
 * `watch`/`proxy` verbs and the attach, exec, proxy, log and portforward sub-resources; also
 * `/debug/pprof/` paths): such requests have no request timeout. Every log request counts, not
 * only followed ones, as in kube.
 */
export function isLongRunning(info: RequestInfo): boolean {
  if (info.kind === "non-resource") return info.path.startsWith("/debug/pprof/");
  return info.verb === "watch" || LONG_RUNNING_SUBRESOURCES.has(info.subresource);
}
