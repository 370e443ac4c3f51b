import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import { validateName } from "../../validation.js";
import { duplicate, indexPath, invalidValue, notSupported, required } from "../field-path.js";
import { KEY_USAGES } from "../kinds/certificates.js";
import { listAt, recordAt, stringAt } from "./values.js";

/**
 * CertificateSigningRequest rules (the spec's table): `signerName` required and a qualified
 * `<domain>/<path>`, `usages` required with known values and no duplicates, `request` a PEM
 * `CERTIFICATE REQUEST`, `expirationSeconds` at least 600, and conditions with a type, a status
 * (True for Approved/Denied/Failed), no duplicate types and never both Approved and Denied.
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

export function validateCertificateSigningRequest(object: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = recordAt(object, "spec");
  if (spec !== undefined) {
    const signerName = stringAt(spec, "signerName") ?? "";
    if (signerName !== "") errors.push(...signerNameErrors(signerName, "spec.signerName"));
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
  return errors;
}
