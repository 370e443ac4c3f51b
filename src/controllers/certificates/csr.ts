import type { Pkcs10CertificateRequest } from "@peculiar/x509";
import type { ResourceRef } from "../../api/client.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import { apiGroup, type Profile } from "../../api/profile.js";
import { loadedX509, loadX509 } from "./x509-library.js";

/** `certificates.<apiDomain>/v1` certificatesigningrequests. */
export function csrResource(profile: Profile): ResourceRef {
  return { group: apiGroup(profile, "certificates"), version: "v1", plural: "certificatesigningrequests" };
}

export type CsrCondition = Readonly<Record<string, unknown>>;

/** The fields of a CertificateSigningRequest the certificate controllers read. */
export interface CsrView {
  readonly name: string;
  readonly uid: string;
  readonly creationTimestamp: string;
  readonly signerName: string;
  /** Base64 of the PEM `CERTIFICATE REQUEST`. */
  readonly request: string;
  readonly usages: readonly string[];
  readonly expirationSeconds: number | undefined;
  readonly username: string;
  readonly userUid: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
  readonly conditions: readonly CsrCondition[];
  /** Base64 of the issued PEM chain; "" until signed. */
  readonly certificate: string;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

export function viewCsr(object: ApiObject): CsrView {
  const spec = isPlainObject(object["spec"]) ? object["spec"] : {};
  const status = isPlainObject(object["status"]) ? object["status"] : {};
  const extra = isPlainObject(spec["extra"]) ? spec["extra"] : {};
  const text = (value: unknown): string => (typeof value === "string" ? value : "");
  return {
    name: object.metadata.name ?? "",
    uid: object.metadata.uid ?? "",
    creationTimestamp: object.metadata.creationTimestamp ?? "",
    signerName: text(spec["signerName"]),
    request: text(spec["request"]),
    usages: strings(spec["usages"]),
    expirationSeconds: typeof spec["expirationSeconds"] === "number" ? spec["expirationSeconds"] : undefined,
    username: text(spec["username"]),
    userUid: text(spec["uid"]),
    groups: strings(spec["groups"]),
    extra: Object.fromEntries(Object.entries(extra).map(([key, values]) => [key, strings(values)])),
    conditions: Array.isArray(status["conditions"]) ? status["conditions"].filter(isPlainObject) : [],
    certificate: text(status["certificate"]),
  };
}

/** Whether the request carries a condition of `type` with status True. */
export function hasTrueCondition(csr: CsrView, type: string): boolean {
  return csr.conditions.some((condition) => condition["type"] === type && condition["status"] === "True");
}

/** Parses `spec.request`; throws when it is not a PEM certificate request whose signature verifies. */
export async function parseRequest(request: string): Promise<Pkcs10CertificateRequest> {
  const x509 = await loadX509();
  const parsed = new x509.Pkcs10CertificateRequest(Buffer.from(request, "base64").toString("utf8"));
  if (!(await parsed.verify())) throw new Error("the certificate request's signature does not verify");
  return parsed;
}

/** The subject alternative names of a request, by kind. */
export interface RequestNames {
  readonly dns: readonly string[];
  readonly ip: readonly string[];
  readonly email: readonly string[];
  readonly uri: readonly string[];
}

export const SUBJECT_ALT_NAME = "2.5.29.17";

export function requestNames(request: Pkcs10CertificateRequest): RequestNames {
  const x509 = loadedX509();
  const extension = request.getExtension(SUBJECT_ALT_NAME);
  const names = extension === null ? [] : new x509.SubjectAlternativeNameExtension(extension.rawData).names.toJSON();
  const of = (type: string): string[] => names.filter((name) => name.type === type).map((name) => name.value);
  return { dns: of("dns"), ip: of("ip"), email: of("email"), uri: of("url") };
}
