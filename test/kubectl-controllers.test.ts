// Real kubectl (oldest and newest releases) against the built-in controllers: cascading deletes
// through the garbage collector, the `default` ServiceAccount and root CA of new namespaces, and
// the ServiceAccount admission plugin that now finds `default`.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { kubectlFor, resolveKubectls, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";
import { request } from "./helpers/http.js";
import { useTestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

describe("kubectl and the built-in controllers", () => {
  const server = useTestServer();

  for (const release of resolveKubectls(["oldest", "newest"])) {
    describe(`kubectl ${release.version}`, () => {
      let kubectl: Kubectl;
      const ns = `ctl-${release.version.replace(/\./g, "-")}`;
      before(async () => {
        kubectl = kubectlFor(server().server.kubeconfigPath, join(server().dataDir, release.version), release);
        ok(await kubectl(["create", "namespace", ns]));
      });

      const exists = async (name: string): Promise<boolean> => (await kubectl(["get", "configmap", name, "-n", ns])).code === 0;

      /** a ← b ← c as configmaps, each owned (blockOwnerDeletion) by the one before. */
      async function chain(prefix: string): Promise<void> {
        let owner: { name: string; uid: string } | undefined;
        for (const level of ["a", "b", "c"]) {
          const name = `${prefix}-${level}`;
          const object = {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: {
              name,
              namespace: ns,
              ...(owner === undefined ? {} : { ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", ...owner, blockOwnerDeletion: true }] }),
            },
          };
          const file = join(server().dataDir, `${release.version}-${name}.json`);
          writeFileSync(file, JSON.stringify(object));
          ok(await kubectl(["create", "-f", file]));
          owner = { name, uid: ok(await kubectl(["get", "configmap", name, "-n", ns, "-o", "jsonpath={.metadata.uid}"])) };
        }
      }

      it("delete --cascade=foreground returns once the whole chain is gone", async () => {
        await chain("fg");
        ok(await kubectl(["delete", "configmap", "fg-a", "-n", ns, "--cascade=foreground"]));
        assert.equal(await exists("fg-a"), false);
        assert.equal(await exists("fg-b"), false);
        assert.equal(await exists("fg-c"), false);
      });

      it("delete --cascade=background removes the owner, then the dependents follow", async () => {
        await chain("bg");
        ok(await kubectl(["delete", "configmap", "bg-a", "-n", ns, "--cascade=background"]));
        await waitFor(async () => !(await exists("bg-b")) && !(await exists("bg-c")), { what: "the dependents collected" });
      });

      it("delete --cascade=orphan leaves the dependents, without the reference", async () => {
        await chain("or");
        ok(await kubectl(["delete", "configmap", "or-a", "-n", ns, "--cascade=orphan"]));
        assert.equal(await exists("or-a"), false);
        assert.equal(ok(await kubectl(["get", "configmap", "or-b", "-n", ns, "-o", "jsonpath={.metadata.ownerReferences}"])), "");
        assert.match(ok(await kubectl(["get", "configmap", "or-c", "-n", ns, "-o", "jsonpath={.metadata.ownerReferences[0].name}"])), /^or-b$/);
      });

      it("a namespace held by an object's finalizer is Terminating with kube's deletion conditions, and goes once it is released", async () => {
        const held = `${ns}-held`;
        ok(await kubectl(["create", "namespace", held]));
        ok(await kubectl(["create", "configmap", "keep", "-n", held]));
        ok(await kubectl(["patch", "configmap", "keep", "-n", held, "-p", '{"metadata":{"finalizers":["example.com/hold"]}}']));
        ok(await kubectl(["delete", "namespace", held, "--wait=false"]));
        type Condition = Record<string, string>;
        const conditions = async (): Promise<Condition[]> => {
          const text = ok(await kubectl(["get", "namespace", held, "-o", "jsonpath={.status.conditions}"]));
          return text === "" ? [] : (JSON.parse(text) as Condition[]);
        };
        await waitFor(async () => (await conditions()).length === 5, { what: "the namespace's deletion conditions" });
        assert.deepEqual(
          (await conditions()).map((c) => [c["type"], c["status"], c["reason"], c["message"]]),
          [
            ["NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered", "All resources successfully discovered"],
            ["NamespaceDeletionGroupVersionParsingFailure", "False", "ParsedGroupVersions", "All legacy kube types successfully parsed"],
            ["NamespaceDeletionContentFailure", "False", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"],
            ["NamespaceContentRemaining", "True", "SomeResourcesRemain", "Some resources are remaining: configmaps. has 1 resource instances"],
            [
              "NamespaceFinalizersRemaining",
              "True",
              "SomeFinalizersRemain",
              "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
            ],
          ],
        );
        const namespace = JSON.parse(ok(await kubectl(["get", "namespace", held, "-o", "json"]))) as {
          metadata: Record<string, unknown>;
          status: Record<string, unknown>;
        };
        assert.equal(namespace.status["phase"], "Terminating");
        assert.equal(typeof namespace.metadata["deletionTimestamp"], "string");
        assert.equal(namespace.metadata["deletionGracePeriodSeconds"], undefined, "kube's namespace storage sets no grace period");
        assert.match(ok(await kubectl(["describe", "namespace", held])), /NamespaceFinalizersRemaining\s+True\s+.*SomeFinalizersRemain/);
        ok(await kubectl(["patch", "configmap", "keep", "-n", held, "--type=json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]']));
        ok(await kubectl(["wait", "--for=delete", `namespace/${held}`, "--timeout=30s"]));
      });

      it("a new namespace has the default ServiceAccount and the root CA, and kubectl create token works", async () => {
        const fresh = `${ns}-fresh`;
        ok(await kubectl(["create", "namespace", fresh]));
        await waitFor(async () => (await kubectl(["get", "serviceaccount", "default", "-n", fresh])).code === 0, { what: "the default ServiceAccount" });
        const ca = await waitFor(
          async () => {
            const result = await kubectl(["get", "configmap", "orch-root-ca.crt", "-n", fresh, "-o", "jsonpath={.data.ca\\.crt}"]);
            return result.code === 0 && result.stdout;
          },
          { what: "the root CA config map" },
        );
        assert.equal(ca.trim(), server().server.caCertificate.trim());
        assert.match(ok(await kubectl(["create", "token", "default", "-n", fresh])), /^ey/);
      });

      it("the root CA config map comes back when deleted and when edited", async () => {
        ok(await kubectl(["delete", "configmap", "orch-root-ca.crt", "-n", ns]));
        await waitFor(async () => exists("orch-root-ca.crt"), { what: "the root CA recreated" });
        ok(await kubectl(["patch", "configmap", "orch-root-ca.crt", "-n", ns, "--type=merge", "-p", '{"data":{"ca.crt":"tampered"}}']));
        await waitFor(
          async () => ok(await kubectl(["get", "configmap", "orch-root-ca.crt", "-n", ns, "-o", "jsonpath={.data.ca\\.crt}"])).includes("BEGIN CERTIFICATE"),
          { what: "the root CA restored" },
        );
      });

      it("a pod without a service account gets default and its token volume; a missing account is 403", async () => {
        await waitFor(async () => (await kubectl(["get", "serviceaccount", "default", "-n", ns])).code === 0, { what: "the default ServiceAccount" });
        const pod = (name: string, account?: string) => ({
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name, namespace: ns },
          spec: { ...(account === undefined ? {} : { serviceAccountName: account }), containers: [{ name: "c", image: "busybox:1.36" }] },
        });
        const file = join(server().dataDir, `${release.version}-pod.json`);
        writeFileSync(file, JSON.stringify(pod("with-default")));
        ok(await kubectl(["create", "-f", file]));
        assert.equal(ok(await kubectl(["get", "pod", "with-default", "-n", ns, "-o", "jsonpath={.spec.serviceAccountName}"])), "default");
        const volumes = ok(await kubectl(["get", "pod", "with-default", "-n", ns, "-o", "jsonpath={.spec.volumes[*].name}"]));
        assert.match(volumes, /^orch-api-access-[a-z0-9]{5}$/);
        assert.match(
          ok(await kubectl(["get", "pod", "with-default", "-n", ns, "-o", "jsonpath={.spec.containers[0].volumeMounts[0].name}"])),
          /^orch-api-access-/,
        );
        writeFileSync(file, JSON.stringify(pod("with-missing", "nobody")));
        const refused = await kubectl(["create", "-f", file]);
        assert.notEqual(refused.code, 0);
        assert.match(refused.stderr, /forbidden: error looking up service account .*\/nobody: serviceaccount "nobody" not found/);
      });

      it("a legacy token Secret is filled, and deleted with its account", async () => {
        ok(await kubectl(["create", "serviceaccount", "builder", "-n", ns]));
        const secret = {
          apiVersion: "v1",
          kind: "Secret",
          type: "orch.io/service-account-token",
          metadata: { name: "builder-token", namespace: ns, annotations: { "orch.io/service-account.name": "builder" } },
        };
        const file = join(server().dataDir, `${release.version}-secret.json`);
        writeFileSync(file, JSON.stringify(secret));
        ok(await kubectl(["create", "-f", file]));
        const token = await waitFor(async () => ok(await kubectl(["get", "secret", "builder-token", "-n", ns, "-o", "jsonpath={.data.token}"])) || undefined, {
          what: "the token filled",
        });
        const jwt = Buffer.from(token, "base64").toString("utf8");
        const who = await request(
          { url: server().admin.url, ca: server().admin.ca, token: jwt },
          "POST",
          "/apis/authentication.orch.io/v1/selfsubjectreviews",
          {
            body: { apiVersion: "authentication.orch.io/v1", kind: "SelfSubjectReview" },
          },
        );
        assert.match(who.body, new RegExp(`system:serviceaccount:${ns}:builder`), who.body);
        ok(await kubectl(["delete", "serviceaccount", "builder", "-n", ns]));
        await waitFor(async () => (await kubectl(["get", "secret", "builder-token", "-n", ns])).code !== 0, { what: "the token Secret deleted" });
      });

      it("hand-written Endpoints of a selector-less Service are mirrored into an EndpointSlice that follows edits and goes with them", async () => {
        const endpoints = (ips: string[]): Record<string, unknown> => ({
          apiVersion: "v1",
          kind: "Endpoints",
          metadata: { name: "external", namespace: ns },
          subsets: [{ addresses: ips.map((ip) => ({ ip })), ports: [{ name: "https", port: 443 }] }],
        });
        const service = { apiVersion: "v1", kind: "Service", metadata: { name: "external", namespace: ns }, spec: { ports: [{ name: "https", port: 443 }] } };
        const file = join(server().dataDir, `${release.version}-mirror.json`);
        writeFileSync(file, JSON.stringify({ apiVersion: "v1", kind: "List", items: [service, endpoints(["192.0.2.20"])] }));
        ok(await kubectl(["apply", "-f", file]));
        const addresses = async (): Promise<string> =>
          ok(
            await kubectl([
              "get",
              "endpointslices",
              "-n",
              ns,
              "-l",
              "orch.io/service-name=external,endpointslice.orch.io/managed-by=endpointslicemirroring-controller.orch.io",
              "-o",
              "jsonpath={.items[*].endpoints[*].addresses[*]}",
            ]),
          ).trim();
        await waitFor(async () => (await addresses()) === "192.0.2.20", { what: "the mirrored slice" });
        writeFileSync(file, JSON.stringify(endpoints(["192.0.2.20", "192.0.2.21"])));
        ok(await kubectl(["apply", "-f", file]));
        await waitFor(async () => (await addresses()) === "192.0.2.20 192.0.2.21", { what: "the slice to follow the edit" });
        ok(await kubectl(["delete", "endpoints", "external", "-n", ns]));
        await waitFor(async () => (await addresses()) === "", { what: "the mirror to go with the Endpoints" });
      });
    });
  }
});
