import { headerValues, type ApiRequest } from "../request/context.js";
import type { Authenticator } from "./authenticator.js";
import { peerIssuedBy, type CaBundle } from "./ca-bundle.js";

/** The authenticating proxy's settings: the `--requestheader-*` flags. */
export interface RequestHeaderOptions {
  /** Ordered; the first with a non-empty value names the user. */
  readonly usernameHeaders: readonly string[];
  /** Every value of each is a group. */
  readonly groupHeaders: readonly string[];
  /** Headers starting with one of these carry extra attributes (key = the rest, lower-cased, percent-decoded). */
  readonly extraHeaderPrefixes: readonly string[];
  /** CNs the proxy's certificate may have; empty allows any certificate the CA issued. */
  readonly allowedNames: readonly string[];
  /** `--requestheader-client-ca-file`, read per request so a reload applies at once. */
  readonly clientCa: () => CaBundle;
}

/** Percent-decodes an extra key as kube does; a malformed escape keeps the key as sent. */
export function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

function rawHeaderNames(request: ApiRequest): string[] {
  const raw = request.rawHeaders;
  if (raw === undefined) return Object.keys(request.headers);
  const names: string[] = [];
  for (let index = 0; index < raw.length; index += 2) names.push((raw[index] ?? "").toLowerCase());
  return [...new Set(names)];
}

/** Extra attributes from headers with any of the prefixes (case-insensitive). */
export function extraFromHeaders(request: ApiRequest, prefixes: readonly string[]): Record<string, string[]> | undefined {
  if (prefixes.length === 0) return undefined;
  const lowerPrefixes = prefixes.map((prefix) => prefix.toLowerCase());
  let extra: Record<string, string[]> | undefined;
  for (const name of rawHeaderNames(request)) {
    const prefix = lowerPrefixes.find((candidate) => name.startsWith(candidate));
    if (prefix === undefined || name.length === prefix.length) continue;
    const key = unescapeExtraKey(name.slice(prefix.length).toLowerCase());
    extra ??= {};
    extra[key] = [...(extra[key] ?? []), ...headerValues(request, name)];
  }
  return extra;
}

/**
 * The authenticating proxy: identity from request headers, honoured only when the connection's
 * client certificate was issued by the request-header CA (and its CN is allowed). Without such
 * a certificate, or without a user-name header, it has no opinion.
 */
export function requestHeaderAuthenticator(options: RequestHeaderOptions): Authenticator {
  return {
    name: "request-header",
    async authenticate(request) {
      const certificate = request.peerCertificate;
      if (request.peerCertificateError !== undefined)
        return { kind: "rejected", reason: `verifying proxy certificate failed: ${request.peerCertificateError}` };
      if (certificate === undefined || !peerIssuedBy(certificate, options.clientCa())) return { kind: "none" };
      if (options.allowedNames.length > 0 && !options.allowedNames.includes(certificate.commonName)) {
        return { kind: "rejected", reason: `proxy certificate common name "${certificate.commonName}" is not allowed` };
      }
      let name: string | undefined;
      for (const header of options.usernameHeaders) {
        name = headerValues(request, header).find((value) => value !== "");
        if (name !== undefined) break;
      }
      if (name === undefined) return { kind: "none" };
      const groups = options.groupHeaders.flatMap((header) => headerValues(request, header).filter((value) => value !== ""));
      const extra = extraFromHeaders(request, options.extraHeaderPrefixes);
      return { kind: "ok", user: extra === undefined ? { name, groups } : { name, groups, extra } };
    },
  };
}
