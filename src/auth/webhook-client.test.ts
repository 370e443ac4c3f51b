import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { stringify } from "yaml";
import { loadWebhookConfig, WebhookConfigError } from "./webhook-client.js";

describe("loadWebhookConfig()", () => {
  it("takes the current context's cluster and user, data inline or from files beside the config", () => {
    const dir = mkdtempSync(join(tmpdir(), "webhook-config-"));
    try {
      writeFileSync(join(dir, "ca.crt"), "CA PEM");
      writeFileSync(join(dir, "token"), "secret-token\n");
      const path = join(dir, "config");
      writeFileSync(
        path,
        stringify({
          clusters: [
            { name: "other", cluster: { server: "https://other.example" } },
            { name: "hook", cluster: { server: "https://hook.example:8443/authn", "certificate-authority": "ca.crt" } },
          ],
          users: [
            {
              name: "apiserver",
              user: {
                "client-certificate-data": Buffer.from("CERT").toString("base64"),
                "client-key-data": Buffer.from("KEY").toString("base64"),
                tokenFile: "token",
              },
            },
          ],
          contexts: [{ name: "ctx", context: { cluster: "hook", user: "apiserver" } }],
          "current-context": "ctx",
        }),
      );
      const config = loadWebhookConfig(path);
      assert.equal(config.url.href, "https://hook.example:8443/authn");
      assert.deepEqual([config.ca, config.cert, config.key, config.token, config.insecureSkipTlsVerify], ["CA PEM", "CERT", "KEY", "secret-token", false]);
      writeFileSync(path, stringify({ clusters: [{ name: "c", cluster: {} }], users: [] }));
      assert.throws(() => loadWebhookConfig(path), /has no server/);
      writeFileSync(path, stringify({ clusters: [{ name: "c", cluster: { server: "ftp://x" } }], "current-context": "missing", contexts: [] }));
      assert.throws(() => loadWebhookConfig(path), /current-context "missing" not found/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reports every unreadable file of kubernetes.io's webhook kubeconfig as kube's kubeconfig validation does", () => {
    const path = join(import.meta.dirname, "../../../test/fixtures/real-config/authn-webhook-kubernetes-io.kubeconfig");
    assert.throws(
      () => loadWebhookConfig(path),
      (error: unknown) => {
        assert.ok(error instanceof WebhookConfigError);
        assert.equal(
          error.message,
          `webhook config ${path}: invalid configuration: [` +
            "unable to read client-cert /path/to/cert.pem for name-of-api-server due to open /path/to/cert.pem: no such file or directory, " +
            "unable to read client-key /path/to/key.pem for name-of-api-server due to open /path/to/key.pem: no such file or directory, " +
            "unable to read certificate-authority /path/to/ca.pem for name-of-remote-authn-service due to open /path/to/ca.pem: no such file or directory]",
        );
        return true;
      },
    );
  });

  it("reads Falco's audit webhook kubeconfig: plain http, an empty user, no users", () => {
    const dir = mkdtempSync(join(tmpdir(), "webhook-config-"));
    try {
      const source = join(import.meta.dirname, "../../../test/fixtures/real-config/audit-webhook-falco.kubeconfig");
      const path = join(dir, "falco.kubeconfig");
      writeFileSync(path, readFileSync(source, "utf8").replace("$FALCO_SERVICE_CLUSTERIP:32765", "10.0.0.7:32765"));
      const config = loadWebhookConfig(path);
      assert.equal(config.url.href, "http://10.0.0.7:32765/k8s-audit");
      assert.equal(config.token, undefined);
      assert.equal(config.cert, undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
