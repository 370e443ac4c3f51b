import type { ApiClient } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import type { Profile } from "../../api/profile.js";
import type { Controller } from "../controller.js";
import { deadlineTimer, followAndReconcile } from "../follow.js";
import { Wake } from "../reconcile-loop.js";
import { listBootstrapTokens, nextExpiry, SECRETS } from "./tokens.js";

/**
 * Deletes the bootstrap token Secrets whose `expiration` is at or before `nowMs` (each only while
 * it has the uid that was judged); returns their names and the next expiry still to come.
 */
export async function cleanExpiredTokens(client: ApiClient, profile: Profile, nowMs: number): Promise<{ deleted: string[]; next: number | undefined }> {
  const tokens = await listBootstrapTokens(client, profile);
  const deleted: string[] = [];
  for (const token of tokens) {
    if (token.expiresAt === undefined || Number.isNaN(token.expiresAt) || token.expiresAt > nowMs) continue;
    const name = token.secret.metadata.name ?? "";
    try {
      if (await client.delete(SECRETS, profile.systemNamespace, name, { preconditions: { uid: token.secret.metadata.uid ?? "" } })) deleted.push(name);
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 409)) throw error;
    }
  }
  return { deleted, next: nextExpiry(tokens, nowMs) };
}

export interface TokenCleanerOptions {
  readonly client: ApiClient;
  readonly profile: Profile;
  readonly now?: () => number;
  readonly onError?: (error: unknown) => void;
}

/**
 * kube-controller-manager's `tokencleaner` (off unless `--controllers` names it): deletes expired
 * bootstrap token Secrets, on every Secret change and by a timer at the next expiry.
 */
export function tokenCleanerController(options: TokenCleanerOptions): Controller {
  const now = options.now ?? Date.now;
  return {
    name: "tokencleaner",
    async run(signal) {
      const wake = new Wake();
      const arm = deadlineTimer(wake, signal, now);
      await followAndReconcile(options.client, [SECRETS], signal, {
        wake,
        onError: options.onError,
        reconcile: async () => arm((await cleanExpiredTokens(options.client, options.profile, now())).next),
      });
    },
  };
}
