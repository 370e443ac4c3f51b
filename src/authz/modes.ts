import type { SubjectAccessReviewVersion } from "./webhook/webhook-authorizer.js";

export const AUTHORIZATION_MODES = ["AlwaysAllow", "AlwaysDeny", "ABAC", "Webhook", "RBAC", "Node"] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

/** `--authorization-*` flags: the modes in order and what they read. */
export interface AuthorizationConfig {
  /** Checked in order; the first that allows or denies decides; none deciding means deny. */
  readonly modes: readonly AuthorizationMode[];
  /** `--authorization-policy-file` (ABAC). */
  readonly policyFile?: string;
  /** `--authorization-webhook-config-file` (Webhook), kubeconfig format. */
  readonly webhookConfigFile?: string;
  /** `--authorization-webhook-version`. */
  readonly webhookVersion: SubjectAccessReviewVersion;
  /** `--authorization-webhook-cache-authorized-ttl`. */
  readonly webhookAuthorizedTtlMs: number;
  /** `--authorization-webhook-cache-unauthorized-ttl`. */
  readonly webhookUnauthorizedTtlMs: number;
}

export const DEFAULT_AUTHORIZATION: AuthorizationConfig = {
  modes: ["Node", "RBAC"],
  webhookVersion: "v1beta1",
  webhookAuthorizedTtlMs: 5 * 60_000,
  webhookUnauthorizedTtlMs: 30_000,
};

export class AuthorizationConfigError extends Error {
  override readonly name = "AuthorizationConfigError";
}

function isMode(value: string): value is AuthorizationMode {
  return (AUTHORIZATION_MODES as readonly string[]).includes(value);
}

/** Parses `--authorization-mode` (comma list, case-sensitive, no repeats, not empty). */
export function parseAuthorizationModes(text: string): AuthorizationMode[] {
  const modes: AuthorizationMode[] = [];
  for (const raw of text.split(",")) {
    const mode = raw.trim();
    if (!isMode(mode)) throw new AuthorizationConfigError(`authorization-mode "${mode}" is not a valid mode: must be one of ${AUTHORIZATION_MODES.join(", ")}`);
    if (modes.includes(mode)) throw new AuthorizationConfigError(`authorization-mode "${mode}" has already been specified`);
    modes.push(mode);
  }
  return modes;
}

/** kube's cross-flag checks: ABAC needs a policy file, Webhook a config file, and neither file without its mode. */
export function validateAuthorizationConfig(config: AuthorizationConfig): void {
  const has = (mode: AuthorizationMode): boolean => config.modes.includes(mode);
  if (config.modes.length === 0) throw new AuthorizationConfigError("at least one authorization-mode must be passed");
  if (has("ABAC") && config.policyFile === undefined) throw new AuthorizationConfigError("authorization-mode ABAC's authorization policy file not passed");
  if (!has("ABAC") && config.policyFile !== undefined) throw new AuthorizationConfigError("cannot specify --authorization-policy-file without mode ABAC");
  if (has("Webhook") && config.webhookConfigFile === undefined)
    throw new AuthorizationConfigError("authorization-mode Webhook's authorization config file not passed");
  if (!has("Webhook") && config.webhookConfigFile !== undefined)
    throw new AuthorizationConfigError("cannot specify --authorization-webhook-config-file without mode Webhook");
}
