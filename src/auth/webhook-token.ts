import { createHash } from "node:crypto";
import { isPlainObject } from "../api/object.js";
import type { UserInfo } from "../request/context.js";
import { LruCache } from "../util/lru-cache.js";
import type { TokenAuthenticator, TokenResult } from "./token.js";
import type { WebhookClient } from "./webhook-client.js";

export type TokenReviewVersion = "v1" | "v1beta1";

export interface WebhookTokenOptions {
  readonly client: WebhookClient;
  /** `authentication.<apiDomain>`: the TokenReview's group. */
  readonly group: string;
  /** `--authentication-token-webhook-version`. */
  readonly version: TokenReviewVersion;
  /** `--api-audiences`: assumed when the remote names no audiences. */
  readonly apiAudiences: readonly string[];
  /** `--authentication-token-webhook-cache-ttl`: how long answers (yes and no) are reused; 0 disables. */
  readonly cacheTtlMs: number;
  readonly timeoutMs?: number;
  readonly now?: () => number;
  readonly onError?: (error: unknown) => void;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function extraOf(value: unknown): Record<string, string[]> | undefined {
  if (!isPlainObject(value)) return undefined;
  const extra: Record<string, string[]> = {};
  for (const [key, values] of Object.entries(value)) extra[key] = strings(values);
  return Object.keys(extra).length === 0 ? undefined : extra;
}

/** Reads a TokenReview reply: its `status` only (the reply's `spec` is ignored, as the spec requires). */
export function tokenReviewVerdict(body: unknown, group: string, wanted: readonly string[], apiAudiences: readonly string[]): TokenResult {
  if (!isPlainObject(body)) return { kind: "rejected", reason: "webhook reply is not a JSON object" };
  const apiVersion = body["apiVersion"];
  if (typeof apiVersion === "string" && !apiVersion.startsWith(`${group}/`))
    return { kind: "rejected", reason: `webhook replied with apiVersion ${apiVersion}` };
  const status = body["status"];
  if (!isPlainObject(status)) return { kind: "rejected", reason: "webhook reply has no status" };
  if (status["authenticated"] !== true) {
    const error = status["error"];
    return { kind: "rejected", reason: typeof error === "string" && error !== "" ? error : "the webhook did not authenticate the token" };
  }
  const declared = strings(status["audiences"]);
  const tokenAudiences = declared.length === 0 ? apiAudiences : declared;
  const audiences = tokenAudiences.filter((audience) => wanted.includes(audience));
  if (wanted.length > 0 && audiences.length === 0) return { kind: "rejected", reason: "the token is not valid for the requested audiences" };
  const user = isPlainObject(status["user"]) ? status["user"] : {};
  const name = user["username"];
  if (typeof name !== "string" || name === "") return { kind: "rejected", reason: "webhook reply has no username" };
  const uid = user["uid"];
  const extra = extraOf(user["extra"]);
  const info: UserInfo = {
    name,
    groups: strings(user["groups"]),
    ...(typeof uid === "string" && uid !== "" ? { uid } : {}),
    ...(extra === undefined ? {} : { extra }),
  };
  return { kind: "ok", user: info, audiences };
}

/**
 * The token webhook (`--authentication-token-webhook-config-file`): POSTs a TokenReview with the
 * token (and the audiences wanted), honours `status.authenticated`/`status.user`. Transport
 * errors, non-2xx replies and malformed replies mean "not authenticated" and are not cached;
 * answers are cached for the TTL, keyed by the token's SHA-256 and the audiences.
 */
export function webhookTokenAuthenticator(options: WebhookTokenOptions): TokenAuthenticator {
  const cache = new LruCache<string, TokenResult>(4096, options.now ?? Date.now);
  const now = options.now ?? Date.now;
  return {
    name: "webhook",
    async authenticateToken(token, audiences) {
      const key = `${createHash("sha256").update(token).digest("base64")}|${audiences.join(",")}`;
      const cached = options.cacheTtlMs > 0 ? cache.get(key) : undefined;
      if (cached !== undefined) return cached;
      const spec: Record<string, unknown> = { token };
      if (audiences.length > 0) spec["audiences"] = [...audiences];
      let reply;
      try {
        reply = await options.client.post({ apiVersion: `${options.group}/${options.version}`, kind: "TokenReview", spec }, options.timeoutMs ?? 10_000);
      } catch (error) {
        options.onError?.(error);
        return { kind: "rejected", reason: `webhook call failed: ${error instanceof Error ? error.message : String(error)}` };
      }
      if (reply.status < 200 || reply.status > 299) return { kind: "rejected", reason: `webhook replied HTTP ${reply.status}` };
      const verdict = tokenReviewVerdict(reply.body, options.group, audiences, options.apiAudiences);
      const answered = isPlainObject(reply.body) && isPlainObject(reply.body["status"]);
      if (answered && options.cacheTtlMs > 0) cache.set(key, verdict, now() + options.cacheTtlMs);
      return verdict;
    },
  };
}
