import type { ApiClient, ResourceRef } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { Profile } from "../../api/profile.js";
import type { InformerFactory } from "../runtime/informer.js";
import type { QueueControllerSpec } from "../runtime/queue-controller.js";
import { type BootstrapToken, bootstrapToken, bootstrapTokens, canSign, nextExpiry, SECRETS } from "./tokens.js";

const CONFIG_MAPS: ResourceRef = { group: "", version: "v1", plural: "configmaps" };
export const CLUSTER_INFO = "cluster-info";

/**
 * A detached JWS (`<header>..<signature>`, RFC 7515 appendix F) over `content`, HS256 keyed by the
 * whole token `<id>.<secret>`, header `{"alg":"HS256","kid":"<id>"}` as kube's signer writes it.
 */
export async function detachedSignature(content: string, tokenId: string, tokenSecret: string): Promise<string> {
  // jose is loaded at the first signature (a bootstrap token), not at start-up.
  const { CompactSign } = await import("jose");
  const jws = await new CompactSign(new TextEncoder().encode(content))
    .setProtectedHeader({ alg: "HS256", kid: tokenId })
    .sign(new TextEncoder().encode(`${tokenId}.${tokenSecret}`));
  const [header = "", , signature = ""] = jws.split(".");
  return `${header}..${signature}`;
}

/**
 * Brings `cluster-info`'s `jws-<profile>config-<id>` keys in line with the tokens that may sign
 * now: one per such token over the `<profile>config` key's content, none for others. Does nothing
 * when the ConfigMap or its config key is missing. Returns the next token expiry to come.
 */
export async function signClusterInfo(
  client: ApiClient,
  profile: Profile,
  state: { readonly tokens: readonly BootstrapToken[]; readonly clusterInfo: ApiObject | undefined },
  nowMs: number,
): Promise<number | undefined> {
  const { tokens, clusterInfo: current } = state;
  const next = nextExpiry(tokens, nowMs);
  const data = current !== undefined && isPlainObject(current["data"]) ? current["data"] : undefined;
  const content = data?.[profile.clusterInfoConfigKey];
  if (current === undefined || data === undefined || typeof content !== "string") return next;
  const prefix = profile.jwsConfigMapKeyPrefix;
  const wanted: Record<string, string> = {};
  for (const token of tokens) if (canSign(token, nowMs)) wanted[`${prefix}${token.id}`] = await detachedSignature(content, token.id, token.secretPart);
  const existing = Object.fromEntries(Object.entries(data).filter(([key]) => key.startsWith(prefix)));
  const same = Object.keys(existing).length === Object.keys(wanted).length && Object.entries(wanted).every(([key, value]) => existing[key] === value);
  if (same) return next;
  const kept = Object.fromEntries(Object.entries(data).filter(([key]) => !key.startsWith(prefix)));
  try {
    await client.update(CONFIG_MAPS, profile.publicNamespace, CLUSTER_INFO, { ...current, data: { ...kept, ...wanted } });
  } catch (error) {
    // A concurrent edit comes back through the watch and is signed then.
    if (!(error instanceof ApiError && (error.code === 409 || error.code === 404))) throw error;
  }
  return next;
}

export interface BootstrapSignerOptions {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  readonly profile: Profile;
  readonly now?: () => number;
}

/**
 * kube-controller-manager's `bootstrapsigner` (off unless `--controllers` names it): keeps the
 * public namespace's `cluster-info` signed by every bootstrap token that may sign. On the work
 * queue with one key, added when a bootstrap token Secret or `cluster-info` changes, and again
 * (a delayed add) when the next token expires.
 */
export function bootstrapSignerController(options: BootstrapSignerOptions): QueueControllerSpec {
  const { client, profile } = options;
  const secrets = options.informers.indexed(SECRETS);
  const configMaps = options.informers.informer(CONFIG_MAPS);
  const now = options.now ?? Date.now;
  return {
    name: "bootstrapsigner",
    watch(queue) {
      const wake = (): void => queue.add(CLUSTER_INFO);
      const onSecret = (secret: ApiObject): void => {
        if (bootstrapToken(secret, profile) !== undefined) wake();
      };
      const onConfigMap = (configMap: ApiObject): void => {
        if (configMap.metadata.namespace === profile.publicNamespace && configMap.metadata.name === CLUSTER_INFO) wake();
      };
      const off = [
        secrets.addHandlers({ onAdd: onSecret, onUpdate: onSecret, onDelete: onSecret, onReset: wake }),
        configMaps.addHandlers({ onAdd: onConfigMap, onUpdate: onConfigMap, onReset: wake }),
      ];
      return () => {
        for (const unsubscribe of off) unsubscribe();
      };
    },
    initialKeys: () => [CLUSTER_INFO],
    async reconcile() {
      const at = now();
      const state = { tokens: bootstrapTokens(secrets, profile), clusterInfo: configMaps.get(profile.publicNamespace, CLUSTER_INFO) };
      const next = await signClusterInfo(client, profile, state, at);
      return next === undefined ? undefined : next - at;
    },
  };
}
