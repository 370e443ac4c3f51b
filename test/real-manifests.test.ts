// Real-world manifests as widely used projects publish them (test/fixtures/real-manifests/: ingress-nginx,
// cert-manager, metrics-server, kube-prometheus, kube-state-metrics, CoreDNS, the EBS CSI driver,
// external-dns, the Dashboard, Gatekeeper, Argo CD and kubernetes/website's examples; each file names its source)
// posted with the oldest and newest kubectl, in both product-name profiles (the orch profile gets the
// documents that name no k8s.io group and no kube-system). kube-apiserver 1.30 accepts every one of
// them, so a refusal here is a false refusal that would break a user's chart. After `apply`, reading the
// objects back must show every field as written, up to what kube itself rewrites (below).
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { before, describe, it } from "node:test";
import { parse } from "yaml";
import { KUBERNETES_PROFILE, ORCH_PROFILE, type Profile } from "../src/api/profile.js";
import { canonicalQuantity } from "../src/api/quantity.js";
import { request } from "./helpers/http.js";
import { kubectlFor, resolveKubectl } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";

const FIXTURES = fileURLToPath(new URL("../../test/fixtures/real-manifests/", import.meta.url));

interface Document {
  /** The document as published (flow style, comments and quoting kept), for kubectl to parse. */
  readonly text: string;
  readonly object: Record<string, unknown>;
}

/** Each fixture file's documents, split where kubectl splits them (a `---` line). */
function fixtures(): Map<string, Document[]> {
  const files = new Map<string, Document[]>();
  for (const name of readdirSync(FIXTURES)
    .filter((file) => file.endsWith(".yaml"))
    .sort()) {
    const documents: Document[] = [];
    for (const text of readFileSync(join(FIXTURES, name), "utf8").split(/^---[ \t]*$/m)) {
      const object: unknown = parse(text);
      if (typeof object === "object" && object !== null && !Array.isArray(object)) documents.push({ text, object: object as Record<string, unknown> });
    }
    files.set(name, documents);
  }
  return files;
}

const kindOf = (document: Document): string => String(document.object["kind"]);
const metadataOf = (document: Document): Record<string, unknown> => (document.object["metadata"] ?? {}) as Record<string, unknown>;
const isWebhookConfiguration = (document: Document): boolean => /^(Mutating|Validating)WebhookConfiguration$/.test(kindOf(document));

/** The orch profile serves no `*.k8s.io` group and has no kube-system: it gets the rest. */
function servedBy(profile: Profile, document: Document): boolean {
  if (profile === KUBERNETES_PROFILE) return true;
  return !String(document.object["apiVersion"]).includes("k8s.io") && metadataOf(document)["namespace"] !== "kube-system";
}

