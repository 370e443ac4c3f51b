import { parse, stringify } from "yaml";

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

/** What `readAdminKubeconfig` returns: the first cluster's server and CA, the first user's client certificate. */
export interface KubeconfigCredentials {
  readonly server: string;
  readonly caPem: string;
  readonly clientCertificatePem: string;
  readonly clientKeyPem: string;
}

/** Reads a kubeconfig with embedded data, as `renderKubeconfig` writes (the admin kubeconfig); throws when a field is missing. */
export function readKubeconfigCredentials(text: string): KubeconfigCredentials {
  const document: unknown = parse(text);
  const record = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {});
  const first = (value: unknown): Record<string, unknown> => record(Array.isArray(value) ? value[0] : undefined);
  const cluster = record(first(record(document).clusters).cluster);
  const user = record(first(record(document).users).user);
  const field = (from: Record<string, unknown>, name: string): string => {
    const value = from[name];
    if (typeof value !== "string" || value === "") throw new Error(`the kubeconfig has no ${name}`);
    return value;
  };
  const decode = (from: Record<string, unknown>, name: string): string => Buffer.from(field(from, name), "base64").toString("utf8");
  return {
    server: field(cluster, "server"),
    caPem: decode(cluster, "certificate-authority-data"),
    clientCertificatePem: decode(user, "client-certificate-data"),
    clientKeyPem: decode(user, "client-key-data"),
  };
}
