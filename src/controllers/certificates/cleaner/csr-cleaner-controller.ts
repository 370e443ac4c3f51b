import { X509Certificate } from "node:crypto";
import type { ApiClient } from "../../../api/client.js";
import { ApiError } from "../../../api/errors.js";
import type { ApiObject } from "../../../api/object.js";
import type { Profile } from "../../../api/profile.js";
import { objectKey, type InformerFactory } from "../../runtime/informer.js";
import type { QueueControllerSpec } from "../../runtime/queue-controller.js";
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

export interface CsrCleanerOptions {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  readonly profile: Profile;
  readonly now?: () => number;
}

/**
 * kube-controller-manager's `csrcleaner` on the work queue, keyed by request name: a request past
 * its deadline (see `csrDeadline`) is deleted (only the version judged, by uid); one not yet due
 * is looked at again at its deadline through the queue's delayed add, so nothing lists or polls
 * while no deadline is near. Returns the delay when it waits.
 */
export function csrCleanerController(options: CsrCleanerOptions): QueueControllerSpec {
  const { client } = options;
  const resource = csrResource(options.profile);
  const requests = options.informers.informer(resource);
  const now = options.now ?? Date.now;
  return {
    name: "csrcleaner",
    watch(queue) {
      const on = (object: ApiObject): void => queue.add(objectKey(object));
      return requests.addHandlers({
        onAdd: on,
        onUpdate: on,
        onReset: () => {
          for (const object of requests.list()) on(object);
        },
      });
    },
    *initialKeys() {
      for (const object of requests.list()) yield objectKey(object);
    },
    async reconcile(name) {
      const object = requests.get("", name);
      const deadline = object === undefined ? undefined : csrDeadline(object);
      if (object === undefined || deadline === undefined) return;
      const left = deadline - now();
      if (left > 0) return left;
      try {
        await client.delete(resource, "", name, { preconditions: { uid: object.metadata.uid ?? "" } });
      } catch (error) {
        // Gone or replaced since: the watch brings the new one.
        if (!(error instanceof ApiError && (error.code === 409 || error.code === 404))) throw error;
      }
    },
  };
}