/** The quantities the fixtures write as numbers sit here (LimitRange ratios, requests, limits, quotas). */
const QUANTITY_PATH = /\.(limits|requests|hard|maxLimitRequestRatio|min|max|default|defaultRequest)\.[^.[]+$|\.averageValue$/;

/**
 * The non-pointer `omitempty` fields of the fixtures written with their Go zero value, which kube's
 * decoding drops (src/api/schema/go-zeros.ts): read back absent.
 */
const GO_ZERO_PATH = /(\.subjects\[\d+\]\.apiGroup|\.minReadySeconds|\.containers\[\d+\]\.env|\.volumeMounts\[\d+\]\.readOnly|\.spec\.host(Network|PID|IPC))$/;

/**
 * Whether `actual` shows the written `expected` value as kube would: the same value, a quantity given
 * as a number now its string (kube never writes a quantity as a number), a quantity string in kube's canonical
 * form, base64 bytes without the line breaks Go's decoding skips, a `null` left out, an empty `clusterIP`
 * allocated, and a Go zero value of a non-pointer `omitempty` field left out.
 */
function shownAsWritten(path: string, expected: unknown, actual: unknown): boolean {
  if (expected === null) return true;
  if (typeof expected === "number" && QUANTITY_PATH.test(path)) return actual === String(expected);
  // kube writes a quantity string back in its canonical form ("1024Mi" → "1Gi").
  if (typeof expected === "string" && QUANTITY_PATH.test(path) && actual === canonicalQuantity(expected)) return true;
  if (typeof expected === "string" && typeof actual === "string" && expected.replace(/[\r\n]/g, "") === actual) return true;
  if (expected === "" && path.endsWith(".clusterIP")) return true;
  if (actual === undefined && GO_ZERO_PATH.test(path) && [JSON.stringify(""), "0", "false", "[]", "{}"].includes(JSON.stringify(expected))) return true;
  return JSON.stringify(expected) === JSON.stringify(actual);
}

/** Every leaf of `written` that `stored` does not show as written, as `path: written → stored`. */
function manglings(written: unknown, stored: unknown, path: string, out: string[]): string[] {
  if (typeof written === "object" && written !== null && Object.keys(written).length > 0) {
    for (const [key, value] of Object.entries(written)) {
      const next = typeof stored === "object" && stored !== null ? (stored as Record<string, unknown>)[key] : undefined;
      manglings(value, next, Array.isArray(written) ? `${path}[${key}]` : `${path}.${key}`, out);
    }
  } else if (!shownAsWritten(path, written, stored)) {
    out.push(`${path}: ${JSON.stringify(written)} → ${JSON.stringify(stored)}`);
  }
  return out;
}

for (const profile of [KUBERNETES_PROFILE, ORCH_PROFILE]) {
  describe(`real-world manifests are accepted and kept (${profile.name} profile)`, () => {
    const server = useTestServer({ profile });
    const dryRunDir = (): string => join(server().dataDir, "dry-run");
    const applyDir = (): string => join(server().dataDir, "apply");
    let documents: Document[] = [];

    before(async () => {
      mkdirSync(dryRunDir());
      mkdirSync(applyDir());
      for (const [name, all] of fixtures()) {
        const served = all.filter((document) => servedBy(profile, document));
        if (served.length === 0) continue;
        documents.push(...served);
        writeFileSync(join(dryRunDir(), name), served.map((document) => document.text).join("\n---\n"));
        // Stored for real, the webhook configurations would send later writes to webhooks that do not run.
        const applied = served.filter((document) => !isWebhookConfiguration(document));
        writeFileSync(join(applyDir(), name), applied.map((document) => document.text).join("\n---\n"));
      }
      // A dry-run Namespace is not stored: the namespaces the documents live in are made first.
      const namespaces = new Set(documents.map((document) => metadataOf(document)["namespace"]).filter((name): name is string => typeof name === "string"));
      for (const name of namespaces) {
        if (name === "default" || name === "kube-system") continue;
        const created = await request(server().admin, "POST", "/api/v1/namespaces", { body: { metadata: { name } } });
        assert.equal(created.status, 201, created.body);
      }
      documents = documents.filter((document) => !(kindOf(document) === "Namespace" && namespaces.has(String(metadataOf(document)["name"]))));
    });

    for (const version of ["oldest", "newest"] as const) {
      it(`kubectl ${resolveKubectl(version).version}: create --dry-run=server accepts every document`, async () => {
        const kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, version);
        const result = await kubectl(["create", "--dry-run=server", "-f", dryRunDir()], { timeoutMs: 60_000 });
        // The only refusals allowed: the Namespace documents, made above already.
        const refusals = result.stderr
          .split("\n")
          .filter((line) => line !== "" && !/^Warning: /.test(line) && !/namespaces "[^"]+" already exists$/.test(line));
        assert.deepEqual(refusals, [], result.stderr);
        const created = result.stdout.split("\n").filter((line) => / created \(server dry run\)$/.test(line));
        assert.equal(created.length, documents.length, result.stdout);
      });
    }

    it("kubectl (newest) applies them, reads back every field as written, and (oldest) applies them again", async () => {
      const newest = kubectlFor(server().server.kubeconfigPath, server().dataDir, "newest");
      const applied = await newest(["apply", "-f", applyDir()], { timeoutMs: 60_000 });
      assert.equal(applied.code, 0, applied.stderr);
      const read = await newest(["get", "-o", "json", "-f", applyDir()], { timeoutMs: 60_000 });
      assert.equal(read.code, 0, read.stderr);
      const items = (JSON.parse(read.stdout) as { items: Record<string, unknown>[] }).items;
      const written = [...readdirSync(applyDir())]
        .sort()
        .flatMap((name) => readFileSync(join(applyDir(), name), "utf8").split(/^---[ \t]*$/m))
        .map((text): unknown => parse(text))
        .filter((object) => typeof object === "object" && object !== null);
      assert.equal(items.length, written.length);
      const changed = written.flatMap((object, index) => {
        const metadata = (object as { metadata: { name: string } }).metadata;
        return manglings(object, items[index], `${(object as { kind: string }).kind}/${metadata.name}`, []);
      });
      assert.deepEqual(changed, []);
      const again = await kubectlFor(server().server.kubeconfigPath, server().dataDir, "oldest")(["apply", "-f", applyDir()], { timeoutMs: 60_000 });
      assert.equal(again.code, 0, again.stderr);
    });

    it("takes the deprecated serviceAccount alias, as Helm 2's widely copied `kubectl patch … serviceAccount: tiller` step sets it", async () => {
      // The step patches only the alias; on kube, `get -o yaml` then shows both fields naming the account.
      const kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, "newest");
      const patched = await kubectl(["patch", "statefulset", "web", "-n", "default", "-p", '{"spec":{"template":{"spec":{"serviceAccount":"tiller"}}}}']);
      assert.equal(patched.code, 0, patched.stderr);
      const shown = await kubectl([
        "get",
        "statefulset",
        "web",
        "-n",
        "default",
        "-o",
        "jsonpath={.spec.template.spec.serviceAccount} {.spec.template.spec.serviceAccountName}",
      ]);
      assert.equal(shown.stdout, "tiller tiller", shown.stderr);
    });
  });
}
