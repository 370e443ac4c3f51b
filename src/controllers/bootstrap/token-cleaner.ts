import type { ApiClient } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import type { ApiObject } from "../../api/object.js";
import type { Profile } from "../../api/profile.js";
import { objectKey, splitKey, type InformerFactory } from "../runtime/informer.js";
import type { QueueControllerSpec } from "../runtime/queue-controller.js";
import { bootstrapToken, SECRETS } from "./tokens.js";

export interface TokenCleanerOptions {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  readonly profile: Profile;
  readonly now?: () => number;
}

/**
 * kube-controller-manager's `tokencleaner` (off unless `--controllers` names it) on the work
 * queue, keyed by Secret: a bootstrap token Secret whose `expiration` has come is deleted (only
 * the version judged, by uid); one that expires later is looked at again then, through the
 * queue's delayed add. Returns the delay when it waits.
 */
export function tokenCleanerController(options: TokenCleanerOptions): QueueControllerSpec {
  const { client, profile } = options;
  const secrets = options.informers.indexed(SECRETS);
  const now = options.now ?? Date.now;
  const expiring = (secret: ApiObject): boolean => bootstrapToken(secret, profile)?.expiresAt !== undefined;
  function* keys(): Iterable<string> {
    for (const secret of secrets.listNamespace(profile.systemNamespace)) if (expiring(secret)) yield objectKey(secret);
  }
  return {
    name: "tokencleaner",
    watch(queue) {
      const on = (secret: ApiObject): void => {
        if (expiring(secret)) queue.add(objectKey(secret));
      };
      return secrets.addHandlers({
        onAdd: on,
        onUpdate: on,
        onReset: () => {
          for (const key of keys()) queue.add(key);
        },
      });
    },
    initialKeys: keys,
    async reconcile(key) {
      const { namespace, name } = splitKey(key);
      const secret = secrets.get(namespace, name);
      const token = secret === undefined ? undefined : bootstrapToken(secret, profile);
      if (token?.expiresAt === undefined || Number.isNaN(token.expiresAt)) return;
      const left = token.expiresAt - now();
      if (left > 0) return left;
      try {
        await client.delete(SECRETS, namespace, name, { preconditions: { uid: token.secret.metadata.uid ?? "" } });
      } catch (error) {
        if (!(error instanceof ApiError && (error.code === 409 || error.code === 404))) throw error;
      }
    },
  };
}
