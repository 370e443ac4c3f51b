import { loadWebhookConfig, webhookClient, type WebhookClient } from "../../auth/webhook-client.js";
import { isPlainObject } from "../../api/object.js";
import { apiGroup, type Profile } from "../../api/profile.js";
import { AdmissionConfigError, denied } from "../deny.js";
import type { PluginContext } from "../context.js";
import type { AdmissionPlugin } from "../interface.js";
import { containersOf, recordOf, specOf, stringOf } from "./pod-spec.js";

/** The `imagePolicy` configuration: the backend's kubeconfig and how answers are cached and retried. */
export interface ImagePolicyConfig {
  readonly kubeConfigFile: string;
  readonly allowTtlMs: number;
  readonly denyTtlMs: number;
  readonly retryBackoffMs: number;
  readonly defaultAllow: boolean;
}

export function parseImagePolicyConfig(raw: unknown, _profile: Profile): ImagePolicyConfig {
  const fail = (field: string, message: string): never => {
    throw new AdmissionConfigError(`plugin "ImagePolicyWebhook": ${field}: ${message}`);
  };
  const block = isPlainObject(raw) ? raw["imagePolicy"] : undefined;
  if (!isPlainObject(block)) return fail("imagePolicy", "required: kubeConfigFile, allowTTL, denyTTL, retryBackoff, defaultAllow");
  const file = block["kubeConfigFile"];
  if (typeof file !== "string" || file === "") return fail("imagePolicy.kubeConfigFile", "required");
  const seconds = (field: string, fallback: number): number => {
    const value = block[field] ?? fallback;
    if (typeof value !== "number" || value < 0) return fail(`imagePolicy.${field}`, "must be a non-negative number");
    return value;
  };
  const defaultAllow = block["defaultAllow"] ?? false;
  if (typeof defaultAllow !== "boolean") return fail("imagePolicy.defaultAllow", "must be true or false");
  let url: URL;
  try {
    url = loadWebhookConfig(file).url;
  } catch (error) {
    return fail("imagePolicy.kubeConfigFile", error instanceof Error ? error.message : String(error));
  }
  if (url.protocol !== "https:") fail("imagePolicy.kubeConfigFile", `the backend must be reached over TLS (https), got ${url.protocol}`);
  return {
    kubeConfigFile: file,
    allowTtlMs: seconds("allowTTL", 300) * 1000,
    denyTtlMs: seconds("denyTTL", 30) * 1000,
    retryBackoffMs: seconds("retryBackoff", 500),
    defaultAllow,
  };
}

/**
 * ImagePolicyWebhook: a pod's images (and its `*.image-policy.<apiDomain>/*` annotations) are sent
 * to the backend as an ImageReview; `status.allowed: false` refuses the pod with the backend's
 * reason. Answers are cached (`allowTTL`, `denyTTL`); a failing backend is retried once after
 * `retryBackoff`, then `defaultAllow` decides (allowing marks the pod `alpha.image-policy.<apiDomain>/failed-open`).
 * Runs in the mutating phase so that mark can be written.
 */
export function imagePolicyWebhook(context: PluginContext): AdmissionPlugin {
  const config = context.configuration as ImagePolicyConfig;
  const group = apiGroup(context.profile, "imagepolicy");
  const infix = context.names.imagePolicyAnnotationInfix;
  const failedOpen = `alpha.image-policy.${context.profile.apiDomain}/failed-open`;
  let client: WebhookClient | undefined;
  const cache = new Map<string, { allowed: boolean; reason: string; expires: number }>();

  async function review(spec: Record<string, unknown>): Promise<{ allowed: boolean; reason: string }> {
    client ??= webhookClient(loadWebhookConfig(config.kubeConfigFile));
    const body = { apiVersion: `${group}/v1alpha1`, kind: "ImageReview", spec };
    let lastError: unknown;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, config.retryBackoffMs));
      try {
        const response = await client.post(body, 30_000);
        if (response.status < 200 || response.status >= 300) throw new Error(`the image policy backend answered ${response.status}`);
        const status = recordOf(recordOf(response.body)["status"]);
        return { allowed: status["allowed"] === true, reason: stringOf(status["reason"]) };
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }

  return {
    name: "ImagePolicyWebhook",
    resources: new Set(["pods"]),
    handles: (operation) => operation === "CREATE" || operation === "UPDATE",
    async mutate(attributes) {
      const pod = attributes.object;
      if (pod === undefined || attributes.resource.group !== "" || (attributes.subresource !== "" && attributes.subresource !== "ephemeralcontainers")) return;
      const containers = containersOf(specOf(pod), { ephemeral: true }).map((container) => ({ image: stringOf(container["image"]) }));
      const annotations = Object.fromEntries(
        Object.entries(pod.metadata.annotations ?? {}).filter(([key]) => {
          const slash = key.indexOf("/");
          return slash > 0 && `${key.slice(0, slash)}/`.endsWith(infix);
        }),
      );
      const spec = { containers, ...(Object.keys(annotations).length > 0 ? { annotations } : {}), namespace: attributes.namespace };
      const key = JSON.stringify(spec);
      const now = context.now();
      let answer = cache.get(key);
      if (answer === undefined || answer.expires <= now) {
        try {
          const fresh = await review(spec);
          answer = { ...fresh, expires: now + (fresh.allowed ? config.allowTtlMs : config.denyTtlMs) };
          cache.set(key, answer);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          if (!config.defaultAllow) throw denied(attributes, `image policy webhook backend failed: ${message}`);
          pod.metadata.annotations = { ...pod.metadata.annotations, [failedOpen]: "true" };
          attributes.annotate?.(`imagepolicywebhook.image-policy.${context.profile.apiDomain}/failed-open`, "true");
          return;
        }
      }
      if (!answer.allowed) throw denied(attributes, `image policy webhook backend denied one or more images: ${answer.reason}`);
    },
  };
}
