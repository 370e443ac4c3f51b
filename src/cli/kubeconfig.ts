import { yaml } from "../util/yaml.js";

export interface KubeconfigInput {
  readonly server: string;
  readonly caPem: string;
  readonly clientCertificatePem: string;
  readonly clientKeyPem: string;
  readonly clusterName: string;
  readonly userName: string;
}

/**
 * An admin kubeconfig with the CA and client credentials embedded (base64), as kubeadm writes.
 * Written from a fixed template, each value a double-quoted YAML scalar (JSON string syntax), so
 * start-up does not load the YAML library for it.
 */
export function renderKubeconfig(input: KubeconfigInput): string {
  const b64 = (text: string): string => Buffer.from(text, "utf8").toString("base64");
  const q = (text: string): string => JSON.stringify(text);
  const context = `${input.userName}@${input.clusterName}`;
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `  - name: ${q(input.clusterName)}`,
    "    cluster:",
    `      server: ${q(input.server)}`,
    `      certificate-authority-data: ${q(b64(input.caPem))}`,
    "users:",
    `  - name: ${q(input.userName)}`,
    "    user:",
    `      client-certificate-data: ${q(b64(input.clientCertificatePem))}`,
    `      client-key-data: ${q(b64(input.clientKeyPem))}`,
    "contexts:",
    `  - name: ${q(context)}`,
    "    context:",
    `      cluster: ${q(input.clusterName)}`,
    `      user: ${q(input.userName)}`,
    `current-context: ${q(context)}`,
    "preferences: {}",
    "",
  ].join("\n");
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
  const document: unknown = yaml().parse(text);
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
