// Real kubectl (the oldest and the newest installed) patching as kube's documentation and
// apiserver do: strategic merge list order and directives, client-side apply's
// `$setElementOrder`, JSON patch leniency and failures. One in-process server per release.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { kubectlFor, resolveKubectls, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";
import { json, request } from "./helpers/http.js";
import { useTestServer } from "./helpers/server.js";

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

function failed(result: KubectlResult): string {
  assert.notEqual(result.code, 0, `kubectl succeeded: ${result.stdout}`);
  return result.stderr.trim();
}

/** The Deployment of kube's "Update API Objects in Place Using kubectl patch" task. */
const PATCH_DEMO = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "patch-demo", namespace: "default" },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: "nginx" } },
    template: {
      metadata: { labels: { app: "nginx" } },
      spec: { containers: [{ name: "patch-demo-ctr", image: "nginx" }], tolerations: [{ effect: "NoSchedule", key: "dedicated", value: "test-team" }] },
    },
  },
};

function envDeployment(env: readonly string[]): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "env-order", namespace: "default" },
    spec: {
      selector: { matchLabels: { app: "env" } },
      template: {
        metadata: { labels: { app: "env" } },
        spec: { containers: [{ name: "app", image: "busybox", env: env.map((name) => ({ name, value: name.toLowerCase() })) }] },
      },
    },
  };
}

for (const release of resolveKubectls(["oldest", "newest"])) {
  describe(`kubectl ${release.version} patches as kube applies them`, () => {
    const server = useTestServer();
    let kubectl: Kubectl;
    let files = 0;

    function file(value: unknown): string {
      const path = join(server().dataDir, `patch-${++files}.json`);
      writeFileSync(path, JSON.stringify(value));
      return path;
    }

    async function jsonpath(resource: string, expression: string): Promise<string> {
      return ok(await kubectl(["get", resource, "-o", `jsonpath=${expression}`]));
    }

    before(() => {
      kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, release);
    });

    it("kube's patch task: a strategic patch puts the added container first, replaces the tolerations; a merge patch replaces the list", async () => {
      ok(await kubectl(["apply", "-f", file(PATCH_DEMO)]));
      ok(
        await kubectl([
          "patch",
          "deployment",
          "patch-demo",
          "--patch-file",
          file({ spec: { template: { spec: { containers: [{ name: "patch-demo-ctr-2", image: "redis" }] } } } }),
        ]),
      );
      assert.equal(await jsonpath("deployment/patch-demo", "{.spec.template.spec.containers[*].name}"), "patch-demo-ctr-2 patch-demo-ctr");
      ok(
        await kubectl([
          "patch",
          "deployment",
          "patch-demo",
          "--patch-file",
          file({ spec: { template: { spec: { tolerations: [{ effect: "NoSchedule", key: "disktype", value: "ssd" }] } } } }),
        ]),
      );
      assert.equal(await jsonpath("deployment/patch-demo", "{.spec.template.spec.tolerations[*].key}"), "disktype");
      ok(
        await kubectl([
          "patch",
          "deployment",
          "patch-demo",
          "--type",
          "merge",
          "--patch-file",
          file({ spec: { template: { spec: { containers: [{ name: "patch-demo-ctr-3", image: "gcr.io/google-samples/hello-app:2.0" }] } } } }),
        ]),
      );
      assert.equal(await jsonpath("deployment/patch-demo", "{.spec.template.spec.containers[*].name}"), "patch-demo-ctr-3");
    });

    it("client-side apply of a reordered env list with one variable dropped takes the new order ($setElementOrder)", async () => {
      ok(await kubectl(["apply", "-f", file(envDeployment(["A", "B", "C"]))]));
      ok(await kubectl(["apply", "-f", file(envDeployment(["C", "A"]))]));
      assert.equal(await jsonpath("deployment/env-order", "{.spec.template.spec.containers[0].env[*].name}"), "C A");
    });

    it("a malformed strategic directive is refused with kube's text, and nothing changes", async () => {
      const before = await jsonpath("deployment/patch-demo", "{.metadata.resourceVersion}");
      const merge = failed(
        await kubectl([
          "patch",
          "deployment",
          "patch-demo",
          "-p",
          '{"spec":{"template":{"spec":{"containers":[{"name":"patch-demo-ctr-3","$patch":"merge"}]}}}}',
        ]),
      );
      assert.equal(merge, "Error from server (BadRequest): merging lists cannot yet be specified in the patch");
      const keyless = failed(await kubectl(["patch", "deployment", "patch-demo", "-p", '{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}']));
      assert.equal(keyless, "Error from server (BadRequest): map: map[image:x] does not contain declared merge key: name");
      assert.equal(await jsonpath("deployment/patch-demo", "{.metadata.resourceVersion}"), before);
    });

    it("JSON patch: replace of a missing label adds it; a failing operation is kube's bare 422", async () => {
      ok(await kubectl(["create", "configmap", "jp", "--from-literal=k=v"]));
      ok(await kubectl(["label", "configmap", "jp", "a=1"]));
      ok(await kubectl(["patch", "configmap", "jp", "--type", "json", "-p", '[{"op":"replace","path":"/metadata/labels/b","value":"2"}]']));
      assert.equal(await jsonpath("configmap/jp", "{.metadata.labels.b}"), "2");
      const test = failed(await kubectl(["patch", "configmap", "jp", "--type", "json", "-p", '[{"op":"test","path":"/data/k","value":"nope"}]']));
      assert.equal(test, "The request is invalid: the server rejected our request due to an error in our request");
      const missing = failed(
        await kubectl(["patch", "configmap", "jp", "--type", "json", "-p", '[{"op":"add","path":"/metadata/annotations/x","value":"y"}]']),
      );
      assert.equal(missing, "The request is invalid: the server rejected our request due to an error in our request");
    });

    it("JSON patch that is not a list: kube's 400 with Go's decoding text", async () => {
      const answer = await request(server().admin, "PATCH", "/api/v1/namespaces/default/configmaps/jp", {
        body: '{"op":"add","path":"/data/x","value":"y"}',
        headers: { "content-type": "application/json-patch+json" },
      });
      assert.equal(answer.status, 400, answer.body);
      assert.equal(json(answer)["message"], "json: cannot unmarshal object into Go value of type jsonpatch.Patch");
    });
  });
}
