import { publicJwk, type VerificationKey } from "./keys.js";

/** The path of the issuer's key set, served by the API server. */
export const JWKS_PATH = "/openid/v1/jwks";
export const OPENID_CONFIGURATION_PATH = "/.well-known/openid-configuration";

/**
 * Whether an issuer can be discovered: kube serves OIDC discovery only for an https URL issuer
 * without query or fragment.
 */
export function discoverableIssuer(issuer: string): boolean {
  try {
    const url = new URL(issuer);
    return url.protocol === "https:" && url.search === "" && url.hash === "";
  } catch {
    return false;
  }
}

/** `/.well-known/openid-configuration` for the issuer; `jwksUri` is where clients fetch the keys. */
export function openIdConfiguration(issuer: string, jwksUri: string, keys: readonly VerificationKey[]): Record<string, unknown> {
  return {
    issuer,
    jwks_uri: jwksUri,
    response_types_supported: ["id_token"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: [...new Set(keys.map((key) => key.algorithm))].sort(),
  };
}

/** `/openid/v1/jwks`: every verification key as a public JWK. */
export function jsonWebKeySet(keys: readonly VerificationKey[]): Record<string, unknown> {
  return { keys: keys.map(publicJwk) };
}

/** The issuer's discovery documents, built per request from the current keys (a reloaded key file shows at once). */
export interface IssuerDiscovery {
  /** `serverAddress` (`host:port`) locates the key set when no other URI is configured, as kube does. */
  configuration(serverAddress: string): Record<string, unknown>;
  jwks(): Record<string, unknown>;
}

/** Discovery for the issuer, or undefined when it is not an https URL (kube then serves none). */
export function issuerDiscovery(issuer: string, keys: () => readonly VerificationKey[]): IssuerDiscovery | undefined {
  if (!discoverableIssuer(issuer)) return undefined;
  return {
    configuration: (serverAddress) => openIdConfiguration(issuer, `https://${serverAddress}${JWKS_PATH}`, keys()),
    jwks: () => jsonWebKeySet(keys()),
  };
}
