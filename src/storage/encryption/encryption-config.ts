import { readFileSync } from "node:fs";
import { parseFirstDocument } from "../../util/yaml.js";
import { encryptionNames, foreignConfigHint, type Profile } from "../../api/profile.js";
import { parseDuration } from "../../util/duration.js";
import { aesCbcTransformer, aesGcmTransformer, IDENTITY, secretboxTransformer } from "./ciphers.js";
import { kmsV2Transformer, type KmsV2Transformer } from "./kms-v2.js";
import { parseResourcePatterns } from "./encryption-resources.js";
import type { KeyLayout } from "../key-layout.js";
import type { TransformerChain, ValueTransformer } from "./transformer.js";

/** A bad EncryptionConfiguration: the message names the field, as kube's validation does. */
export class EncryptionConfigError extends Error {
  override readonly name = "EncryptionConfigError";
}

/** One `resources[]` entry: the resources it names (`secrets`, `deployments.apps`, `*.apps`, `*.`, `*.*`) and its chain. */
interface ResourceRule {
  readonly patterns: readonly { readonly group: string; readonly resource: string }[];
  readonly chain: TransformerChain;
}

/**
 * A loaded EncryptionConfiguration: the transformer chain of each storage key. A key's resource
 * is read back through the key layout (storage/key-layout.ts); the first `resources[]` entry
 * naming it applies, and a resource no entry names (or a key of no resource) is stored as plain text.
 */
export interface EncryptionConfig {
  /** The chain for a storage key, or undefined when its resource is stored as plain text. */
  chainFor(key: string): TransformerChain | undefined;
  /** The KMS providers, for `/healthz/kms-providers`. */
  readonly kmsProviders: readonly KmsV2Transformer[];
  /** Closes the KMS plugin connections. */
  close(): void;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function keyMaterial(field: string, provider: string, value: unknown, prefixOf: (name: string) => string): { prefix: string; secret: Buffer }[] {
  if (!isRecord(value) || !Array.isArray(value.keys) || value.keys.length === 0)
    throw new EncryptionConfigError(`${field}.keys: Required value: ${provider} needs at least one key`);
  const names = new Set<string>();
  return value.keys.map((entry: unknown, index) => {
    const at = `${field}.keys[${index}]`;
    if (!isRecord(entry) || typeof entry.name !== "string" || entry.name === "") throw new EncryptionConfigError(`${at}.name: Required value`);
    if (entry.name.includes(":")) throw new EncryptionConfigError(`${at}.name: Invalid value: "${entry.name}": must not contain ':'`);
    if (names.has(entry.name)) throw new EncryptionConfigError(`${at}.name: Duplicate value: "${entry.name}"`);
    names.add(entry.name);
    if (typeof entry.secret !== "string" || entry.secret === "") throw new EncryptionConfigError(`${at}.secret: Required value`);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(entry.secret))
      throw new EncryptionConfigError(`${at}.secret: Invalid value: "REDACTED": secrets must be base64 encoded`);
    const secret = Buffer.from(entry.secret, "base64");
    // kube's key-length rule and text: AES takes 16, 24 or 32 bytes, secretbox 32.
    const sizes = provider === "secretbox" ? [32] : [16, 24, 32];
    if (!sizes.includes(secret.length))
      throw new EncryptionConfigError(
        `${at}.secret: Invalid value: "REDACTED": secret is not of the expected length, got ${secret.length}, expected one of [${sizes.join(" ")}]`,
      );
    return { prefix: prefixOf(entry.name), secret };
  });
}

