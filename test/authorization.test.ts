// Authorization end to end: RBAC with kubectl acting as plain users, escalation prevention,
// aggregation, the access-review APIs and `kubectl auth can-i`, the Node authorizer, ABAC and a
// loopback authorization webhook.
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdirSync, writeFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse, stringify } from "yaml";
import { KUBERNETES_PROFILE } from "../src/api/profile.js";
import { generateCa, issueServing } from "../src/cli/pki-generate.js";
import { writeWebhookConfig } from "./helpers/auth-fixtures.js";
import { runCli } from "./helpers/cli.js";
import { json, request, type Credentials } from "./helpers/http.js";
import { kubectlFor, parseTable, resolveKubectl, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";
import { makeTempDir, removeDir, startTestServer, type TestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

type Json = Record<string, unknown>;

const TOKENS = [
  'alice-token,alice,1001,"developers"',
  "bob-token,bob,1002,",
  'node1-token,system:node:n1,1003,"system:nodes"',
  'allowed-token,hooked-allowed,1004,"hooked"',
  'denied-token,hooked-denied,1005,"hooked"',
  "plain-token,hooked-plain,1006,",
].join("\n");

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

function refused(result: KubectlResult, pattern: RegExp): void {
  assert.notEqual(result.code, 0, `kubectl should have failed: ${result.stdout}`);
  assert.match(result.stderr, pattern);
}

/** A kubeconfig for `token`, next to the admin one, and a kubectl bound to it. */
function kubectlWithToken(server: TestServer, token: string): Kubectl {
  const admin = parse(server.server.kubeconfig) as { clusters: Json[]; contexts: { context: Json }[] };
  const directory = join(server.dataDir, `as-${token}`);
  mkdirSync(directory, { recursive: true });
  const path = join(directory, "kubeconfig");
  const cluster = admin.clusters[0] as { name: string };
  writeFileSync(
    path,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: admin.clusters,
      users: [{ name: token, user: { token } }],
      contexts: [{ name: token, context: { cluster: cluster.name, user: token } }],
      "current-context": token,
    }),
  );
  return kubectlFor(path, directory);
}

/** Starts a server with the test tokens; extra start options per describe. */
async function serverWithTokens(options: Parameters<typeof startTestServer>[0] = {}): Promise<{ server: TestServer; tokenDir: string }> {
  const tokenDir = makeTempDir("orch-authz-");
  const tokenAuthFile = join(tokenDir, "tokens.csv");
  writeFileSync(tokenAuthFile, TOKENS);
  return { server: await startTestServer({ tokenAuthFile, ...options }), tokenDir };
}

function as(server: TestServer, token: string): Credentials {
  return { url: server.server.url, ca: server.server.caCertificate, token };
}

