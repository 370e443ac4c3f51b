import type { Authenticator } from "./authenticator.js";

/**
 * Client certificates verified by TLS against the client CA: CN is the user, each O a group.
 * The server requests but does not require certificates; one that did not verify is `rejected`.
 */
export function x509Authenticator(): Authenticator {
  return {
    name: "x509",
    async authenticate(request) {
      const certificate = request.peerCertificate;
      if (certificate === undefined) return { kind: "none" };
      if (certificate.commonName === "") return { kind: "rejected", reason: "client certificate has no common name" };
      return { kind: "ok", user: { name: certificate.commonName, groups: [...certificate.organizations] } };
    },
  };
}