function keyed(field: string, make: (prefix: string, secret: Buffer) => ValueTransformer, keys: { prefix: string; secret: Buffer }[]): ValueTransformer[] {
  return keys.map(({ prefix, secret }, index) => {
    try {
      return make(prefix, secret);
    } catch (error) {
      throw new EncryptionConfigError(`${field}.keys[${index}].secret: Invalid value: "REDACTED": ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}

/**
 * Reads and validates an EncryptionConfiguration (`apiserver.config.<apiDomain>/v1`). Providers:
 * identity, aescbc, aesgcm, secretbox (keys: name + base64 secret, the first key writes) and
 * kms (apiVersion v2 only; a `unix://` endpoint). Throws EncryptionConfigError.
 */
export function loadEncryptionConfig(
  path: string,
  profile: Profile,
  options: { readonly kmsStatusTtlMs?: number; readonly layout: KeyLayout },
): EncryptionConfig {
  const layout = options.layout;
  const names = encryptionNames(profile);
  const eventsGroup = `events.${profile.apiDomain}`;
  let document: unknown;
  try {
    document = parseFirstDocument(readFileSync(path, "utf8"));
  } catch (error) {
    throw new EncryptionConfigError(`reading ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isRecord(document)) throw new EncryptionConfigError(`${path}: not an EncryptionConfiguration object`);
  const expected = `${names.configGroup}/v1`;
  if (document.apiVersion !== expected || document.kind !== "EncryptionConfiguration")
    throw new EncryptionConfigError(
      `${path}: apiVersion/kind must be ${expected} EncryptionConfiguration, not ${String(document.apiVersion)} ${String(document.kind)}${foreignConfigHint(names.configGroup, document.apiVersion)}`,
    );
  if (!Array.isArray(document.resources) || document.resources.length === 0) throw new EncryptionConfigError("resources: Required value");
  const kmsProviders: KmsV2Transformer[] = [];
  const kmsNames = new Set<string>();
  const rules: ResourceRule[] = [];
  try {
    for (const [ruleIndex, rule] of document.resources.entries()) {
      const field = `resources[${ruleIndex}]`;
      if (!isRecord(rule)) throw new EncryptionConfigError(`${field}: Invalid value: not an object`);
      const patterns = parseResourcePatterns(`${field}.resources`, rule.resources, eventsGroup);
      if (typeof patterns === "string") throw new EncryptionConfigError(patterns);
      if (!Array.isArray(rule.providers) || rule.providers.length === 0) throw new EncryptionConfigError(`${field}.providers: Required value`);
      const transformers: ValueTransformer[] = [];
      for (const [providerIndex, provider] of rule.providers.entries()) {
        const at = `${field}.providers[${providerIndex}]`;
        const types = isRecord(provider) ? Object.keys(provider) : [];
        const [type] = types;
        if (types.length !== 1 || type === undefined || !isRecord(provider))
          throw new EncryptionConfigError(`${at}: Invalid value: exactly one provider type (identity, aescbc, aesgcm, secretbox, kms) must be given`);
        const body = provider[type];
        const prefixOf = (keyName: string): string => `${names.valuePrefix}${type}:v1:${keyName}:`;
        switch (type) {
          case "identity":
            transformers.push(IDENTITY);
            break;
          case "aescbc":
            transformers.push(...keyed(`${at}.aescbc`, aesCbcTransformer, keyMaterial(`${at}.aescbc`, type, body, prefixOf)));
            break;
          case "aesgcm":
            transformers.push(...keyed(`${at}.aesgcm`, aesGcmTransformer, keyMaterial(`${at}.aesgcm`, type, body, prefixOf)));
            break;
          case "secretbox":
            transformers.push(...keyed(`${at}.secretbox`, secretboxTransformer, keyMaterial(`${at}.secretbox`, type, body, prefixOf)));
            break;
          case "kms": {
            if (!isRecord(body)) throw new EncryptionConfigError(`${at}.kms: Required value`);
            if (body.apiVersion !== "v2")
              throw new EncryptionConfigError(`${at}.kms.apiVersion: Unsupported value: ${JSON.stringify(body.apiVersion ?? "v1")}: supported values: "v2"`);
            if (typeof body.name !== "string" || body.name === "" || body.name.includes(":"))
              throw new EncryptionConfigError(`${at}.kms.name: Invalid value: ${JSON.stringify(body.name)}: a name without ':' is required`);
            if (typeof body.endpoint !== "string" || !body.endpoint.startsWith("unix://") || body.endpoint.length <= "unix://".length)
              throw new EncryptionConfigError(`${at}.kms.endpoint: Invalid value: ${JSON.stringify(body.endpoint)}: must be unix://<socket path>`);
            if (body.cachesize !== undefined) throw new EncryptionConfigError(`${at}.kms.cachesize: Invalid value: cachesize is not supported in v2`);
            const timeoutMs = body.timeout === undefined ? 3000 : typeof body.timeout === "string" ? parseDuration(body.timeout) : undefined;
            if (timeoutMs === undefined || timeoutMs <= 0)
              throw new EncryptionConfigError(`${at}.kms.timeout: Invalid value: ${JSON.stringify(body.timeout)}: must be a positive duration`);
            if (kmsNames.has(body.name)) throw new EncryptionConfigError(`${at}.kms.name: Duplicate value: "${body.name}": KMS provider names must be unique`);
            kmsNames.add(body.name);
            const kms = kmsV2Transformer(`${names.valuePrefix}kms:v2:${body.name}:`, {
              endpoint: body.endpoint,
              timeoutMs,
              statusTtlMs: options.kmsStatusTtlMs,
            });
            kmsProviders.push(kms);
            transformers.push(kms);
            break;
          }
          default:
            throw new EncryptionConfigError(`${at}.${type}: Unsupported value: supported provider types: identity, aescbc, aesgcm, secretbox, kms`);
        }
      }
      rules.push({ patterns, chain: { transformers, valuePrefix: names.valuePrefix } });
    }
  } catch (error) {
    for (const kms of kmsProviders) kms.close();
    throw error;
  }
  return {
    chainFor(key) {
      const owner = layout.resourceOf(key);
      if (owner === undefined) return undefined;
      const { group, resource } = owner;
      for (const rule of rules) {
        for (const pattern of rule.patterns) {
          const groupMatches = pattern.group === "*" || pattern.group === group;
          const resourceMatches = pattern.resource === "*" || pattern.resource === resource;
          if (groupMatches && resourceMatches) return rule.chain;
        }
      }
      return undefined;
    },
    kmsProviders,
    close() {
      for (const kms of kmsProviders) kms.close();
    },
  };
}
