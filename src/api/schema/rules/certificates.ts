import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../../profile.js";
import { validateName } from "../../validation.js";
import { duplicate, forbidden, indexPath, invalidValue, notSupported, required } from "../field-path.js";
import { KEY_USAGES } from "../kinds/certificates.js";
import { listAt, recordAt, stringAt } from "./values.js";

/**
 * CertificateSigningRequest rules (the spec's table): `signerName` required and a qualified
 * `<domain>/<path>`, `usages` required with known values and no duplicates, `request` a PEM
 * `CERTIFICATE REQUEST`, `expirationSeconds` at least 600, and conditions with a type, a status
 * (True for Approved/Denied/Failed), no duplicate types and never both Approved and Denied.
 * v1 refuses the legacy-unknown signer on create. `status.certificate` holds only PEM
 * `CERTIFICATE` blocks without headers (text around them ignored), is set only on an approved,
 * not failed request, and once set never changes.
 */

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/;
const DNS_LABELS = 2;

/** `example.com/signer-name`: a fully qualified domain, one slash, a non-empty path. */
export function signerNameErrors(signerName: string, field: string): FieldError[] {
  const segments = signerName.split("/");
  const shape = "must be a fully qualified domain and path of the form 'example.com/signer-name'";
  if (segments.length < 2) return [invalidValue(field, signerName, shape)];
  const [domain = "", ...rest] = segments;
  const path = rest.join("/");
  const errors: FieldError[] = [];
  if (domain.split(".").length < DNS_LABELS || validateName(domain, "dns1123-subdomain").length > 0) {
    errors.push(invalidValue(field, signerName, `${shape}: the domain part must be a fully qualified domain name`));
  }
  if (path === "" || path.length > 253) errors.push(invalidValue(field, signerName, `${shape}: the path part must be non-empty and at most 253 characters`));
  return errors;
}

/** Whether DER bytes start a well-formed ASN.1 SEQUENCE spanning the whole buffer. */
function isDerSequence(der: Buffer): boolean {
  if (der.length < 2 || der[0] !== 0x30) return false;
  const first = der[1] ?? 0;
  if (first < 0x80) return first + 2 === der.length;
  const octets = first & 0x7f;
  if (octets === 0 || octets > 4 || der.length < 2 + octets) return false;
  let length = 0;
  for (let index = 0; index < octets; index++) length = length * 256 + (der[2 + index] ?? 0);
  return 2 + octets + length === der.length;
}

function requestErrors(request: unknown): FieldError[] {
  if (typeof request !== "string" || request === "") return [];
  const text = Buffer.from(request, "base64").toString("utf8");
  const block = PEM_BLOCK.exec(text);
  if (block === null) return [invalidValue("spec.request", "<bytes>", "PEM block type must be CERTIFICATE REQUEST")];
  if (block[1] !== "CERTIFICATE REQUEST") return [invalidValue("spec.request", "<bytes>", `PEM block type must be CERTIFICATE REQUEST, not ${block[1] ?? ""}`)];
  const der = Buffer.from((block[2] ?? "").replace(/\s+/g, ""), "base64");
  return isDerSequence(der) ? [] : [invalidValue("spec.request", "<bytes>", "x509: malformed certificate request")];
}

/** Both profiles' spelling of the legacy signer (a stored object may predate a profile switch). */
const LEGACY_SIGNERS = new Set([ORCH_PROFILE.legacyUnknownSigner, KUBERNETES_PROFILE.legacyUnknownSigner]);

const PEM_BLOCKS = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

/** Why `status.certificate` (base64 of PEM text) is not a list of CERTIFICATE blocks; undefined when it is. */
export function certificateBlocksError(encoded: string): string | undefined {
  const text = Buffer.from(encoded, "base64").toString("utf8");
  let blocks = 0;
  for (const match of text.matchAll(PEM_BLOCKS)) {
    if (match[1] !== "CERTIFICATE") return `only CERTIFICATE PEM blocks are allowed, found "${match[1] ?? ""}"`;
    const body = match[2] ?? "";
    if (/^[\w-]+:/m.test(body)) return "no PEM block headers are permitted";
    if (!isDerSequence(Buffer.from(body.replace(/\s+/g, ""), "base64"))) return "x509: malformed certificate";
    blocks++;
  }
  return blocks === 0 ? "must contain at least one CERTIFICATE PEM block" : undefined;
}

function hasCondition(object: ApiObject, type: string): boolean {
  return listAt(recordAt(object, "status"), "conditions").some((condition) => isPlainObject(condition) && condition["type"] === type);
}

function certificateErrors(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  const certificate = stringAt(recordAt(object, "status") ?? {}, "certificate") ?? "";
  const previous = old === undefined ? "" : (stringAt(recordAt(old, "status") ?? {}, "certificate") ?? "");
  const field = "status.certificate";
  if (previous !== "" && certificate !== previous) return [invalidValue(field, "<certificate data>", "updates may not modify existing certificate content")];
  if (certificate === "" || certificate === previous) return [];
  const errors: FieldError[] = [];
  if (!hasCondition(object, "Approved")) errors.push(forbidden(field, "certificate may only be set if the request has an Approved condition"));
  if (hasCondition(object, "Failed")) errors.push(forbidden(field, "certificate may not be set if the request has a Failed condition"));
  const blocks = certificateBlocksError(certificate);
  if (blocks !== undefined) errors.push(invalidValue(field, "<certificate data>", blocks));
  return errors;
}

export function validateCertificateSigningRequest(object: ApiObject, old?: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = recordAt(object, "spec");
  if (spec !== undefined) {
    const signerName = stringAt(spec, "signerName") ?? "";
    if (signerName !== "") errors.push(...signerNameErrors(signerName, "spec.signerName"));
    if (old === undefined && LEGACY_SIGNERS.has(signerName))
      errors.push(invalidValue("spec.signerName", signerName, "the legacy signerName is not allowed via this API version"));
    const seen = new Set<string>();
    listAt(spec, "usages").forEach((usage, index) => {
      const field = indexPath("spec.usages", index);
      if (typeof usage !== "string") return;
      if (!KEY_USAGES.includes(usage)) return;
      if (seen.has(usage)) errors.push(duplicate(field, usage));
      seen.add(usage);
    });
    const expiration = spec["expirationSeconds"];
    if (typeof expiration === "number" && expiration < 600)
      errors.push(invalidValue("spec.expirationSeconds", expiration, "may not specify a duration less than 600 seconds (10 minutes)"));
    errors.push(...requestErrors(spec["request"]));
  }
  const types = new Set<string>();
  listAt(recordAt(object, "status"), "conditions").forEach((condition, index) => {
    if (!isPlainObject(condition)) return;
    const at = indexPath("status.conditions", index);
    const type = stringAt(condition, "type") ?? "";
    if (type === "") {
      errors.push(required(`${at}.type`));
      return;
    }
    if (types.has(type)) errors.push(duplicate(`${at}.type`, type));
    types.add(type);
    const status = stringAt(condition, "status");
    if ((type === "Approved" || type === "Denied" || type === "Failed") && status !== undefined && status !== "" && status !== "True")
      errors.push(notSupported(`${at}.status`, status, ["True"]));
    if ((type === "Approved" && types.has("Denied")) || (type === "Denied" && types.has("Approved")))
      errors.push(invalidValue(`${at}.type`, type, "Approved and Denied conditions are mutually exclusive"));
  });
  errors.push(...certificateErrors(object, old));
  return errors;
}
