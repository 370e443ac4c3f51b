// Real kubectl (1.27 and 1.33) against both profiles: the managedFields entry `kubectl create -f` leaves on a
// Deployment, read back with `kubectl get -o json --show-managed-fields`, is kube-apiserver's FieldsV1 exactly (no
// `.` under spec, strategy, template or the template's metadata and spec; `.` on labels, list items and the
// pointer struct rollingUpdate), and so is a later `kubectl set image`'s.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../src/api/profile.js";
import { KUBE_DEPLOYMENT_CREATE_FIELDS } from "../src/testing/kube-managed-fields.js";
import { kubectlFor, resolveKubectls, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

interface Entry {
  manager: string;
  operation: string;
  fieldsV1: unknown;
}

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

function deployment(name: string): string {
  return [
    "apiVersion: apps/v1",
    "kind: Deployment",
    "metadata:",
    `  name: ${name}`,
    "  labels: {app: crud}",
    "spec:",
    "  replicas: 3",
    "  selector:",
    "    matchLabels: {app: crud}",
    "  template:",
    "    metadata:",
    "      labels: {app: crud}",
    "    spec:",
    "      containers:",
    "      - name: crud-sha256-1",
    "        image: gcr.io/example/crud:1",
    "",
  ].join("\n");
}

for (const profile of [KUBERNETES_PROFILE, ORCH_PROFILE]) {
  describe(`Update managedFields as kube writes them, ${profile.name} profile`, () => {
    const server = useTestServer({ profile, storageBackend: "memory" });

    for (const release of resolveKubectls(["1.27", "1.33"])) {
      describe(`kubectl ${release.version}`, () => {
        let kubectl: Kubectl;
        const name = `crud-${release.version.replace(/\D/g, "")}`;
        before(() => {
          kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, release);
        });

        async function entries(): Promise<Entry[]> {
          const object = JSON.parse(ok(await kubectl(["get", "deployment", name, "-o", "json", "--show-managed-fields"]))) as {
            metadata: { managedFields?: Entry[] };
          };
          return object.metadata.managedFields ?? [];
        }

        it("kubectl create -f: the entry is kube's FieldsV1, exactly", async () => {
          const path = join(server().dataDir, `${name}.yaml`);
          writeFileSync(path, deployment(name));
          ok(await kubectl(["create", "-f", path]));
          const created = (await entries()).filter((entry) => entry.manager === "kubectl-create");
          assert.equal(created.length, 1);
          assert.equal(created[0]?.operation, "Update");
          assert.deepEqual(created[0]?.fieldsV1, KUBE_DEPLOYMENT_CREATE_FIELDS);
        });

        it("kubectl set image: the setter owns the image alone; the creator keeps the rest", async () => {
          ok(await kubectl(["set", "image", `deployment/${name}`, "crud-sha256-1=gcr.io/example/crud:2"]));
          const all = await entries();
          assert.deepEqual(all.find((entry) => entry.manager === "kubectl-set")?.fieldsV1, {
            "f:spec": { "f:template": { "f:spec": { "f:containers": { 'k:{"name":"crud-sha256-1"}': { "f:image": {} } } } } },
          });
          const creator = JSON.stringify(all.find((entry) => entry.manager === "kubectl-create")?.fieldsV1);
          assert.equal(creator, JSON.stringify(KUBE_DEPLOYMENT_CREATE_FIELDS).replace(',"f:image":{}', ""));
        });
      });
    }
  });
}
