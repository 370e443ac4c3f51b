import type { Pkcs10CertificateRequest } from "@peculiar/x509";
import type { Profile } from "../../../api/profile.js";
import { requestNames } from "../csr.js";

/**
 * A built-in signer's rule on a request: undefined when it may be signed, else why not (the
 * message of the `Failed` condition the signer adds).
 */
export type SignerRule = (request: Pkcs10CertificateRequest, usages: readonly string[]) => string | undefined;

const NODE_ORGANIZATION = "system:nodes";
const NODE_PREFIX = "system:node:";
const CLIENT_USAGES = ["digital signature", "key encipherment", "client auth"];
/** The spec's node-serving row names `client auth`; kube's kubelet-serving signer issues `server auth`. Both are accepted. */
const SERVING_USAGE_SETS = [
  ["key encipherment", "digital signature", "client auth"],
  ["key encipherment", "digital signature", "server auth"],
];

function sameSet(usages: readonly string[], wanted: readonly string[]): boolean {
  const set = new Set(usages);
  return set.size === wanted.length && wanted.every((usage) => set.has(usage));
}

/** Organization exactly `system:nodes` and a common name `system:node:<name>`, as both node signers require. */
function nodeSubjectError(request: Pkcs10CertificateRequest): string | undefined {
  const organizations = request.subjectName.getField("O");
  if (organizations.length !== 1 || organizations[0] !== NODE_ORGANIZATION) return `subject organization is not ${NODE_ORGANIZATION}`;
  const commonNames = request.subjectName.getField("CN");
  if (commonNames.length !== 1 || !(commonNames[0] ?? "").startsWith(NODE_PREFIX)) return `subject common name does not begin with ${NODE_PREFIX}`;
  return undefined;
}

/** API-server client certificates: `client auth` required, nothing outside the three client usages. */
export const apiServerClientRule: SignerRule = (_request, usages) => {
  for (const usage of usages) if (!CLIENT_USAGES.includes(usage)) return `invalid usage for client certificate: ${usage}`;
  if (!usages.includes("client auth")) return "missing required usage for client certificate: client auth";
  return undefined;
};

/** Node client certificates: the node subject, no alternative names, exactly the three client usages. */
export const nodeClientRule: SignerRule = (request, usages) => {
  const subject = nodeSubjectError(request);
  if (subject !== undefined) return subject;
  const names = requestNames(request);
  if (names.dns.length > 0) return "DNS subjectAltNames are not allowed";
  if (names.email.length > 0) return "Email subjectAltNames are not allowed";
  if (names.ip.length > 0) return "IP subjectAltNames are not allowed";
  if (names.uri.length > 0) return "URI subjectAltNames are not allowed";
  if (!sameSet(usages, CLIENT_USAGES)) return `usages did not match [${CLIENT_USAGES.join(" ")}]`;
  return undefined;
};

/** Node serving certificates: the node subject, at least one DNS or IP name, no email or URI names. */
export const nodeServingRule: SignerRule = (request, usages) => {
  const subject = nodeSubjectError(request);
  if (subject !== undefined) return subject;
  const names = requestNames(request);
  if (names.email.length > 0) return "email subject alt names are not allowed";
  if (names.uri.length > 0) return "URI subject alt names are not allowed";
  if (names.dns.length + names.ip.length === 0) return "DNS or IP subjectAltName is required";
  if (!SERVING_USAGE_SETS.some((set) => sameSet(usages, set)))
    return `usages did not match ${SERVING_USAGE_SETS.map((set) => `[${set.join(" ")}]`).join(" or ")}`;
  return undefined;
};

/** legacy-unknown: no rule (and no trust guarantee). */
export const legacyUnknownRule: SignerRule = () => undefined;

/** The built-in signers by the profile's names, with their rules. */
export function builtinSignerRules(profile: Profile): ReadonlyMap<string, SignerRule> {
  return new Map([
    [profile.apiServerClientSigner, apiServerClientRule],
    [profile.nodeClientSigner, nodeClientRule],
    [profile.nodeServingSigner, nodeServingRule],
    [profile.legacyUnknownSigner, legacyUnknownRule],
  ]);
}
