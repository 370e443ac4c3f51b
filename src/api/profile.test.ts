import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { apiGroup, foreignConfigHint, KUBERNETES_PROFILE, metaGroup, ORCH_PROFILE, profileByName } from "./profile.js";

/** The TypeScript sources, found from the compiled test's location (dist/src/api → src). */
function sourceFiles(): string[] {
  const root = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..", "..", "src");
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".ts") && !name.endsWith(".test.ts")) out.push(path);
    }
  };
  walk(root);
  return out.map((path) => relative(root, path)).sort();
}

describe("product-name profiles", () => {
  it("spell API groups in the k8s.io domain and keys in kubernetes.io for the kubernetes profile", () => {
    assert.equal(metaGroup(KUBERNETES_PROFILE), "meta.k8s.io");
    assert.equal(apiGroup(KUBERNETES_PROFILE, "rbac.authorization"), "rbac.authorization.k8s.io");
    assert.equal(KUBERNETES_PROFILE.namespaceNameLabel, "kubernetes.io/metadata.name");
    assert.equal(KUBERNETES_PROFILE.bootstrapTokenSecretType, "bootstrap.kubernetes.io/token");
    assert.equal(KUBERNETES_PROFILE.serviceAccountTokenSecretType, "kubernetes.io/service-account-token");
    assert.equal(KUBERNETES_PROFILE.systemNamespace, "kube-system");
    assert.equal(KUBERNETES_PROFILE.protobufMediaType, "application/vnd.kubernetes.protobuf");
  });

  it("spell everything with orch for the orch profile", () => {
    assert.equal(metaGroup(ORCH_PROFILE), "meta.orch.io");
    assert.equal(apiGroup(ORCH_PROFILE, "rbac.authorization"), "rbac.authorization.orch.io");
    assert.equal(ORCH_PROFILE.namespaceNameLabel, "orch.io/metadata.name");
    assert.equal(ORCH_PROFILE.systemNamespace, "orch-system");
    assert.equal(ORCH_PROFILE.rootCAConfigMap, "orch-root-ca.crt");
    assert.equal(ORCH_PROFILE.jwsConfigMapKeyPrefix, "jws-orchconfig-");
    assert.equal(ORCH_PROFILE.execInfoEnv, "ORCH_EXEC_INFO");
  });

  it("are found by name", () => {
    assert.equal(profileByName("orch"), ORCH_PROFILE);
    assert.equal(profileByName("kubernetes"), KUBERNETES_PROFILE);
    assert.equal(profileByName("k8s"), undefined);
  });

  it("are the only source that spells a product name", () => {
    const pattern =
      /orch\.io|k8s\.io|kubernetes\.io|x-kubernetes-|x-orch-|kube-(system|public|node-lease)|orch-(system|public|node-lease)|vnd\.(orch|kubernetes)/;
    const offenders = sourceFiles().filter(
      (file) =>
        file !== join("api", "profile.ts") &&
        pattern.test(readFileSync(join(fileURLToPath(new URL(".", import.meta.url)), "..", "..", "..", "src", file), "utf8")),
    );
    assert.deepEqual(offenders, []);
  });
});

describe("foreignConfigHint()", () => {
  it("names the profile flag for a configuration file spelled the other profile's way, and nothing else", () => {
    assert.equal(
      foreignConfigHint("pod-security.admission.config.orch.io", "pod-security.admission.config.k8s.io/v1"),
      "; this server runs --compat orch, which spells pod-security.admission.config.k8s.io as pod-security.admission.config.orch.io: change the apiVersion, or start the server with --compat kubernetes to use a stock Kubernetes file as it is",
    );
    assert.match(
      foreignConfigHint("audit.k8s.io", "audit.orch.io/v1"),
      /runs --compat kubernetes, .* start the server with --compat orch to use a file written for --compat orch as it is$/,
    );
    assert.equal(foreignConfigHint("audit.orch.io", "audit.orch.io/v1"), "");
    assert.equal(foreignConfigHint("audit.orch.io", "apiserver.config.k8s.io/v1"), "");
    assert.equal(foreignConfigHint("audit.orch.io", "audit.k8s.io"), "");
    assert.equal(foreignConfigHint("audit.orch.io", undefined), "");
  });
});
