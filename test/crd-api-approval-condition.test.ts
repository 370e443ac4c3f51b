// kube's KubernetesAPIApprovalPolicyConformant condition (its API approval controller): set on
// definitions in the groups the Kubernetes project owns (`k8s.io`, `kubernetes.io` and their
// subdomains, under either product profile), from the `api-approved.kubernetes.io` annotation;
// never on other groups. Read back with kubectl 1.27 and 1.33 as `kubectl get crd -o jsonpath`.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { apiGroup, ORCH_PROFILE } from "../src/api/profile.js";
import { apiApprovalCondition } from "../src/api/schema/rules/crd-api-approval.js";
import { startServer } from "../src/index.js";
import { kubectlFor, ok } from "./helpers/kubectl.js";
import { makeTempDir, removeDir } from "./helpers/server.js";
import { eventually } from "./helpers/wait.js";
import { writeFileSync } from "node:fs";

const APIEXTENSIONS = apiGroup(ORCH_PROFILE, "apiextensions");
const SEE = "see https://github.com/kubernetes/enhancements/pull/1111";

function definition(group: string, plural: string, approval?: string): Record<string, unknown> {
  const kind = `${plural[0]?.toUpperCase()}${plural.slice(1, -1)}`;
  return {
    apiVersion: `${APIEXTENSIONS}/v1`,
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}`, ...(approval === undefined ? {} : { annotations: { "api-approved.kubernetes.io": approval } }) },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural, singular: plural.slice(0, -1), kind, listKind: `${kind}List` },
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } } }],
    },
  };
}

describe("apiApprovalCondition (kube's GetAPIApprovalState, as a condition)", () => {
  it("answers each state in kube's words, and nothing outside the protected groups", () => {
    const crd = (approval?: string) => definition("x.k8s.io", "things", approval) as never;
    assert.deepEqual(apiApprovalCondition(crd("https://github.com/kubernetes/enhancements/pull/1111"), "x.k8s.io"), {
      type: "KubernetesAPIApprovalPolicyConformant",
      status: "True",
      reason: "ApprovedAnnotation",
      message: "approved in https://github.com/kubernetes/enhancements/pull/1111",
    });
    assert.deepEqual(apiApprovalCondition(crd('unapproved, "experimental"'), "x.k8s.io"), {
      type: "KubernetesAPIApprovalPolicyConformant",
      status: "False",
      reason: "UnapprovedAnnotation",
      message: 'not approved: "unapproved, \\"experimental\\""',
    });
    assert.deepEqual(apiApprovalCondition(crd(), "kubernetes.io"), {
      type: "KubernetesAPIApprovalPolicyConformant",
      status: "False",
      reason: "MissingAnnotation",
      message: `protected groups must have approval annotation "api-approved.kubernetes.io", ${SEE}`,
    });
    assert.deepEqual(apiApprovalCondition(crd("approved by me"), "y.kubernetes.io"), {
      type: "KubernetesAPIApprovalPolicyConformant",
      status: "False",
      reason: "InvalidAnnotation",
      message: `protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", ${SEE}`,
    });
    assert.equal(apiApprovalCondition(crd(), "example.com"), undefined);
    assert.equal(apiApprovalCondition(crd(), "notk8s.io"), undefined);
    assert.equal(apiApprovalCondition(crd(), "gateway.networking.x-k8s.io"), undefined);
  });
});

describe("the KubernetesAPIApprovalPolicyConformant condition from the command line", () => {
  const dir = makeTempDir("orch-crd-approval-");
  let stop: (() => Promise<void>) | undefined;
  let kubeconfig = "";
  before(async () => {
    const server = await startServer({ storageBackend: "memory", dataDir: join(dir, "data"), securePort: 0 });
    stop = () => server.stop();
    kubeconfig = server.kubeconfigPath;
  });
  after(async () => {
    await stop?.();
    removeDir(dir);
  });

  for (const version of ["1.27", "1.33"] as const) {
    it(`kubectl ${version}: approved and unapproved protected groups get it, other groups do not`, async () => {
      const kubectl = kubectlFor(kubeconfig, join(dir, `kubectl-${version}`), version);
      const suffix = version.replace(".", "");
      const objects = [
        definition(`approved${suffix}.x-k8s.io.k8s.io`, "things", "https://github.com/kubernetes/enhancements/pull/1111"),
        definition(`unapproved${suffix}.kubernetes.io`, "olds", "unapproved, testing only"),
        definition(`plain${suffix}.example.com`, "widgets"),
      ];
      const file = join(dir, `crds-${suffix}.json`);
      writeFileSync(file, JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }));
      ok(await kubectl(["create", "-f", file]));
      const read = async (name: string): Promise<string> =>
        ok(await kubectl(["get", "crd", name, "-o", 'jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason}/{.message}{"\\n"}{end}']));
      const approved = await eventually(async () => {
        const text = await read(`things.approved${suffix}.x-k8s.io.k8s.io`);
        return text.includes("Established=True") ? text : undefined;
      });
      assert.equal(
        approved.split("\n")[0],
        "KubernetesAPIApprovalPolicyConformant=True/ApprovedAnnotation/approved in https://github.com/kubernetes/enhancements/pull/1111",
      );
      const unapproved = await eventually(async () => {
        const text = await read(`olds.unapproved${suffix}.kubernetes.io`);
        return text.includes("Established=True") ? text : undefined;
      });
      assert.equal(unapproved.split("\n")[0], 'KubernetesAPIApprovalPolicyConformant=False/UnapprovedAnnotation/not approved: "unapproved, testing only"');
      const plain = await eventually(async () => {
        const text = await read(`widgets.plain${suffix}.example.com`);
        return text.includes("Established=True") ? text : undefined;
      });
      assert.doesNotMatch(plain, /KubernetesAPIApprovalPolicyConformant/);
    });
  }
});
