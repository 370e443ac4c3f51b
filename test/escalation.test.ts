// The red-team suite: a user with edit rights in one namespace (plus rights to manage RBAC objects
// there, so escalation prevention, not a missing verb, is what stops her), a node, a
// service-account token and a bootstrap token each try to get more than they were given. Every
// attempt must be denied (401/403/400, or 404/422 where kube answers so) and change nothing.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type Credentials, type HttpResult, json, request } from "./helpers/http.js";
import { makeTempDir, removeDir, startTestServer, type TestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

const RBAC = "/apis/rbac.authorization.orch.io/v1";
const SECRET_DATA = Buffer.from("tenant-b-password").toString("base64");
const refused: string[] = [];

/** `kind namespace/name@resourceVersion` of everything an attack could touch. */
async function stateOf(admin: Credentials): Promise<string[]> {
  const paths = [
    "/api/v1/secrets",
    "/api/v1/pods",
    "/api/v1/configmaps",
    "/api/v1/nodes",
    "/api/v1/serviceaccounts",
    `${RBAC}/roles`,
    `${RBAC}/rolebindings`,
    `${RBAC}/clusterroles`,
    `${RBAC}/clusterrolebindings`,
  ];
  const state: string[] = [];
  for (const path of paths) {
    const result = await request(admin, "GET", path);
    assert.equal(result.status, 200, result.body);
    const items = (json(result).items ?? []) as { metadata: { namespace?: string; name: string; resourceVersion: string } }[];
    for (const item of items) state.push(`${path} ${item.metadata.namespace ?? ""}/${item.metadata.name}@${item.metadata.resourceVersion}`);
  }
  return state.sort();
}

/** A request on the raw path (no URL normalisation: `..` and `%2F` reach the server as sent). */
function rawRequest(credentials: Credentials, method: string, path: string): Promise<HttpResult> {
  const url = new URL(credentials.url);
  return new Promise((resolve, reject) => {
    const call = httpsRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        ca: credentials.ca,
        headers: credentials.token === undefined ? {} : { authorization: `Bearer ${credentials.token}` },
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body, httpVersion: response.httpVersion }));
      },
    );
    call.on("error", reject);
    call.end();
  });
}

