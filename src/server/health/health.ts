import type { ApiResponse } from "../../request/context.js";

/** A named check served at `/livez/<name>` and `/readyz/<name>`. Throws (or rejects) when unhealthy. */
export interface HealthCheck {
  readonly name: string;
  check(signal: AbortSignal): Promise<void> | void;
  /** false: served by name only, left out of the whole `/readyz` (and its verbose list). */
  readonly aggregate?: false;
}

/**
 * Runs checks for `/livez`, `/readyz` or `/healthz`: 200 `ok` when all pass; `?verbose` lists
 * each as `[+]name ok`; `?exclude=name` skips one (repeatable). The list withholds failure
 * reasons (`[-]name failed: reason withheld`); one check by name (`/readyz/shutdown`, names may
 * contain slashes: `poststarthook/<hook>`) answers `ok`, or 500 with its reason, as kube does.
 */
export async function runHealth(
  kind: string,
  checks: readonly HealthCheck[],
  subPath: string,
  query: URLSearchParams,
  signal: AbortSignal,
): Promise<ApiResponse> {
  const headers = { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" };
  if (subPath !== "") {
    const named = checks.find((check) => check.name === subPath);
    if (named === undefined) return { status: 404, headers: { "content-type": "text/plain; charset=utf-8" }, body: "404 page not found\n" };
    try {
      await named.check(signal);
      return { status: 200, headers, body: "ok" };
    } catch (error) {
      return { status: 500, headers, body: `internal server error: ${error instanceof Error ? error.message : String(error)}\n` };
    }
  }
  const selected = checks.filter((check) => check.aggregate !== false);
  const excluded = new Set(query.getAll("exclude"));
  // The checks run together (a slow one, e.g. an unreachable etcd member, does not delay the
  // others' answers past its own timeout); the lines keep the checks' order.
  const results = await Promise.all(
    selected.map(async (check): Promise<boolean | "excluded"> => {
      if (excluded.has(check.name)) return "excluded";
      try {
        await check.check(signal);
        return true;
      } catch {
        return false;
      }
    }),
  );
  const lines: string[] = [];
  let failed = false;
  selected.forEach((check, index) => {
    const result = results[index];
    if (result === "excluded") {
      lines.push(`[+]${check.name} excluded: ok`);
      excluded.delete(check.name);
    } else if (result === true) {
      lines.push(`[+]${check.name} ok`);
    } else {
      failed = true;
      lines.push(`[-]${check.name} failed: reason withheld`);
    }
  });
  for (const name of excluded) lines.push(`warn: some health checks cannot be excluded: no matches for "${name}"`);
  const verbose = query.has("verbose") || failed;
  const summary = failed ? `${kind} check failed` : `${kind} check passed`;
  const text = verbose ? `${lines.join("\n")}\n${summary}\n` : "ok";
  return { status: failed ? 500 : 200, headers, body: text };
}

/**
 * kube's `--livez-grace-period`: until `graceMs` after `startedAt` the check passes whatever it
 * says (a post-start hook still running is taken to be on its way), then it is the check itself.
 */
export function withGracePeriod(check: HealthCheck, startedAt: number, graceMs: number, now: () => number = Date.now): HealthCheck {
  if (graceMs <= 0) return check;
  return {
    ...check,
    check: (signal) => {
      if (now() - startedAt < graceMs) return;
      return check.check(signal);
    },
  };
}