function manifestFile(server: TestServer, name: string, value: unknown): string {
  const path = join(server.dataDir, `${name}.json`);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

describe(`RBAC with kubectl ${resolveKubectl("default").version} (--compat kubernetes)`, () => {
  let server: TestServer;
  let tokenDir: string;
  let admin: Kubectl;
  let alice: Kubectl;

  before(async () => {
    ({ server, tokenDir } = await serverWithTokens({ profile: KUBERNETES_PROFILE }));
    admin = kubectlFor(server.server.kubeconfigPath, server.dataDir);
    alice = kubectlWithToken(server, "alice-token");
    ok(await admin(["create", "namespace", "team"]));
  });
  after(async () => {
    await server.close();
    removeDir(tokenDir);
  });

  it("a user with a namespaced Role can do exactly what it grants", async () => {
    ok(await admin(["create", "role", "cm-editor", "--verb=get,list,create", "--resource=configmaps", "-n", "team"]));
    ok(await admin(["create", "rolebinding", "alice-cm", "--role=cm-editor", "--user=alice", "-n", "team"]));
    ok(await alice(["create", "configmap", "c1", "--from-literal=a=b", "-n", "team"]));
    assert.match(ok(await alice(["get", "configmap", "c1", "-n", "team", "-o", "jsonpath={.data.a}"])), /^b$/);
    assert.equal(
      parseTable(ok(await alice(["get", "configmaps", "-n", "team"]))).some((row) => row["NAME"] === "c1"),
      true,
    );
    refused(
      await alice(["delete", "configmap", "c1", "-n", "team"]),
      /User "alice" cannot delete resource "configmaps" in API group "" in the namespace "team"/,
    );
    refused(await alice(["get", "secrets", "-n", "team"]), /cannot list resource "secrets"/);
    refused(await alice(["get", "configmaps", "-n", "default"]), /cannot list resource "configmaps" in API group "" in the namespace "default"/);
    refused(await alice(["get", "configmaps", "-A"]), /at the cluster scope/);
  });

  it("kubectl auth can-i answers for the caller, and --list shows the caller's rules", async () => {
    const yes = await alice(["auth", "can-i", "create", "configmaps", "-n", "team"]);
    assert.equal(yes.code, 0, yes.stderr);
    assert.equal(yes.stdout.trim(), "yes");
    const no = await alice(["auth", "can-i", "delete", "configmaps", "-n", "team"]);
    assert.equal(no.code, 1);
    assert.equal(no.stdout.trim(), "no");
    assert.equal((await alice(["auth", "can-i", "get", "/healthz"])).stdout.trim(), "yes");
    assert.equal((await admin(["auth", "can-i", "*", "*"])).stdout.trim(), "yes");
    const asBob = await admin(["auth", "can-i", "list", "configmaps", "-n", "team", "--as", "bob"]);
    assert.equal(asBob.stdout.trim(), "no", "the admin may impersonate; bob holds nothing");
    const rows = parseTable(ok(await alice(["auth", "can-i", "--list", "-n", "team"])));
    const configmaps = rows.find((row) => row["Resources"] === "configmaps");
    assert.equal(configmaps?.["Verbs"], "[get list create]");
    assert.ok(
      rows.some((row) => row["Resources"] === "selfsubjectaccessreviews.authorization.k8s.io"),
      "system:basic-user",
    );
  });

  it("refuses escalation: a Role or binding granting what the author lacks", async () => {
    ok(await admin(["create", "role", "rbac-writer", "--verb=create,update", "--resource=roles,rolebindings", "-n", "team"]));
    ok(await admin(["create", "rolebinding", "alice-rbac-writer", "--role=rbac-writer", "--user=alice", "-n", "team"]));
    refused(
      await alice(["create", "role", "secret-reader", "--verb=get", "--resource=secrets", "-n", "team"]),
      /is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["get"\]\}/,
    );
    refused(
      await alice(["create", "rolebinding", "bob-admin", "--clusterrole=admin", "--user=bob", "-n", "team"]),
      /attempting to grant RBAC permissions not currently held/,
    );
    ok(await alice(["create", "role", "cm-reader", "--verb=get", "--resource=configmaps", "-n", "team"]));
    ok(await alice(["create", "rolebinding", "bob-cm", "--role=cm-reader", "--user=bob", "-n", "team"]));
  });

  it("honours escalate on roles and bind on a named ClusterRole", async () => {
    ok(await admin(["create", "role", "escalate-bind", "--verb=escalate", "--resource=roles", "-n", "team"]));
    ok(await admin(["create", "rolebinding", "alice-escalate", "--role=escalate-bind", "--user=alice", "-n", "team"]));
    ok(await alice(["create", "role", "secret-reader", "--verb=get", "--resource=secrets", "-n", "team"]));
    refused(await alice(["create", "rolebinding", "bob-admin", "--clusterrole=admin", "--user=bob", "-n", "team"]), /not currently held/);
    ok(await admin(["create", "role", "bind-admin", "--verb=bind", "--resource=clusterroles", "--resource-name=admin", "-n", "team"]));
    ok(await admin(["create", "rolebinding", "alice-bind-admin", "--role=bind-admin", "--user=alice", "-n", "team"]));
    ok(await alice(["create", "rolebinding", "bob-admin", "--clusterrole=admin", "--user=bob", "-n", "team"]));
    refused(await alice(["create", "rolebinding", "bob-edit", "--clusterrole=edit", "--user=bob", "-n", "team"]), /not currently held/);
  });
});

