import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { readKubeconfigCredentials, renderKubeconfig } from "./kubeconfig.js";

const INPUT = {
  server: "https://[::1]:6443",
  caPem: "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n",
  clientCertificatePem: "-----BEGIN CERTIFICATE-----\nADMIN\n-----END CERTIFICATE-----\n",
  clientKeyPem: "-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n",
  // Characters YAML would read otherwise if they were written plain.
  clusterName: 'orch: "#1"',
  userName: "admin-'x'",
};

describe("admin kubeconfig (written from a template, not the YAML library)", () => {
  it("is the kubeconfig kubeadm writes, read back by a YAML parser", () => {
    const b64 = (text: string): string => Buffer.from(text, "utf8").toString("base64");
    const context = `${INPUT.userName}@${INPUT.clusterName}`;
    assert.deepEqual(parse(renderKubeconfig(INPUT)), {
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: INPUT.clusterName, cluster: { server: INPUT.server, "certificate-authority-data": b64(INPUT.caPem) } }],
      users: [{ name: INPUT.userName, user: { "client-certificate-data": b64(INPUT.clientCertificatePem), "client-key-data": b64(INPUT.clientKeyPem) } }],
      contexts: [{ name: context, context: { cluster: INPUT.clusterName, user: INPUT.userName } }],
      "current-context": context,
      preferences: {},
    });
  });

  it("round-trips through readKubeconfigCredentials", () => {
    assert.deepEqual(readKubeconfigCredentials(renderKubeconfig(INPUT)), {
      server: INPUT.server,
      caPem: INPUT.caPem,
      clientCertificatePem: INPUT.clientCertificatePem,
      clientKeyPem: INPUT.clientKeyPem,
    });
  });
});
