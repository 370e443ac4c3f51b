// kubernetes.io task and tutorial pages walked with real kubectl (the oldest and the newest installed) against one
// `--compat kubernetes` server per release: the outputs each page shows that come from the server.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../src/api/profile.js";
import { kubectlFor, resolveKubectls, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

type Json = Record<string, unknown>;

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

// content/en/examples/application/simple_deployment.yaml and update_deployment.yaml (declarative-config page).
const SIMPLE_DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
spec:
  selector:
    matchLabels:
      app: nginx
  minReadySeconds: 5
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.14.2
        ports:
        - containerPort: 80
`;
const UPDATE_DEPLOYMENT = SIMPLE_DEPLOYMENT.replace("nginx:1.14.2", "nginx:1.16.1").replace("  minReadySeconds: 5\n", "");

for (const release of resolveKubectls(["oldest", "newest"])) {
  describe(`kubectl ${release.version} against kubernetes.io's pages`, () => {
    const server = useTestServer({ profile: KUBERNETES_PROFILE, storageBackend: "memory" });
    let kubectl: Kubectl;
    let files = 0;

    function file(text: string): string {
      const path = join(server().dataDir, `page-${++files}.yaml`);
      writeFileSync(path, text);
      return path;
    }

    async function getJson(...args: string[]): Promise<Json> {
      return JSON.parse(ok(await kubectl(["get", ...args, "-o", "json"]))) as Json;
    }

    before(() => {
      kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, release);
    });

    it("declarative-config: apply, scale, apply the update; the live object as the page prints it (template creationTimestamp: null)", async () => {
      const simple = file(SIMPLE_DEPLOYMENT);
      assert.match(ok(await kubectl(["apply", "-f", simple])), /deployment\.apps\/nginx-deployment created/);
      const yaml = ok(await kubectl(["get", "-f", simple, "-o", "yaml"]));
      assert.match(yaml, /\n {2}template:\n {4}metadata:\n {6}creationTimestamp: null\n {6}labels:\n {8}app: nginx\n/);
      assert.match(yaml, /\n {2}minReadySeconds: 5\n/);
      assert.match(yaml, /\n {2}generation: 1\n/);
      ok(await kubectl(["scale", "deployment/nginx-deployment", "--replicas=2"]));
      assert.match(ok(await kubectl(["apply", "-f", file(UPDATE_DEPLOYMENT)])), /deployment\.apps\/nginx-deployment configured/);
      const live = await getJson("deployment", "nginx-deployment");
      const spec = live["spec"] as Json;
      assert.equal(spec["replicas"], 2, "kept from kubectl scale");
      assert.equal(spec["minReadySeconds"], undefined, "cleared by apply");
      assert.equal((live["metadata"] as Json)["generation"], 3);
      // A second apply of the same file changes nothing (the null is nobody's field).
      assert.match(ok(await kubectl(["apply", "-f", file(UPDATE_DEPLOYMENT)])), /deployment\.apps\/nginx-deployment unchanged/);
      const diff = await kubectl(["diff", "-f", file(UPDATE_DEPLOYMENT)]);
      assert.equal(diff.code, 0, diff.stdout + diff.stderr);
    });

    it("update-api-object-kubectl-patch: the retainKeys page's refusal and its fix", async () => {
      const retainKeys = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: retainkeys-demo
spec:
  selector:
    matchLabels:
      app: nginx
  strategy:
    rollingUpdate:
      maxSurge: 30%
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: retainkeys-demo-ctr
        image: nginx
`;
      ok(await kubectl(["apply", "-f", file(retainKeys)]));
      const refused = await kubectl([
        "patch",
        "deployment",
        "retainkeys-demo",
        "--type",
        "merge",
        "--patch-file",
        file("spec:\n  strategy:\n    type: Recreate\n"),
      ]);
      assert.notEqual(refused.code, 0);
      assert.match(
        refused.stderr,
        /The Deployment "retainkeys-demo" is invalid: spec\.strategy\.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'/,
      );
      ok(
        await kubectl([
          "patch",
          "deployment",
          "retainkeys-demo",
          "--patch-file",
          file("spec:\n  strategy:\n    $retainKeys:\n    - type\n    type: Recreate\n"),
        ]),
      );
      const spec = (await getJson("deployment", "retainkeys-demo"))["spec"] as Json;
      assert.deepEqual(spec["strategy"], { type: "Recreate" });
      // An annotation is copied to a Deployment's ReplicaSets: kube bumps the generation for it.
      ok(await kubectl(["annotate", "deployment", "retainkeys-demo", "kubernetes.io/change-cause=docs"]));
      assert.equal(((await getJson("deployment", "retainkeys-demo"))["metadata"] as Json)["generation"], 3);
    });

    it("quality-service-pod and connect-applications-service: a Pod and a Service have no metadata.generation in kube 1.30", async () => {
      ok(await kubectl(["create", "namespace", "qos-example"]));
      const pod = `apiVersion: v1
kind: Pod
metadata:
  name: qos-demo
  namespace: qos-example
spec:
  containers:
  - name: qos-demo-ctr
    image: nginx
    resources:
      limits:
        memory: "200Mi"
        cpu: "700m"
      requests:
        memory: "200Mi"
        cpu: "700m"
`;
      ok(await kubectl(["apply", "-f", file(pod)]));
      const live = await getJson("pod", "qos-demo", "--namespace=qos-example");
      assert.equal((live["status"] as Json)["qosClass"], "Guaranteed");
      assert.equal((live["metadata"] as Json)["generation"], undefined);
      ok(await kubectl(["create", "deployment", "my-nginx", "--image=nginx"]));
      ok(await kubectl(["expose", "deployment/my-nginx", "--port=80"]));
      const service = await getJson("service", "my-nginx");
      assert.equal((service["metadata"] as Json)["generation"], undefined);
      assert.doesNotMatch(ok(await kubectl(["get", "service", "my-nginx", "-o", "yaml"])), /generation:/);
    });

    it("service concepts: the EndpointSlice kube's controller writes for a Service is named <service>-<5 characters>", async () => {
      ok(await kubectl(["create", "service", "clusterip", "my-service", "--tcp=80:9376"]));
      const slices = await waitFor(
        async () => {
          const list = await getJson("endpointslices", "-l", "kubernetes.io/service-name=my-service");
          const items = list["items"] as Json[];
          return items.length > 0 ? items : undefined;
        },
        { what: "the service's EndpointSlice" },
      );
      const metadata = (slices[0] as Json)["metadata"] as Json;
      assert.match(String(metadata["name"]), /^my-service-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.equal(metadata["generateName"], "my-service-");
    });
  });
}
