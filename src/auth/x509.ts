import type { Authenticator } from "./authenticator.js";
import { peerIssuedBy, type CaBundle } from "./ca-bundle.js";

/**
 * Client certificates issued by the client CA (`--client-ca-file`): CN is the user, each O a
 * group. TLS has verified the chain against every trusted bundle; this checks that it was the
 * client CA's (a certificate of the request-header CA is not a user). `clientCa` is read per
 * request, so a reloaded bundle applies at once.
 */
export function x509Authenticator(clientCa: () => CaBundle): Authenticator {
  return {
    name: "x509",
    async authenticate(request) {
      const certificate = request.peerCertificate;
      if (request.peerCertificateError !== undefined) return { kind: "rejected", reason: `verifying certificate failed: ${request.peerCertificateError}` };
      if (certificate === undefined) return { kind: "none" };
      if (!peerIssuedBy(certificate, clientCa())) return { kind: "rejected", reason: "client certificate not issued by the client CA" };
      if (certificate.commonName === "") return { kind: "rejected", reason: "client certificate has no common name" };
      return { kind: "ok", user: { name: certificate.commonName, groups: [...certificate.organizations] } };
    },
  };
}