describe("escalation red team", { timeout: 120_000 }, () => {
  let root: string;
  let server: TestServer;
  let mallory: Credentials;
  let node1: Credentials;
  let anonymous: Credentials;

  /** Runs an attack, expects one of the codes, and checks nothing changed. */
  async function denied(what: string, codes: readonly number[], attack: () => Promise<HttpResult>): Promise<HttpResult> {
    const before = await stateOf(server.admin);
    const result = await attack();
    assert.ok(codes.includes(result.status), `${what}: expected ${codes.join("/")}, got ${result.status}: ${result.body.slice(0, 300)}`);
    assert.ok(!result.body.includes(SECRET_DATA), `${what}: the response leaks tenant-b's secret`);
    assert.deepEqual(await stateOf(server.admin), before, `${what}: the attack changed stored state`);
    refused.push(what);
    return result;
  }

  before(async () => {
    root = makeTempDir("orch-redteam-");
    writeFileSync(join(root, "tokens.csv"), 'mallory-token,mallory,u1,"tenants"\nnode1-token,system:node:n1,u2,"system:nodes"\n');
    server = await startTestServer({
      tokenAuthFile: join(root, "tokens.csv"),
      enableBootstrapTokenAuth: true,
      admission: { ...(await defaults()), enable: ["NodeRestriction"] },
    });
    const base = { url: server.server.url, ca: server.server.caCertificate };
    mallory = { ...base, token: "mallory-token" };
    node1 = { ...base, token: "node1-token" };
    anonymous = base;
    const admin = server.admin;
    const create = async (path: string, body: unknown): Promise<void> => {
      const result = await request(admin, "POST", path, { body });
      assert.equal(result.status, 201, `${path}: ${result.body}`);
    };
    for (const name of ["tenant-a", "tenant-b"]) await create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
    await create("/api/v1/namespaces/tenant-b/secrets", {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "db", labels: { app: "db" } },
      data: { password: SECRET_DATA },
    });
    await create(`${RBAC}/namespaces/tenant-a/rolebindings`, {
      kind: "RoleBinding",
      metadata: { name: "mallory-edit" },
      roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "ClusterRole", name: "edit" },
      subjects: [{ kind: "User", name: "mallory", apiGroup: "rbac.authorization.orch.io" }],
    });
    await create(`${RBAC}/namespaces/tenant-a/roles`, {
      kind: "Role",
      metadata: { name: "rbac-manager" },
      rules: [{ apiGroups: ["rbac.authorization.orch.io"], resources: ["roles", "rolebindings"], verbs: ["create", "update", "patch", "get", "list"] }],
    });
    await create(`${RBAC}/namespaces/tenant-a/rolebindings`, {
      kind: "RoleBinding",
      metadata: { name: "mallory-rbac" },
      roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "Role", name: "rbac-manager" },
      subjects: [{ kind: "User", name: "mallory", apiGroup: "rbac.authorization.orch.io" }],
    });
    for (const name of ["n1", "n2"]) await create("/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name } });
    await create("/api/v1/namespaces/tenant-b/pods", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "on-n2" },
      spec: { nodeName: "n2", containers: [{ name: "app", image: "nginx" }] },
    });
    // Mallory's edit rights work (the aggregated edit role may take a moment to fill).
    await waitFor(async () => (await request(mallory, "GET", "/api/v1/namespaces/tenant-a/configmaps")).status === 200, { what: "mallory's edit rights" });
  });

  after(async () => {
    await server?.close();
    removeDir(root);
    process.stdout.write(`# escalations refused: ${refused.length}\n`);
  });

  it("reads no secrets in another namespace, by get, list, watch or selector", async () => {
    await denied("get a secret in tenant-b", [403], () => request(mallory, "GET", "/api/v1/namespaces/tenant-b/secrets/db"));
    await denied("list secrets in tenant-b", [403], () => request(mallory, "GET", "/api/v1/namespaces/tenant-b/secrets?labelSelector=app%3Ddb"));
    await denied("watch secrets in tenant-b", [403], () => request(mallory, "GET", "/api/v1/namespaces/tenant-b/secrets?watch=true&timeoutSeconds=1"));
    await denied("list secrets cluster-wide with a namespace field selector", [403], () =>
      request(mallory, "GET", "/api/v1/secrets?fieldSelector=metadata.namespace%3Dtenant-a"),
    );
    await denied("watch pods cluster-wide with a label selector", [403], () =>
      request(mallory, "GET", "/api/v1/pods?watch=true&labelSelector=app&timeoutSeconds=1"),
    );
  });

  it("cannot bind cluster-admin or grant herself rules she does not hold", async () => {
    const subjects = [{ kind: "User", name: "mallory", apiGroup: "rbac.authorization.orch.io" }];
    await denied("RoleBinding to cluster-admin", [403], () =>
      request(mallory, "POST", `${RBAC}/namespaces/tenant-a/rolebindings`, {
        body: {
          kind: "RoleBinding",
          metadata: { name: "pwn" },
          roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "ClusterRole", name: "cluster-admin" },
          subjects,
        },
      }),
    );
    await denied("ClusterRoleBinding to cluster-admin", [403], () =>
      request(mallory, "POST", `${RBAC}/clusterrolebindings`, {
        body: {
          kind: "ClusterRoleBinding",
          metadata: { name: "pwn" },
          roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "ClusterRole", name: "cluster-admin" },
          subjects,
        },
      }),
    );
    await denied("a Role with *", [403], () =>
      request(mallory, "POST", `${RBAC}/namespaces/tenant-a/roles`, {
        body: { kind: "Role", metadata: { name: "star" }, rules: [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }] },
      }),
    );
    await denied("widening her own Role to *", [403], () =>
      request(mallory, "PATCH", `${RBAC}/namespaces/tenant-a/roles/rbac-manager`, {
        body: [{ op: "add", path: "/rules/-", value: { apiGroups: ["*"], resources: ["*"], verbs: ["*"] } }],
        headers: { "content-type": "application/json-patch+json" },
      }),
    );
  });

  it("cannot impersonate system:masters or another user", async () => {
    await denied("impersonate the group system:masters", [403], () =>
      request(mallory, "GET", "/api/v1/namespaces/tenant-b/secrets", { headers: { "Impersonate-User": "mallory", "Impersonate-Group": "system:masters" } }),
    );
    await denied("impersonate the admin user", [403], () =>
      request(mallory, "DELETE", "/api/v1/namespaces/tenant-b/secrets/db", { headers: { "Impersonate-User": "admin" } }),
    );
  });

  it("a service-account token stops working once its pod is gone", async () => {
    const admin = server.admin;
    assert.equal(
      (await request(admin, "POST", "/api/v1/namespaces/tenant-a/serviceaccounts", { body: { kind: "ServiceAccount", metadata: { name: "runner" } } })).status,
      201,
    );
    const pod = await request(admin, "POST", "/api/v1/namespaces/tenant-a/pods", {
      body: { apiVersion: "v1", kind: "Pod", metadata: { name: "job" }, spec: { serviceAccountName: "runner", containers: [{ name: "app", image: "nginx" }] } },
    });
    assert.equal(pod.status, 201, pod.body);
    const issued = await request(admin, "POST", "/api/v1/namespaces/tenant-a/serviceaccounts/runner/token", {
      body: {
        kind: "TokenRequest",
        spec: { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "job", uid: (json(pod).metadata as { uid: string }).uid } },
      },
    });
    assert.equal(issued.status, 201, issued.body);
    const token = (json(issued).status as { token: string }).token;
    const review = (): Promise<HttpResult> => request({ ...anonymous, token }, "GET", "/api/v1/namespaces/tenant-a/serviceaccounts/runner");
    assert.notEqual((await review()).status, 401, "the token works while the pod exists");
    assert.equal((await request(admin, "DELETE", "/api/v1/namespaces/tenant-a/pods/job")).status, 200);
    await waitFor(async () => (await review()).status === 401, { what: "the pod-bound token to be refused" });
    await denied("use a service-account token after its pod is gone", [401], review);
  });

  it("a node cannot modify another node's pods or the other node", async () => {
    await denied("node n1 deletes a pod bound to n2", [403], () => request(node1, "DELETE", "/api/v1/namespaces/tenant-b/pods/on-n2"));
    await denied("node n1 patches n2's pod status", [403], () =>
      request(node1, "PATCH", "/api/v1/namespaces/tenant-b/pods/on-n2/status", {
        body: { status: { phase: "Failed" } },
        headers: { "content-type": "application/merge-patch+json" },
      }),
    );
    await denied("node n1 labels node n2", [403], () =>
      request(node1, "PATCH", "/api/v1/nodes/n2", {
        body: { metadata: { labels: { pwned: "yes" } } },
        headers: { "content-type": "application/merge-patch+json" },
      }),
    );
    await denied("node n1 reads a secret no pod of its own uses", [403], () => request(node1, "GET", "/api/v1/namespaces/tenant-b/secrets/db"));
  });

  it("a bootstrap token past its expiry is refused", async () => {
    const expired = await request(server.admin, "POST", "/api/v1/namespaces/orch-system/secrets", {
      body: {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "bootstrap-token-oldtok" },
        type: "bootstrap.orch.io/token",
        stringData: {
          "token-id": "oldtok",
          "token-secret": "0123456789abcdef",
          "usage-bootstrap-authentication": "true",
          expiration: new Date(Date.now() - 60_000).toISOString(),
        },
      },
    });
    assert.equal(expired.status, 201, expired.body);
    await denied("use an expired bootstrap token", [401], () =>
      request({ ...anonymous, token: "oldtok.0123456789abcdef" }, "GET", "/api/v1/namespaces/tenant-a/configmaps"),
    );
  });

  it("cannot smuggle a second object, or one for another namespace, into a create", async () => {
    const configMap = (name: string, namespace?: string) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
    });
    await denied("a List of two objects posted as one", [400, 422], () =>
      request(mallory, "POST", "/api/v1/namespaces/tenant-a/configmaps", {
        body: { apiVersion: "v1", kind: "List", items: [configMap("one"), configMap("two", "tenant-b")] },
      }),
    );
    await denied("an object naming tenant-b posted to tenant-a", [400], () =>
      request(mallory, "POST", "/api/v1/namespaces/tenant-a/configmaps", { body: configMap("x", "tenant-b") }),
    );
    await denied("a JSON body with a second metadata after the first", [400, 403], () =>
      request(mallory, "POST", "/api/v1/namespaces/tenant-a/configmaps?fieldValidation=Strict", {
        body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"metadata":{"name":"b","namespace":"tenant-b"}}',
      }),
    );
  });

  it("cannot reach other objects through .. or encoded slashes in names", async () => {
    await denied("`..` segments in the path", [400, 403, 404], () => rawRequest(mallory, "GET", "/api/v1/namespaces/tenant-a/../tenant-b/secrets/db"));
    await denied("encoded slashes in a name", [400, 403, 404], () =>
      rawRequest(mallory, "GET", "/api/v1/namespaces/tenant-a/secrets/..%2F..%2Ftenant-b%2Fsecrets%2Fdb"),
    );
    await denied("an encoded .. as the name", [400, 403, 404], () => rawRequest(mallory, "GET", "/api/v1/namespaces/tenant-a/configmaps/%2E%2E"));
    await denied("creating an object named ../x", [400, 422], () =>
      request(mallory, "POST", "/api/v1/namespaces/tenant-a/configmaps", { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "../x" } } }),
    );
  });
});

async function defaults() {
  const { defaultConfig } = await import("../src/cli/flags.js");
  return defaultConfig().admission;
}
