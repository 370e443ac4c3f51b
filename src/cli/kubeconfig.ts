import { stringify } from "yaml";

export interface KubeconfigInput {
  readonly server: string;
  readonly caPem: string;
  readonly clientCertificatePem: string;
  readonly clientKeyPem: string;
  readonly clusterName: string;
  readonly userName: string;
}

/** An admin kubeconfig with the CA and client credentials embedded (base64), as kubeadm writes. */
export function renderKubeconfig(input: KubeconfigInput): string {
  const b64 = (text: string): string => Buffer.from(text, "utf8").toString("base64");
  const context = `${input.userName}@${input.clusterName}`;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: input.clusterName, cluster: { server: input.server, "certificate-authority-data": b64(input.caPem) } }],
    users: [{ name: input.userName, user: { "client-certificate-data": b64(input.clientCertificatePem), "client-key-data": b64(input.clientKeyPem) } }],
    contexts: [{ name: context, context: { cluster: input.clusterName, user: input.userName } }],
    "current-context": context,
    preferences: {},
  });
}
