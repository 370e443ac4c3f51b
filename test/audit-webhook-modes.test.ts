// kube's `--audit-webhook-mode blocking` and `blocking-strict` end to end: a server started from the
// flags, an HTTPS audit webhook on loopback (a throw-away CA), kubectl 1.27 and 1.33. Blocking: the
// webhook has a request's events before kubectl has its answer. Blocking-strict: a request whose
// RequestReceived event the webhook refuses is not served (500), as kube answers.
import assert from "node:assert/strict";
import { once } from "node:events";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { writeFileSync } from "node:fs";
import { parseArgs } from "../src/cli/flags.js";
import { generateCa, issueServing } from "../src/cli/pki-generate.js";
import { startServer } from "../src/index.js";
import { writeWebhookConfig } from "./helpers/auth-fixtures.js";
import { kubectlFor, ok } from "./helpers/kubectl.js";
import { makeTempDir, removeDir } from "./helpers/server.js";

const POLICY =
  "apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n    resources: [{group: '', resources: [configmaps]}]\n  - level: None\n";

interface Hook {
  /** Every event received, in order, with the stage and the request's URI. */
  readonly events: { stage: string; requestURI: string; auditID: string }[];
  /** Whether the webhook refuses (500) the batches it gets. */
  refusing: boolean;
  readonly url: string;
  readonly ca: string;
  close(): Promise<void>;
}

async function auditHook(): Promise<Hook> {
  const ca = await generateCa();
  const serving = await issueServing(ca, []);
  const events: Hook["events"] = [];
  const hook = {
    events,
    refusing: false,
    url: "",
    ca: ca.certificate,
    close: async () => {},
  };
  const server = https.createServer({ cert: serving.certificate, key: serving.key }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (hook.refusing) {
        response.writeHead(500).end();
        return;
      }
      const list = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { items: Hook["events"] };
      events.push(...list.items.map((item) => ({ stage: item.stage, requestURI: item.requestURI, auditID: item.auditID })));
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  hook.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/audit`;
  hook.close = async () => {
    server.closeAllConnections();
    server.close();
    await once(server, "close");
  };
  return hook;
}

function useServer(prefix: string, mode: string): { dir: string; hook: () => Hook; kubeconfig: () => string } {
  const dir = makeTempDir(prefix);
  let hook: Hook | undefined;
  let stop: (() => Promise<void>) | undefined;
  let kubeconfig = "";
  before(async () => {
    hook = await auditHook();
    writeFileSync(join(dir, "policy.yaml"), POLICY);
    writeWebhookConfig(join(dir, "audit-webhook.kubeconfig"), hook.url, hook.ca);
    const parsed = parseArgs([
      `--audit-policy-file=${join(dir, "policy.yaml")}`,
      `--audit-webhook-config-file=${join(dir, "audit-webhook.kubeconfig")}`,
      `--audit-webhook-mode=${mode}`,
      "--audit-webhook-initial-backoff=10ms",
    ]);
    if (parsed.kind !== "config") throw new Error("no config");
    const server = await startServer({ ...parsed.config, storageBackend: "memory", dataDir: join(dir, "data"), securePort: 0 });
    stop = () => server.stop();
    kubeconfig = server.kubeconfigPath;
  });
  after(async () => {
    await stop?.();
    await hook?.close();
    removeDir(dir);
  });
  return {
    dir,
    hook: () => {
      if (hook === undefined) throw new Error("no hook");
      return hook;
    },
    kubeconfig: () => kubeconfig,
  };
}

describe("--audit-webhook-mode=blocking from the command line", () => {
  const { dir, hook, kubeconfig } = useServer("orch-audit-blocking-", "blocking");
  for (const version of ["1.27", "1.33"] as const) {
    it(`kubectl ${version}: the webhook has both events of a request when kubectl has the answer; a refusing webhook holds nothing back`, async () => {
      const kubectl = kubectlFor(kubeconfig(), join(dir, `kubectl-${version}`), version);
      const name = `blocking-${version.replace(".", "")}`;
      ok(await kubectl(["create", "configmap", name, "--from-literal=a=b"]));
      // No waiting: blocking mode delivered the events before the answer went out.
      const create = hook().events.filter((event) => event.requestURI.startsWith("/api/v1/namespaces/default/configmaps") && !event.requestURI.includes(name));
      const stages = create.map((event) => event.stage);
      assert.deepEqual(stages.slice(-2), ["RequestReceived", "ResponseComplete"], JSON.stringify(hook().events));
      assert.equal(create.at(-1)?.auditID, create.at(-2)?.auditID);
      hook().refusing = true;
      try {
        ok(await kubectl(["get", "configmap", name]));
      } finally {
        hook().refusing = false;
      }
    });
  }
});

describe("--audit-webhook-mode=blocking-strict from the command line", () => {
  const { dir, hook, kubeconfig } = useServer("orch-audit-strict-", "blocking-strict");
  for (const version of ["1.27", "1.33"] as const) {
    it(`kubectl ${version}: served while the webhook takes the events, refused with kube's 500 when it does not`, async () => {
      const kubectl = kubectlFor(kubeconfig(), join(dir, `kubectl-${version}`), version);
      const name = `strict-${version.replace(".", "")}`;
      ok(await kubectl(["create", "configmap", name, "--from-literal=a=b"]));
      assert.ok(hook().events.some((event) => event.stage === "ResponseComplete" && event.requestURI.startsWith("/api/v1/namespaces/default/configmaps")));
      hook().refusing = true;
      try {
        const refused = await kubectl(["get", "configmap", name]);
        assert.notEqual(refused.code, 0);
        assert.match(refused.stderr, /failed to store audit event/);
        // Requests the policy does not audit (level None) never wait on the webhook.
        ok(await kubectl(["get", "namespaces", "default"]));
      } finally {
        hook().refusing = false;
      }
      ok(await kubectl(["get", "configmap", name]));
    });
  }
});
