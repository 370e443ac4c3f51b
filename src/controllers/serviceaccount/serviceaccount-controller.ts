import type { ApiClient } from "../../api/client.js";
import type { InformerFactory } from "../runtime/informer.js";
import type { QueueControllerSpec } from "../runtime/queue-controller.js";
import { isSettled, NAMESPACES, SERVICE_ACCOUNTS } from "./resources.js";

export interface ServiceAccountControllerOptions {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  /** The accounts every active namespace gets (kube: `default`). */
  readonly accounts?: readonly string[];
}

/** kube's `serviceaccount` controller: every active namespace has a `default` ServiceAccount, recreated when deleted. Keys are namespace names. */
export function serviceAccountController(options: ServiceAccountControllerOptions): QueueControllerSpec {
  const { client, informers } = options;
  const accounts = options.accounts ?? ["default"];
  const namespaces = informers.informer(NAMESPACES);
  const serviceAccounts = informers.informer(SERVICE_ACCOUNTS);
  return {
    name: "serviceaccount",
    watch(queue) {
      const offNamespaces = namespaces.addHandlers({
        onAdd: (namespace) => queue.add(namespace.metadata.name ?? ""),
        onReset: () => {
          for (const namespace of namespaces.list()) queue.add(namespace.metadata.name ?? "");
        },
      });
      const offAccounts = serviceAccounts.addHandlers({
        onDelete: (account) => {
          if (accounts.includes(account.metadata.name ?? "")) queue.add(account.metadata.namespace ?? "");
        },
      });
      return () => {
        offNamespaces();
        offAccounts();
      };
    },
    initialKeys: () => namespaces.list().map((namespace) => namespace.metadata.name ?? ""),
    async reconcile(name) {
      const namespace = namespaces.get("", name);
      if (namespace === undefined || namespace.metadata.deletionTimestamp !== undefined) return;
      for (const account of accounts) {
        if (serviceAccounts.get(name, account) !== undefined) continue;
        try {
          await client.create(SERVICE_ACCOUNTS, name, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: account, namespace: name } });
        } catch (error) {
          if (!isSettled(error)) throw error;
        }
      }
    },
  };
}
