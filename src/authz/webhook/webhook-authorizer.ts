import { isPlainObject } from "../../api/object.js";
import type { WebhookClient } from "../../auth/webhook-client.js";
import type { UserInfo } from "../../request/context.js";
import { LruCache } from "../../util/lru-cache.js";
import type { Attributes, Authorizer, Decision } from "../authorizer.js";

export type SubjectAccessReviewVersion = "v1" | "v1beta1";

export interface WebhookAuthorizerOptions {
  readonly client: WebhookClient;
  /** `authorization.<apiDomain>`: the SubjectAccessReview's group. */
  readonly group: string;
  /** `--authorization-webhook-version`. */
  readonly version: SubjectAccessReviewVersion;
  /** `--authorization-webhook-cache-authorized-ttl`: how long an allow is reused; 0 disables. */
  readonly authorizedTtlMs: number;
  /** `--authorization-webhook-cache-unauthorized-ttl`: how long a deny or no-opinion is reused; 0 disables. */
  readonly unauthorizedTtlMs: number;
  readonly timeoutMs?: number;
  readonly now?: () => number;
  readonly onError?: (error: unknown) => void;
}

/** The `spec` of the SubjectAccessReview sent for a request (kube's field names per version). */
export function subjectAccessReviewSpec(user: UserInfo, attributes: Attributes, version: SubjectAccessReviewVersion): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  if (attributes.kind === "resource") {
    spec["resourceAttributes"] = {
      namespace: attributes.namespace,
      verb: attributes.verb,
      group: attributes.group,
      version: attributes.version ?? "",
      resource: attributes.resource,
      subresource: attributes.subresource,
      name: attributes.name,
    };
  } else {
    spec["nonResourceAttributes"] = { path: attributes.path, verb: attributes.verb };
  }
  spec["user"] = user.name;
  if (user.uid !== undefined) spec["uid"] = user.uid;
  spec[version === "v1" ? "groups" : "group"] = [...user.groups];
  if (user.extra !== undefined && Object.keys(user.extra).length > 0) spec["extra"] = user.extra;
  return spec;
}

/** Reads the remote's answer: `allowed` → allow, `denied` → deny, neither → no opinion. */
export function subjectAccessReviewDecision(body: unknown): Decision {
  const status = isPlainObject(body) && isPlainObject(body["status"]) ? body["status"] : undefined;
  if (status === undefined) return { kind: "no-opinion", reason: "webhook authorizer: the reply has no status" };
  const reason = typeof status["reason"] === "string" ? status["reason"] : "";
  const evaluationError = typeof status["evaluationError"] === "string" && status["evaluationError"] !== "" ? `; ${status["evaluationError"]}` : "";
  if (status["allowed"] === true) return { kind: "allow", reason };
  if (status["denied"] === true) return { kind: "deny", reason: `${reason}${evaluationError}` };
  return { kind: "no-opinion", reason: `${reason}${evaluationError}` };
}

/**
 * The Webhook authorizer: POSTs a SubjectAccessReview to the configured remote and follows its
 * answer (allow, deny, or no opinion). Answers are cached by the review's spec: allows for the
 * authorized TTL, the rest for the unauthorized TTL. A remote that fails or answers non-2xx gives
 * no opinion (not cached), so the next mode (or the final deny) decides.
 */
export function webhookAuthorizer(options: WebhookAuthorizerOptions): Authorizer {
  const now = options.now ?? Date.now;
  const cache = new LruCache<string, Decision>(8192, now);
  return {
    name: "Webhook",
    async authorize(user, attributes) {
      const spec = subjectAccessReviewSpec(user, attributes, options.version);
      const key = JSON.stringify(spec);
      const cached = cache.get(key);
      if (cached !== undefined) return cached;
      let decision: Decision;
      try {
        const response = await options.client.post(
          { apiVersion: `${options.group}/${options.version}`, kind: "SubjectAccessReview", spec },
          options.timeoutMs ?? 10_000,
        );
        if (response.status < 200 || response.status > 299) throw new Error(`the remote answered HTTP ${response.status}`);
        decision = subjectAccessReviewDecision(response.body);
      } catch (error) {
        options.onError?.(error);
        return { kind: "no-opinion", reason: `webhook authorizer: ${error instanceof Error ? error.message : String(error)}` };
      }
      const ttl = decision.kind === "allow" ? options.authorizedTtlMs : options.unauthorizedTtlMs;
      if (ttl > 0) cache.set(key, decision, now() + ttl);
      return decision;
    },
  };
}