describe("RBAC, access reviews and the Node authorizer under orch", () => {
  let server: TestServer;
  let tokenDir: string;
  let admin: Kubectl;

  before(async () => {
    ({ server, tokenDir } = await serverWithTokens());
    admin = kubectlFor(server.server.kubeconfigPath, server.dataDir);
  });
  after(async () => {
    await server.close();
    removeDir(tokenDir);
  });

  it("manages RBAC objects with kubectl apply in rbac.authorization.orch.io", async () => {
    const path = join(server.dataDir, "rbac.yaml");
    writeFileSync(
      path,
      [
        {
          apiVersion: "rbac.authorization.orch.io/v1",
          kind: "Role",
          metadata: { name: "pod-reader", namespace: "default" },
          rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] }],
        },
        {
          apiVersion: "rbac.authorization.orch.io/v1",
          kind: "RoleBinding",
          metadata: { name: "alice-pods", namespace: "default" },
          roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "Role", name: "pod-reader" },
          subjects: [{ apiGroup: "rbac.authorization.orch.io", kind: "User", name: "alice" }],
        },
      ]
        .map((document) => stringify(document))
        .join("---\n"),
    );
    ok(await admin(["apply", "-f", path]));
    assert.equal((await request(as(server, "alice-token"), "GET", "/api/v1/namespaces/default/pods")).status, 200);
    assert.equal((await request(as(server, "alice-token"), "GET", "/api/v1/namespaces/default/secrets")).status, 403);
    const names = parseTable(ok(await admin(["get", "clusterroles"]))).map((row) => row["NAME"]);
    for (const name of ["cluster-admin", "admin", "edit", "view", "system:discovery", "system:basic-user", "system:public-info-viewer", "system:node"])
      assert.ok(names.includes(name), name);
  });

  it("answers SelfSubjectAccessReview through the raw API (kubectl create --raw)", async () => {
    const file = manifestFile(server, "ssar", {
      apiVersion: "authorization.orch.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { resourceAttributes: { verb: "list", resource: "pods", namespace: "default" } },
    });
    const alice = kubectlWithToken(server, "alice-token");
    const allowed = JSON.parse(ok(await alice(["create", "--raw", "/apis/authorization.orch.io/v1/selfsubjectaccessreviews", "-f", file]))) as Json;
    assert.equal((allowed["status"] as Json)["allowed"], true);
    const bob = kubectlWithToken(server, "bob-token");
    const refusedReview = JSON.parse(ok(await bob(["create", "--raw", "/apis/authorization.orch.io/v1/selfsubjectaccessreviews", "-f", file]))) as Json;
    assert.equal((refusedReview["status"] as Json)["allowed"], false);
    const sar = await request(server.admin, "POST", "/apis/authorization.orch.io/v1/subjectaccessreviews", {
      body: {
        kind: "SubjectAccessReview",
        apiVersion: "authorization.orch.io/v1",
        spec: { user: "alice", resourceAttributes: { verb: "get", resource: "pods", namespace: "default", name: "p" } },
      },
    });
    assert.equal(sar.status, 201);
    assert.equal((json(sar)["status"] as Json)["allowed"], true);
  });

  it("updates the view role when a ClusterRole labelled aggregate-to-view appears", async () => {
    const file = manifestFile(server, "widgets", {
      apiVersion: "rbac.authorization.orch.io/v1",
      kind: "ClusterRole",
      metadata: { name: "widgets-view", labels: { "rbac.authorization.orch.io/aggregate-to-view": "true" } },
      rules: [{ apiGroups: ["widgets.example"], resources: ["widgets"], verbs: ["get"] }],
    });
    ok(await admin(["apply", "-f", file]));
    await waitFor(
      async () => {
        const view = JSON.parse(ok(await admin(["get", "clusterrole", "view", "-o", "json"]))) as { rules?: Json[] };
        return (view.rules ?? []).some((rule) => (rule["apiGroups"] as string[]).includes("widgets.example"));
      },
      { what: "view to aggregate widgets-view", timeoutMs: 10_000 },
    );
  });

  it("lets a node read what its pods need and write its Node and their status, and nothing else", async () => {
    ok(await admin(["create", "secret", "generic", "used", "--from-literal=a=b"]));
    ok(await admin(["create", "secret", "generic", "unused", "--from-literal=a=b"]));
    ok(await admin(["create", "configmap", "settings", "--from-literal=a=b"]));
    for (const [name, node, volumes] of [
      [
        "runs-here",
        "n1",
        [
          { name: "s", secret: { secretName: "used" } },
          { name: "c", configMap: { name: "settings" } },
        ],
      ],
      ["runs-there", "n2", [{ name: "s", secret: { secretName: "unused" } }]],
    ] as const) {
      const created = await request(server.admin, "POST", "/api/v1/namespaces/default/pods", {
        body: { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { nodeName: node, containers: [{ name: "c", image: "x" }], volumes } },
      });
      assert.equal(created.status, 201, created.body);
    }
    const node = as(server, "node1-token");
    const matrix: readonly [string, string, number, unknown?][] = [
      ["POST", "/api/v1/nodes", 201, { apiVersion: "v1", kind: "Node", metadata: { name: "n1" } }],
      ["GET", "/api/v1/nodes/n1", 200],
      ["GET", "/api/v1/nodes?fieldSelector=metadata.name%3Dn1", 200],
      ["GET", "/api/v1/nodes", 403],
      ["GET", "/api/v1/nodes/n2", 403],
      ["DELETE", "/api/v1/nodes/n1", 403],
      ["GET", "/api/v1/namespaces/default/pods/runs-here", 200],
      ["GET", "/api/v1/namespaces/default/pods/runs-there", 403],
      ["GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dn1", 200],
      ["GET", "/api/v1/pods", 403],
      ["GET", "/api/v1/namespaces/default/secrets/used", 200],
      ["GET", "/api/v1/namespaces/default/secrets/unused", 403],
      ["GET", "/api/v1/namespaces/default/secrets", 403],
      ["GET", "/api/v1/namespaces/default/configmaps/settings", 200],
      ["PUT", "/api/v1/namespaces/default/secrets/used", 403, { apiVersion: "v1", kind: "Secret", metadata: { name: "used" } }],
      ["DELETE", "/api/v1/namespaces/default/pods/runs-here", 403],
      ["GET", "/api/v1/namespaces/default/services", 403],
    ];
    for (const [method, path, status, body] of matrix) {
      const result = await request(node, method, path, body === undefined ? {} : { body });
      assert.equal(result.status, status, `${method} ${path}: ${result.body}`);
    }
    const status = await request(node, "PATCH", "/api/v1/namespaces/default/pods/runs-here/status", {
      body: { status: { phase: "Running" } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(status.status, 200, status.body);
    const nodeStatus = await request(node, "PATCH", "/api/v1/nodes/n1/status", {
      body: { status: { phase: "Running" } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(nodeStatus.status, 200, nodeStatus.body);
  });
});

describe("ABAC policy file", () => {
  let server: TestServer;
  let tokenDir: string;

  before(async () => {
    const directory = makeTempDir("orch-abac-");
    const policyFile = join(directory, "policy.jsonl");
    const policy = (spec: Json): string => JSON.stringify({ apiVersion: "abac.authorization.orch.io/v1beta1", kind: "Policy", spec });
    writeFileSync(
      policyFile,
      [
        policy({ user: "alice", namespace: "default", resource: "configmaps", apiGroup: "", readonly: true }),
        policy({ user: "bob", namespace: "*", resource: "*", apiGroup: "*" }),
        policy({ group: "system:authenticated", nonResourcePath: "*", readonly: true }),
      ].join("\n"),
    );
    ({ server, tokenDir } = await serverWithTokens({
      authorization: { modes: ["ABAC", "RBAC"], policyFile, webhookVersion: "v1beta1", webhookAuthorizedTtlMs: 0, webhookUnauthorizedTtlMs: 0 },
    }));
    removeDir(directory);
  });
  after(async () => {
    await server.close();
    removeDir(tokenDir);
  });

  it("allows what a policy line matches and leaves the rest to RBAC", async () => {
    const alice = as(server, "alice-token");
    const bob = as(server, "bob-token");
    const checks: readonly [Credentials, string, string, number][] = [
      [alice, "GET", "/api/v1/namespaces/default/configmaps", 200],
      [alice, "POST", "/api/v1/namespaces/default/configmaps", 403],
      [alice, "GET", "/api/v1/namespaces/orch-system/configmaps", 403],
      [alice, "GET", "/api/v1/namespaces/default/secrets", 403],
      [alice, "GET", "/apis", 200],
      [bob, "POST", "/api/v1/namespaces/default/configmaps", 201],
      [bob, "GET", "/apis/rbac.authorization.orch.io/v1/clusterroles", 200],
      [{ url: server.server.url, ca: server.server.caCertificate }, "GET", "/api/v1/namespaces/default/configmaps", 403],
    ];
    for (const [who, method, path, status] of checks) {
      const result = await request(
        who,
        method,
        path,
        method === "POST" ? { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "abac-" } } } : {},
      );
      assert.equal(result.status, status, `${who.token ?? "anonymous"} ${method} ${path}: ${result.body}`);
    }
    assert.equal((await request(server.admin, "GET", "/api/v1/namespaces")).status, 200, "RBAC after ABAC still serves the admin");
  });
});

describe("authorization webhook on a loopback TLS server", () => {
  let server: TestServer;
  let tokenDir: string;
  let webhook: https.Server;
  const reviews: Json[] = [];

  before(async () => {
    const ca = await generateCa();
    const serving = await issueServing(ca, []);
    webhook = https.createServer({ cert: serving.certificate, key: serving.key }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Json;
        reviews.push(review);
        const spec = review["spec"] as { user?: string; resourceAttributes?: Json };
        const status =
          spec.user === "hooked-allowed"
            ? { allowed: true, reason: "the hook says yes" }
            : spec.user === "hooked-denied"
              ? { allowed: false, denied: true, reason: "the hook says no" }
              : { allowed: false };
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ apiVersion: review["apiVersion"], kind: "SubjectAccessReview", status }));
      });
    });
    webhook.listen(0, "127.0.0.1");
    await once(webhook, "listening");
    const directory = makeTempDir("orch-authz-webhook-");
    const webhookConfigFile = join(directory, "webhook.kubeconfig");
    writeWebhookConfig(webhookConfigFile, `https://127.0.0.1:${(webhook.address() as AddressInfo).port}/authorize`, ca.certificate);
    ({ server, tokenDir } = await serverWithTokens({
      authorization: {
        modes: ["Webhook", "RBAC"],
        webhookConfigFile,
        webhookVersion: "v1beta1",
        webhookAuthorizedTtlMs: 60_000,
        webhookUnauthorizedTtlMs: 60_000,
      },
    }));
    removeDir(directory);
  });
  after(async () => {
    await server.close();
    removeDir(tokenDir);
    webhook.closeAllConnections();
    await new Promise<void>((resolve) => webhook.close(() => resolve()));
  });

  it("follows the remote's allow, deny and no opinion, in mode order, and caches answers", async () => {
    const allowed = await request(as(server, "allowed-token"), "GET", "/api/v1/namespaces/default/secrets");
    assert.equal(allowed.status, 200, allowed.body);
    const denied = await request(as(server, "denied-token"), "GET", "/api/v1/namespaces/default/secrets");
    assert.equal(denied.status, 403);
    assert.match(String(json(denied)["message"]), /User "hooked-denied" cannot list resource "secrets" .*: the hook says no$/);
    // hooked-plain: no opinion from the hook, so RBAC decides (nothing granted) ...
    assert.equal((await request(as(server, "plain-token"), "GET", "/api/v1/namespaces/default/secrets")).status, 403);
    // ... and an RBAC grant then applies; the webhook's deny would win over it.
    await request(server.admin, "POST", "/apis/rbac.authorization.orch.io/v1/clusterrolebindings", {
      body: {
        apiVersion: "rbac.authorization.orch.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: "hooked" },
        roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "ClusterRole", name: "cluster-admin" },
        subjects: [{ apiGroup: "rbac.authorization.orch.io", kind: "Group", name: "hooked" }],
      },
    });
    assert.equal((await request(as(server, "plain-token"), "GET", "/api/v1/namespaces/default/configmaps")).status, 403, "hooked-plain is not in the group");
    assert.equal((await request(as(server, "denied-token"), "GET", "/api/v1/namespaces/default/configmaps")).status, 403, "the webhook's deny comes first");
    const review = reviews.find((entry) => (entry["spec"] as Json)["user"] === "hooked-allowed");
    assert.equal(review?.["apiVersion"], "authorization.orch.io/v1beta1");
    assert.deepEqual((review?.["spec"] as Json)["resourceAttributes"], {
      namespace: "default",
      verb: "list",
      group: "",
      version: "v1",
      resource: "secrets",
      subresource: "",
      name: "",
    });
    assert.deepEqual((review?.["spec"] as Json)["group"], ["hooked", "system:authenticated"]);
    const before = reviews.length;
    assert.equal((await request(as(server, "allowed-token"), "GET", "/api/v1/namespaces/default/secrets")).status, 200);
    assert.equal(reviews.length, before, "the allow was cached");
  });
});

