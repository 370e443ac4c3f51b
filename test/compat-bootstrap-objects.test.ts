// What kube-apiserver creates in kube-system and kube-public besides namespaces, seen through a
// `--compat kubernetes` server with an authenticating proxy configured: the
// extension-apiserver-authentication ConfigMap (extension API servers read it to trust this
// server's clients) and the namespaced default Roles and RoleBindings of kube's bootstrap policy.
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../src/api/profile.js";
import { generateCa } from "../src/cli/pki-generate.js";
import { json, request } from "./helpers/http.js";
import { makeTempDir, useTestServer } from "./helpers/server.js";

type Json = Record<string, unknown>;

const proxyCaDir = makeTempDir("orch-proxy-ca-");
const proxyCaFile = join(proxyCaDir, "proxy-ca.crt");
const proxyCa = await generateCa();
writeFileSync(proxyCaFile, proxyCa.certificate);

describe("kube-system and kube-public bootstrap objects (--compat kubernetes)", () => {
  const server = useTestServer({
    storageBackend: "memory",
    profile: KUBERNETES_PROFILE,
    requestHeaderClientCaFile: proxyCaFile,
    requestHeaderUsernameHeaders: ["X-Remote-User"],
    requestHeaderGroupHeaders: ["X-Remote-Group"],
    requestHeaderExtraHeadersPrefix: ["X-Remote-Extra-"],
  });
  after(() => rmSync(proxyCaDir, { recursive: true, force: true }));

  it("publishes extension-apiserver-authentication in kube-system: the client CA, the proxy's CA and headers as JSON lists", async () => {
    const response = await request(server().admin, "GET", "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication");
    assert.equal(response.status, 200, response.body);
    const data = json(response)["data"] as Record<string, string>;
    assert.deepEqual(Object.keys(data).sort(), [
      "client-ca-file",
      "requestheader-allowed-names",
      "requestheader-client-ca-file",
      "requestheader-extra-headers-prefix",
      "requestheader-group-headers",
      "requestheader-username-headers",
    ]);
    assert.equal(data["client-ca-file"]?.trim(), server().server.caCertificate.trim());
    assert.equal(data["requestheader-client-ca-file"]?.trim(), proxyCa.certificate.trim());
    assert.equal(data["requestheader-username-headers"], '["X-Remote-User"]');
    assert.equal(data["requestheader-group-headers"], '["X-Remote-Group"]');
    assert.equal(data["requestheader-extra-headers-prefix"], '["X-Remote-Extra-"]');
    // Not given: Go's encoder writes the unset list as null.
    assert.equal(data["requestheader-allowed-names"], "null");
  });

  it("creates kube's namespaced default Roles and RoleBindings, labelled and annotated as the cluster-wide ones", async () => {
    const admin = server().admin;
    const names = async (path: string): Promise<string[]> =>
      ((json(await request(admin, "GET", path))["items"] as Json[]).map((item) => (item["metadata"] as Json)["name"]) as string[]).sort();
    assert.deepEqual(await names("/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles"), [
      "extension-apiserver-authentication-reader",
      "system::leader-locking-kube-controller-manager",
      "system::leader-locking-kube-scheduler",
      "system:controller:bootstrap-signer",
      "system:controller:cloud-provider",
      "system:controller:token-cleaner",
    ]);
    assert.deepEqual(await names("/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings"), [
      "system::extension-apiserver-authentication-reader",
      "system::leader-locking-kube-controller-manager",
      "system::leader-locking-kube-scheduler",
      "system:controller:bootstrap-signer",
      "system:controller:cloud-provider",
      "system:controller:token-cleaner",
    ]);
    assert.deepEqual(await names("/apis/rbac.authorization.k8s.io/v1/namespaces/kube-public/roles"), ["system:controller:bootstrap-signer"]);
    assert.deepEqual(await names("/apis/rbac.authorization.k8s.io/v1/namespaces/kube-public/rolebindings"), ["system:controller:bootstrap-signer"]);
    const reader = json(
      await request(admin, "GET", "/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles/extension-apiserver-authentication-reader"),
    );
    const metadata = reader["metadata"] as Json;
    assert.deepEqual(metadata["labels"], { "kubernetes.io/bootstrapping": "rbac-defaults" });
    assert.deepEqual(metadata["annotations"], { "rbac.authorization.kubernetes.io/autoupdate": "true" });
    assert.deepEqual(reader["rules"], [
      { verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["extension-apiserver-authentication"] },
    ]);
  });

  it("creates kube's default ClusterRoles for other components, bound where kube binds them", async () => {
    const admin = server().admin;
    const rbac = "/apis/rbac.authorization.k8s.io/v1";
    for (const name of [
      "system:heapster",
      "system:kube-aggregator",
      "system:kube-dns",
      "system:kubelet-api-admin",
      "system:node-problem-detector",
      "system:node-proxier",
      "system:persistent-volume-provisioner",
      "system:volume-scheduler",
    ])
      assert.equal((await request(admin, "GET", `${rbac}/clusterroles/${name}`)).status, 200, name);
    const proxier = json(await request(admin, "GET", `${rbac}/clusterroles/system:node-proxier`));
    assert.deepEqual(proxier["rules"], [
      { verbs: ["list", "watch"], apiGroups: [""], resources: ["endpoints", "services"] },
      { verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["nodes"] },
      { verbs: ["create", "patch", "update"], apiGroups: ["", "events.k8s.io"], resources: ["events"] },
      { verbs: ["list", "watch"], apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"] },
    ]);
    const subjects = async (name: string): Promise<unknown> => json(await request(admin, "GET", `${rbac}/clusterrolebindings/${name}`))["subjects"];
    assert.deepEqual(await subjects("system:node-proxier"), [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "system:kube-proxy" }]);
    assert.deepEqual(await subjects("system:volume-scheduler"), [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "system:kube-scheduler" }]);
    assert.deepEqual(await subjects("system:kube-dns"), [{ kind: "ServiceAccount", name: "kube-dns", namespace: "kube-system" }]);
  });

  it("lets system:kube-scheduler read extension-apiserver-authentication through the reader binding, and nothing else there", async () => {
    const admin = server().admin;
    const review = async (name: string): Promise<boolean> => {
      const response = await request(admin, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
        body: {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SubjectAccessReview",
          spec: { user: "system:kube-scheduler", resourceAttributes: { namespace: "kube-system", verb: "get", resource: "configmaps", name } },
        },
      });
      return (json(response)["status"] as Json)["allowed"] === true;
    };
    assert.equal(await review("extension-apiserver-authentication"), true);
    assert.equal(await review("other"), false);
  });
});
