import { X509Certificate } from "node:crypto";
import type { ApiClient } from "../../../api/client.js";
import { ApiError } from "../../../api/errors.js";
import type { ApiObject } from "../../../api/object.js";
import type { Profile } from "../../../api/profile.js";
import type { Controller } from "../../controller.js";
import { deadlineTimer, followAndReconcile } from "../../follow.js";
import { Wake } from "../../reconcile-loop.js";
import { csrResource, viewCsr } from "../csr.js";

/** The spec's Limits row: a request is deleted 1 hour after its last status change. */
export const CSR_RETENTION_MS = 3600_000;

function timeOf(value: unknown): number | undefined {
  if (typeof value !== "string" || value === "") return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The first issued certificate's expiry, if the request holds a parseable one. */
function certificateExpiry(encoded: string): number | undefined {
  if (encoded === "") return undefined;
  try {
    return Date.parse(new X509Certificate(Buffer.from(encoded, "base64")).validTo);
  } catch {
    return undefined;
  }
}

/**
 * When a request is due for deletion: 1 hour after its last status change (the latest condition
 * update or transition; its creation while it has none), or when its issued certificate expires,
 * whichever is first.
 */
export function csrDeadline(object: ApiObject): number | undefined {
  const csr = viewCsr(object);
  const changes = csr.conditions.flatMap((condition) => [timeOf(condition["lastUpdateTime"]), timeOf(condition["lastTransitionTime"])]);
  const last = Math.max(...[timeOf(csr.creationTimestamp), ...changes].filter((time): time is number => time !== undefined));
  const deadlines = [Number.isFinite(last) ? last + CSR_RETENTION_MS : undefined, certificateExpiry(csr.certificate)].filter(
    (time): time is number => time !== undefined,
  );
  return deadlines.length === 0 ? undefined : Math.min(...deadlines);
}

/** Deletes every request past its deadline at `nowMs` (only the version it judged, by uid); returns the next deadline. */
export async function cleanExpiredRequests(client: ApiClient, profile: Profile, nowMs: number): Promise<{ deleted: string[]; next: number | undefined }> {
  const resource = csrResource(profile);
  const deleted: string[] = [];
  let next: number | undefined;
  for (const object of (await client.list(resource, "")).items) {
    const deadline = csrDeadline(object);
    if (deadline === undefined) continue;
    if (deadline > nowMs) {
      next = next === undefined ? deadline : Math.min(next, deadline);
      continue;
    }
    const name = object.metadata.name ?? "";
    try {
      if (await client.delete(resource, "", name, { preconditions: { uid: object.metadata.uid ?? "" } })) deleted.push(name);
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 409)) throw error;
    }
  }
  return { deleted, next };
}

export interface CsrCleanerOptions {
  readonly client: ApiClient;
  readonly profile: Profile;
  readonly now?: () => number;
  readonly onError?: (error: unknown) => void;
}

/**
 * kube-controller-manager's `csrcleaner`: deletes requests past their deadline (see
 * `csrDeadline`). Runs on every request change and by a timer at the next deadline, so nothing
 * polls while no deadline is near.
 */
export function csrCleanerController(options: CsrCleanerOptions): Controller {
  const now = options.now ?? Date.now;
  return {
    name: "csrcleaner",
    async run(signal) {
      const wake = new Wake();
      const arm = deadlineTimer(wake, signal, now);
      await followAndReconcile(options.client, [csrResource(options.profile)], signal, {
        wake,
        onError: options.onError,
        reconcile: async () => arm((await cleanExpiredRequests(options.client, options.profile, now())).next),
      });
    },
  };
}
