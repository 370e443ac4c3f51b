import type { UserInfo } from "../request/context.js";
import type { Authenticator } from "./authenticator.js";
import { bearerToken } from "./bearer-token.js";

/**
 * Result of checking one bearer token. `ok` carries the audiences the token is valid for (a
 * subset of those asked for); `none`: not this authenticator's kind of token; `rejected`: it is
 * this authenticator's kind and invalid (expired, bad signature, revoked).
 */
export type TokenResult =
  | { readonly kind: "ok"; readonly user: UserInfo; readonly audiences: readonly string[] }
  | { readonly kind: "none" }
  | { readonly kind: "rejected"; readonly reason: string };

/**
 * The token seam, shared by bearer-token authentication and the TokenReview API.
 * `audiences`: what the caller needs the token to be valid for: the API audiences
 * (`--api-audiences`) for requests, a TokenReview's `spec.audiences` when it names some.
 * Implementations must not mutate their arguments and may be called concurrently.
 */
export interface TokenAuthenticator {
  readonly name: string;
  authenticateToken(token: string, audiences: readonly string[]): Promise<TokenResult>;
}

/**
 * Tries each token authenticator in order; the first `ok` wins (kube's token union). A
 * rejection does not stop the others; when none accepts, the rejections are reported.
 */
export function unionTokenAuthenticator(authenticators: readonly TokenAuthenticator[]): TokenAuthenticator {
  return {
    name: "tokens",
    async authenticateToken(token, audiences) {
      let reasons: string[] | undefined;
      for (const authenticator of authenticators) {
        const result = await authenticator.authenticateToken(token, audiences);
        if (result.kind === "ok") return result;
        if (result.kind === "rejected" && !(reasons ??= []).includes(result.reason)) reasons.push(result.reason);
      }
      // As kube's error aggregate reads: one reason as it is, several as `[a, b]`.
      if (reasons === undefined) return { kind: "none" };
      return { kind: "rejected", reason: reasons.length === 1 ? (reasons[0] ?? "") : `[${reasons.join(", ")}]` };
    },
  };
}

/**
 * For tokens that carry no audience (static and bootstrap tokens): valid only for the API's
 * own audiences, as kube's WrapAudienceAgnosticToken. A TokenReview asking for other audiences
 * gets `none` from it.
 */
export function audienceAgnostic(apiAudiences: readonly string[], delegate: TokenAuthenticator): TokenAuthenticator {
  return {
    name: delegate.name,
    async authenticateToken(token, audiences) {
      if (apiAudiences.length === 0) return delegate.authenticateToken(token, audiences);
      const matching = audiences.filter((audience) => apiAudiences.includes(audience));
      if (matching.length === 0) return { kind: "none" };
      const result = await delegate.authenticateToken(token, audiences);
      return result.kind === "ok" ? { ...result, audiences: matching } : result;
    },
  };
}

/**
 * Bearer tokens as request credentials: no `Authorization: Bearer` is `none`; a token no
 * token authenticator accepts is `rejected` (401), whatever the anonymous setting.
 */
export function bearerTokenAuthenticator(tokens: TokenAuthenticator, apiAudiences: readonly string[]): Authenticator {
  return {
    name: "bearer-token",
    async authenticate(request) {
      const token = bearerToken(request);
      if (token === undefined) return { kind: "none" };
      const result = await tokens.authenticateToken(token, apiAudiences);
      switch (result.kind) {
        case "ok":
          return { kind: "ok", user: result.user };
        case "rejected":
          return result;
        case "none":
          return { kind: "rejected", reason: "invalid bearer token" };
      }
    },
  };
}
