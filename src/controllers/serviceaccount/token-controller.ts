import type { ApiClient } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import type { ApiObject } from "../../api/object.js";
import type { InformerFactory } from "../runtime/informer.js";
import { objectKey, splitKey } from "../runtime/informer.js";
import type { QueueControllerSpec } from "../runtime/queue-controller.js";
import { SECRETS, SERVICE_ACCOUNTS } from "./resources.js";

export interface TokenControllerOptions {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  /** The token Secret type (`<profile>/service-account-token`). */
  readonly secretType: string;
  /** `<keyDomain>`: the Secret's `<keyDomain>/service-account.name` and `.uid` annotations. */
  readonly keyDomain: string;
  /** Signs a legacy (non-expiring) token. */
  readonly issueLegacy: (claims: { namespace: string; serviceAccount: { name: string; uid: string }; secretName: string }) => Promise<string>;
  /** PEM bundle put in the Secret's `ca.crt`. */
  readonly caBundle: string;
}

function base64(text: string): string {
  return Buffer.from(text, "utf8").toString("base64");
}

/**
 * kube's `serviceaccount-token` controller for legacy token Secrets (type
 * `<profile>/service-account-token`, annotated with the account's name): fills `token` (a
 * signed legacy token), `ca.crt` and `namespace` and records the account's uid; deletes the
 * Secret once its account is gone (or is another account of the same name). Keys are Secrets'
 * `namespace/name`.
 */
export function tokenController(options: TokenControllerOptions): QueueControllerSpec {
  const { client, informers, secretType } = options;
  const nameAnnotation = `${options.keyDomain}/service-account.name`;
  const uidAnnotation = `${options.keyDomain}/service-account.uid`;
  const secrets = informers.informer(SECRETS);
  const accounts = informers.informer(SERVICE_ACCOUNTS);
  const isToken = (secret: ApiObject): boolean => secret["type"] === secretType;
  const tokenSecrets = (): ApiObject[] => secrets.list().filter(isToken);

  return {
    name: "serviceaccount-token",
    watch(queue) {
      const onSecret = (secret: ApiObject): void => {
        if (isToken(secret)) queue.add(objectKey(secret));
      };
      const offSecrets = secrets.addHandlers({
        onAdd: onSecret,
        onUpdate: onSecret,
        onReset: () => {
          for (const secret of tokenSecrets()) queue.add(objectKey(secret));
        },
      });
      const onAccount = (account: ApiObject): void => {
        for (const secret of tokenSecrets()) {
          if (secret.metadata.namespace === account.metadata.namespace && secret.metadata.annotations?.[nameAnnotation] === account.metadata.name) {
            queue.add(objectKey(secret));
          }
        }
      };
      const offAccounts = accounts.addHandlers({ onAdd: onAccount, onDelete: onAccount });
      return () => {
        offSecrets();
        offAccounts();
      };
    },
    initialKeys: () => tokenSecrets().map(objectKey),
    async reconcile(key) {
      const { namespace, name } = splitKey(key);
      const secret = secrets.get(namespace, name);
      if (secret === undefined || !isToken(secret) || secret.metadata.deletionTimestamp !== undefined) return;
      const accountName = secret.metadata.annotations?.[nameAnnotation] ?? "";
      const wantedUid = secret.metadata.annotations?.[uidAnnotation];
      // The cache may not have a just-created account yet: ask the store before deleting.
      const account = accounts.get(namespace, accountName) ?? (await client.get(SERVICE_ACCOUNTS, namespace, accountName));
      const accountUid = account?.metadata.uid;
      if (account === undefined || accountUid === undefined || (wantedUid !== undefined && wantedUid !== "" && wantedUid !== accountUid)) {
        try {
          await client.delete(SECRETS, namespace, name, { preconditions: { uid: secret.metadata.uid } });
        } catch (error) {
          if (!(error instanceof ApiError && (error.code === 404 || error.code === 409))) throw error;
        }
        return;
      }
      const data = typeof secret["data"] === "object" && secret["data"] !== null ? (secret["data"] as Record<string, string>) : {};
      const complete = typeof data["token"] === "string" && data["token"] !== "" && data["ca.crt"] !== undefined && data["namespace"] !== undefined;
      if (complete && wantedUid === accountUid) return;
      const token =
        typeof data["token"] === "string" && data["token"] !== ""
          ? data["token"]
          : base64(await options.issueLegacy({ namespace, serviceAccount: { name: accountName, uid: accountUid }, secretName: name }));
      const filled: ApiObject = {
        ...secret,
        metadata: { ...secret.metadata, annotations: { ...(secret.metadata.annotations ?? {}), [uidAnnotation]: accountUid } },
        data: { ...data, token, "ca.crt": base64(options.caBundle), namespace: base64(namespace) },
      };
      try {
        await client.updateSubresource(SECRETS, namespace, name, "", filled);
      } catch (error) {
        if (!(error instanceof ApiError && error.code === 404)) throw error;
      }
    },
  };
}
