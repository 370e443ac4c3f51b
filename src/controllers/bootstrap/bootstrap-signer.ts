import { CompactSign } from "jose";
import type { ApiClient, ResourceRef } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import { isPlainObject } from "../../api/object.js";
import type { Profile } from "../../api/profile.js";
import type { Controller } from "../controller.js";
import { deadlineTimer, followAndReconcile } from "../follow.js";
import { Wake } from "../reconcile-loop.js";
import { canSign, listBootstrapTokens, nextExpiry, SECRETS } from "./tokens.js";

const CONFIG_MAPS: ResourceRef = { group: "", version: "v1", plural: "configmaps" };
export const CLUSTER_INFO = "cluster-info";

/**
 * A detached JWS (`<header>..<signature>`, RFC 7515 appendix F) over `content`, HS256 keyed by the
 * whole token `<id>.<secret>`, header `{"alg":"HS256","kid":"<id>"}` as kube's signer writes it.
 */
export async function detachedSignature(content: string, tokenId: string, tokenSecret: string): Promise<string> {
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
export async function signClusterInfo(client: ApiClient, profile: Profile, nowMs: number): Promise<number | undefined> {
  const tokens = await listBootstrapTokens(client, profile);
  const next = nextExpiry(tokens, nowMs);
  const current = await client.get(CONFIG_MAPS, profile.publicNamespace, CLUSTER_INFO);
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
  readonly profile: Profile;
  readonly now?: () => number;
  readonly onError?: (error: unknown) => void;
}

/**
 * kube-controller-manager's `bootstrapsigner` (off unless `--controllers` names it): keeps the
 * public namespace's `cluster-info` signed by every bootstrap token that may sign, on Secret and
 * ConfigMap changes and when a token expires.
 */
export function bootstrapSignerController(options: BootstrapSignerOptions): Controller {
  const now = options.now ?? Date.now;
  return {
    name: "bootstrapsigner",
    async run(signal) {
      const wake = new Wake();
      const arm = deadlineTimer(wake, signal, now);
      await followAndReconcile(options.client, [SECRETS, CONFIG_MAPS], signal, {
        wake,
        onError: options.onError,
        reconcile: async () => arm(await signClusterInfo(options.client, options.profile, now())),
      });
    },
  };
}
