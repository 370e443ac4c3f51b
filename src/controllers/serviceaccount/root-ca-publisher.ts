import type { ApiClient } from "../../api/client.js";
import type { ApiObject } from "../../api/object.js";
import type { InformerFactory } from "../runtime/informer.js";
import type { QueueControllerSpec } from "../runtime/queue-controller.js";
import { CONFIG_MAPS, isSettled, NAMESPACES } from "./resources.js";

export interface RootCaPublisherOptions {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  /** The ConfigMap's name (`<profile>-root-ca.crt`). */
  readonly name: string;
  /** PEM bundle clients use to verify the server. */
  readonly caBundle: string;
  /** The description annotation's key (`<keyDomain>/description`). */
  readonly descriptionAnnotation: string;
}

const DESCRIPTION =
  "Contains a CA bundle that can be used to verify the API server when using internal endpoints such as the internal service IP. No other usage is guaranteed.";

/**
 * kube's `root-ca-cert-publisher`: every active namespace has the root CA ConfigMap with
 * `data["ca.crt"]` the bundle; deleted, it is recreated, edited, its data is put back.
 * Keys are namespace names.
 */
export function rootCaPublisher(options: RootCaPublisherOptions): QueueControllerSpec {
  const { client, informers, name } = options;
  const namespaces = informers.informer(NAMESPACES);
  const configMaps = informers.informer(CONFIG_MAPS);
  const data = { "ca.crt": options.caBundle };

  function isCurrent(configMap: ApiObject): boolean {
    const held = configMap["data"];
    const described = configMap.metadata.annotations?.[options.descriptionAnnotation] === DESCRIPTION;
    return described && typeof held === "object" && held !== null && JSON.stringify(held) === JSON.stringify(data);
  }

  return {
    name: "root-ca-cert-publisher",
    watch(queue) {
      const offNamespaces = namespaces.addHandlers({
        onAdd: (namespace) => queue.add(namespace.metadata.name ?? ""),
        onReset: () => {
          for (const namespace of namespaces.list()) queue.add(namespace.metadata.name ?? "");
        },
      });
      const ours = (configMap: ApiObject): void => {
        if (configMap.metadata.name === name) queue.add(configMap.metadata.namespace ?? "");
      };
      const offConfigMaps = configMaps.addHandlers({ onUpdate: ours, onDelete: ours });
      return () => {
        offNamespaces();
        offConfigMaps();
      };
    },
    initialKeys: () => namespaces.list().map((namespace) => namespace.metadata.name ?? ""),
    async reconcile(namespaceName) {
      const namespace = namespaces.get("", namespaceName);
      if (namespace === undefined || namespace.metadata.deletionTimestamp !== undefined) return;
      const existing = configMaps.get(namespaceName, name);
      const annotations = { ...(existing?.metadata.annotations ?? {}), [options.descriptionAnnotation]: DESCRIPTION };
      try {
        if (existing === undefined) {
          await client.create(CONFIG_MAPS, namespaceName, {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name, namespace: namespaceName, annotations },
            data,
          });
        } else if (!isCurrent(existing)) {
          await client.updateSubresource(CONFIG_MAPS, namespaceName, name, "", { ...existing, metadata: { ...existing.metadata, annotations }, data });
        }
      } catch (error) {
        if (!isSettled(error)) throw error;
      }
    },
  };
}
