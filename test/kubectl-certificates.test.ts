// Real kubectl (the default release) approving and denying CertificateSigningRequests through the `approval`
// sub-resource. kubectl's certificate commands hard-code kube's group name, so this runs under
// the kubernetes profile (`--compat kubernetes`), as users of those commands would.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { apiGroup, KUBERNETES_PROFILE } from "../src/api/profile.js";
import { kubectlFor, resolveKubectl, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";

const KUBECTL = resolveKubectl("default");
import { useTestServer } from "./helpers/server.js";
import { TEST_CSR_REQUEST } from "../src/testing/csr.js";

const profile = KUBERNETES_PROFILE;

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

interface Csr {
  readonly spec: { readonly username?: string };
  readonly status: { readonly conditions?: readonly { readonly type: string; readonly status: string; readonly reason?: string }[] };
}

describe(`kubectl ${KUBECTL.version} certificate approve / deny (kubernetes profile)`, () => {
  const server = useTestServer({ profile });
  let kubectl: Kubectl;
  const create = async (name: string): Promise<void> => {
    const path = join(server().dataDir, `${name}.json`);
    writeFileSync(
      path,
      JSON.stringify({
        apiVersion: `${apiGroup(profile, "certificates")}/v1`,
        kind: "CertificateSigningRequest",
        metadata: { name },
        spec: { request: TEST_CSR_REQUEST, signerName: "example.com/signer", usages: ["client auth"] },
      }),
    );
    ok(await kubectl(["create", "-f", path]));
  };
  const read = async (name: string): Promise<Csr> => JSON.parse(ok(await kubectl(["get", "csr", name, "-o", "json"]))) as Csr;

  before(() => {
    kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, KUBECTL);
  });

  it("approve adds an Approved condition through the approval sub-resource, and get csr shows it", async () => {
    await create("to-approve");
    assert.match(ok(await kubectl(["certificate", "approve", "to-approve"])), /approved/);
    const csr = await read("to-approve");
    assert.deepEqual(
      csr.status.conditions?.map((condition) => [condition.type, condition.status, condition.reason]),
      [["Approved", "True", "KubectlApprove"]],
    );
    assert.match(ok(await kubectl(["get", "csr", "to-approve"])), /Approved/);
    assert.ok((csr.spec.username ?? "") !== "", "the requester is recorded");
  });

  it("deny adds a Denied condition; kubectl then refuses to approve it", async () => {
    await create("to-deny");
    ok(await kubectl(["certificate", "deny", "to-deny"]));
    assert.deepEqual(
      (await read("to-deny")).status.conditions?.map((condition) => condition.type),
      ["Denied"],
    );
    const refused = await kubectl(["certificate", "approve", "to-deny"]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /already Denied/);
  });
});