describe("authorization flags", () => {
  const failures: readonly [readonly string[], RegExp][] = [
    [["--authorization-mode=RBAC,Bogus"], /invalid value "RBAC,Bogus" for flag --authorization-mode: authorization-mode "Bogus" is not a valid mode/],
    [["--authorization-mode=ABAC"], /authorization-mode ABAC's authorization policy file not passed/],
    [["--authorization-policy-file=/tmp/p"], /cannot specify --authorization-policy-file without mode ABAC/],
    [["--authorization-mode=Webhook"], /authorization-mode Webhook's authorization config file not passed/],
    [["--authorization-webhook-version=v2"], /must be v1 or v1beta1/],
  ];
  for (const [args, message] of failures) {
    it(`exits 2 for ${args.join(" ")}`, async () => {
      const result = await runCli(args);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
    });
  }

  it("lists the authorization flags in --help", async () => {
    const help = await runCli(["--help"]);
    for (const flag of [
      "--authorization-mode",
      "--authorization-policy-file",
      "--authorization-webhook-config-file",
      "--authorization-webhook-version",
      "--authorization-webhook-cache-authorized-ttl",
      "--authorization-webhook-cache-unauthorized-ttl",
    ])
      assert.ok(help.stdout.includes(flag), flag);
  });
});
