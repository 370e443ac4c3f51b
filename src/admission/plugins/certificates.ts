import { apiGroup } from "../../api/profile.js";
import { canonicalJson } from "../../util/canonical-json.js";
import type { UserInfo } from "../../request/context.js";
import { denied } from "../deny.js";
import type { PluginContext } from "../context.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../interface.js";
import { recordOf, stringOf } from "./pod-spec.js";

const PRIVILEGED_GROUP = "system:masters";

/** Whether the user may `verb` signers named `signerName` (or `<domain>/*`), as kube's certificate plugins ask. */
async function mayUseSigner(context: PluginContext, user: UserInfo, verb: string, signerName: string): Promise<boolean> {
  const group = apiGroup(context.profile, "certificates");
  const slash = signerName.indexOf("/");
  const names = slash < 0 ? [signerName] : [signerName, `${signerName.slice(0, slash)}/*`];
  for (const name of names) {
    const decision = await context.authorizer.authorize(user, {
      kind: "resource",
      verb,
      group,
      version: "*",
      namespace: "",
      resource: "signers",
      subresource: "",
      name,
    });
    if (decision.kind === "allow") return true;
  }
  return false;
}

function isCsr(context: PluginContext, attributes: AdmissionAttributes): boolean {
  return attributes.resource.group === apiGroup(context.profile, "certificates") && attributes.resource.resource === "certificatesigningrequests";
}

/** CertificateApproval: approving or denying (the `approval` sub-resource) needs `approve` on the request's signer. */
export function certificateApproval(context: PluginContext): AdmissionPlugin {
  return {
    name: "CertificateApproval",
    resources: new Set(["certificatesigningrequests"]),
    handles: (operation) => operation === "UPDATE",
    async validate(attributes) {
      if (!isCsr(context, attributes) || attributes.subresource !== "approval" || attributes.user === undefined || attributes.object === undefined) return;
      const signer = stringOf(recordOf(attributes.object["spec"])["signerName"]);
      if (!(await mayUseSigner(context, attributes.user, "approve", signer)))
        throw denied(attributes, `user not permitted to approve requests with signerName "${signer}"`);
    },
  };
}

/** CertificateSigning: setting or changing `status.certificate` needs `sign` on the request's signer. */
export function certificateSigning(context: PluginContext): AdmissionPlugin {
  return {
    name: "CertificateSigning",
    resources: new Set(["certificatesigningrequests"]),
    handles: (operation) => operation === "UPDATE",
    async validate(attributes) {
      if (!isCsr(context, attributes) || attributes.subresource !== "status" || attributes.user === undefined || attributes.object === undefined) return;
      const certificate = (value: unknown): string => canonicalJson(recordOf(recordOf(value)["status"])["certificate"] ?? "");
      if (certificate(attributes.object) === certificate(attributes.oldObject)) return;
      const signer = stringOf(recordOf(attributes.object["spec"])["signerName"]);
      if (!(await mayUseSigner(context, attributes.user, "sign", signer)))
        throw denied(attributes, `user not permitted to sign requests with signerName "${signer}"`);
    },
  };
}

/** The subject organizations (O=) of a PEM certificate request, read from its DER (node has no CSR parser). */
export function requestOrganizations(pem: string): string[] {
  const base64 = pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");
  const der = Buffer.from(base64, "base64");
  const out: string[] = [];
  // id-at-organizationName (2.5.4.10) = 06 03 55 04 0a, followed by a string value.
  for (let index = 0; index + 7 < der.length; index++) {
    if (der[index] === 0x06 && der[index + 1] === 0x03 && der[index + 2] === 0x55 && der[index + 3] === 0x04 && der[index + 4] === 0x0a) {
      const length = der[index + 6] ?? 0;
      out.push(der.subarray(index + 7, index + 7 + length).toString("utf8"));
    }
  }
  return out;
}

/** CertificateSubjectRestriction: a request to the API-client signer may not ask for the `system:masters` group. */
export function certificateSubjectRestriction(context: PluginContext): AdmissionPlugin {
  const clientSigner = context.profile.apiServerClientSigner;
  return {
    name: "CertificateSubjectRestriction",
    resources: new Set(["certificatesigningrequests"]),
    handles: (operation) => operation === "CREATE",
    async validate(attributes) {
      if (!isCsr(context, attributes) || attributes.subresource !== "" || attributes.object === undefined) return;
      const spec = recordOf(attributes.object["spec"]);
      if (stringOf(spec["signerName"]) !== clientSigner) return;
      const request = Buffer.from(stringOf(spec["request"]), "base64").toString("utf8");
      if (requestOrganizations(request).includes(PRIVILEGED_GROUP)) {
        throw denied(attributes, `use of ${clientSigner} signer with ${PRIVILEGED_GROUP} group is not allowed`);
      }
    },
  };
}
