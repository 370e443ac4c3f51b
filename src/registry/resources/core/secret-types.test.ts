import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../../../api/profile.js";
import { inProcessServer } from "../../../testing/in-process.js";

const SECRETS = "/api/v1/namespaces/default/secrets";
const b64 = (text: string): string => Buffer.from(text, "utf8").toString("base64");

function secret(name: string, type: string, data: Record<string, string>, annotations?: Record<string, string>): Record<string, unknown> {
  return { apiVersion: "v1", kind: "Secret", metadata: { name, ...(annotations === undefined ? {} : { annotations }) }, type, data };
}

describe("typed Secrets, as kube's ValidateSecret", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  it("refuses a typed Secret without the keys its type needs", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [secret("t", "kubernetes.io/tls", { a: b64("x") }), 'Secret "t" is invalid: [data[tls.crt]: Required value, data[tls.key]: Required value]'],
      [secret("t2", "kubernetes.io/tls", { "tls.crt": b64("c") }), 'Secret "t2" is invalid: data[tls.key]: Required value'],
      [secret("d", "kubernetes.io/dockerconfigjson", { a: b64("x") }), 'Secret "d" is invalid: data[.dockerconfigjson]: Required value'],
      [
        secret("d2", "kubernetes.io/dockerconfigjson", { ".dockerconfigjson": b64("notjson") }),
        `Secret "d2" is invalid: data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character 'o' in literal null (expecting 'u')`,
      ],
      [
        secret("d3", "kubernetes.io/dockercfg", { ".dockercfg": b64("[1]") }),
        'Secret "d3" is invalid: data[.dockercfg]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}',
      ],
      [secret("b", "kubernetes.io/basic-auth", { a: b64("x") }), 'Secret "b" is invalid: [data[username]: Required value, data[password]: Required value]'],
      [secret("s", "kubernetes.io/ssh-auth", { "ssh-privatekey": "" }), 'Secret "s" is invalid: data[ssh-privatekey]: Required value'],
      [
        secret("sa", "kubernetes.io/service-account-token", {}),
        'Secret "sa" is invalid: metadata.annotations[kubernetes.io/service-account.name]: Required value',
      ],
    ];
    for (const [body, message] of cases) {
      const response = await server.call("POST", SECRETS, { body });
      assert.equal(response.status, 422, response.text);
      assert.equal(response.json["message"], message);
    }
  });

  it("accepts typed Secrets that carry their keys, and keeps judging them on update", async () => {
    for (const body of [
      secret("tls-ok", "kubernetes.io/tls", { "tls.crt": b64("c"), "tls.key": b64("k") }),
      secret("dcj-ok", "kubernetes.io/dockerconfigjson", { ".dockerconfigjson": b64('{"auths":{}}') }),
      secret("ba-ok", "kubernetes.io/basic-auth", { password: "" }),
      secret("ssh-ok", "kubernetes.io/ssh-auth", { "ssh-privatekey": b64("k") }),
      secret("custom", "example.com/thing", {}),
    ]) {
      const response = await server.call("POST", SECRETS, { body });
      assert.equal(response.status, 201, response.text);
    }
    const patched = await server.call("PATCH", `${SECRETS}/tls-ok`, {
      body: { data: { "tls.key": null } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(patched.status, 422, patched.text);
    assert.equal(patched.json["message"], 'Secret "tls-ok" is invalid: data[tls.key]: Required value');
  });
});

describe("base64 bytes with line breaks, as Go's decoding reads them", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  it("accepts Secret data, ConfigMap binaryData and a webhook caBundle written as YAML blocks or wrapped, and stores them without the breaks", async () => {
    // kubernetes.io's Secret page (examples/secret/dockercfg-secret.yaml) writes `.dockercfg: |`, whose value ends in a newline.
    const dockercfg = "eyJhdXRocyI6eyJodHRwczovL2V4YW1wbGUvdjEvIjp7ImF1dGgiOiJvcGVuc2VzYW1lIn19fQo=";
    const wrapped = b64("x".repeat(80));
    const created = await server.call("POST", SECRETS, {
      body: secret("blocks", "kubernetes.io/dockercfg", { ".dockercfg": `${dockercfg}\n`, wrapped: `${wrapped.slice(0, 76)}\r\n${wrapped.slice(76)}\n` }),
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json["data"], { ".dockercfg": dockercfg, wrapped });
    const map = await server.call("POST", "/api/v1/namespaces/default/configmaps", {
      body: { metadata: { name: "blocks" }, binaryData: { blob: "AAECAw==\n" } },
    });
    assert.equal(map.status, 201, map.text);
    assert.deepEqual(map.json["binaryData"], { blob: "AAECAw==" });
    const hook = await server.call("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", {
      body: {
        metadata: { name: "blocks" },
        webhooks: [
          {
            name: "blocks.example.com",
            clientConfig: { url: "https://hooks.example.com/validate", caBundle: `${b64("-----BEGIN CERTIFICATE-----")}\n` },
            rules: [{ apiGroups: ["example.com"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["widgets"] }],
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
          },
        ],
      },
    });
    assert.equal(hook.status, 201, hook.text);
    const stored = (hook.json["webhooks"] as Record<string, Record<string, unknown>>[])[0]?.["clientConfig"];
    assert.equal(stored?.["caBundle"], b64("-----BEGIN CERTIFICATE-----"));
    const spaced = await server.call("POST", SECRETS, { body: secret("spaced", "Opaque", { a: `${dockercfg} ` }) });
    assert.equal(spaced.status, 422, "a space is not a line break: Go refuses it");
  });
});

describe("typed Secrets under the orch profile", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: ORCH_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  it("asks a token Secret for the profile's account annotation", async () => {
    const refused = await server.call("POST", SECRETS, { body: secret("sa", "orch.io/service-account-token", {}) });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.json["message"], 'Secret "sa" is invalid: metadata.annotations[orch.io/service-account.name]: Required value');
  });
});
