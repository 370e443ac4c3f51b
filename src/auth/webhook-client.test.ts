import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { stringify } from "yaml";
import { loadWebhookConfig } from "./webhook-client.js";

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
});
