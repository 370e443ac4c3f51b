// ValidatingAdmissionPolicy as a user meets it through real kubectl (newest and oldest supported):
// `kubectl apply` of a policy and two bindings, then a denied and a warned `kubectl create`.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { kubectlFor, type Kubectl, type KubectlResult, resolveKubectl } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

function manifests(suffix: string): unknown {
  const group = "admissionregistration.orch.io/v1";
  return {
    apiVersion: "v1",
    kind: "List",
    items: [
      {
        apiVersion: group,
        kind: "ValidatingAdmissionPolicy",
        metadata: { name: `max-keys-${suffix}` },
        spec: {
          failurePolicy: "Fail",
          matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["configmaps"] }] },
          validations: [
            { expression: "!has(object.data) || object.data.size() <= 1", messageExpression: "'at most 1 key, got ' + string(object.data.size())" },
          ],
        },
      },
      {
        apiVersion: group,
        kind: "ValidatingAdmissionPolicyBinding",
        metadata: { name: `max-keys-deny-${suffix}` },
        spec: {
          policyName: `max-keys-${suffix}`,
          validationActions: ["Deny"],
          matchResources: { namespaceSelector: { matchLabels: { policy: `deny-${suffix}` } } },
        },
      },
      {
        apiVersion: group,
        kind: "ValidatingAdmissionPolicyBinding",
        metadata: { name: `max-keys-warn-${suffix}` },
        spec: {
          policyName: `max-keys-${suffix}`,
          validationActions: ["Warn"],
          matchResources: { namespaceSelector: { matchLabels: { policy: `warn-${suffix}` } } },
        },
      },
    ],
  };
}

/** Retries `create` while the policy feed catches up with the apply (bounded). */
async function createUntil(kubectl: Kubectl, args: readonly string[], done: (result: KubectlResult) => boolean): Promise<KubectlResult> {
  let result = await kubectl(args);
  for (let attempt = 0; attempt < 20 && !done(result); attempt++) {
    if (result.code === 0) await kubectl(["delete", ...args.slice(1, 3), ...args.slice(-2)]);
    await sleep(50);
    result = await kubectl(args);
  }
  return result;
}

describe("kubectl against ValidatingAdmissionPolicy", () => {
  const server = useTestServer();
  for (const version of ["newest", "oldest"] as const) {
    it(`kubectl ${version}: applies a policy and bindings, then denies one create and warns on another`, async () => {
      const kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, resolveKubectl(version));
      const file = join(server().dataDir, `policy-${version}.json`);
      writeFileSync(file, JSON.stringify(manifests(version)));
      const applied = ok(await kubectl(["apply", "-f", file]));
      assert.match(applied, new RegExp(`validatingadmissionpolicy.admissionregistration.orch.io/max-keys-${version} created`));
      assert.match(applied, new RegExp(`validatingadmissionpolicybinding.admissionregistration.orch.io/max-keys-deny-${version} created`));
      for (const mode of ["deny", "warn"]) {
        ok(await kubectl(["create", "namespace", `${mode}-${version}`]));
        ok(await kubectl(["label", "namespace", `${mode}-${version}`, `policy=${mode}-${version}`]));
      }
      const create = (mode: string) => ["create", "configmap", "two", "--from-literal=a=1", "--from-literal=b=2", "-n", `${mode}-${version}`];
      const denied = await createUntil(kubectl, create("deny"), (result) => result.code !== 0);
      assert.notEqual(denied.code, 0);
      assert.match(
        denied.stderr,
        new RegExp(
          `failed to create configmap: configmaps "two" is forbidden: ValidatingAdmissionPolicy 'max-keys-${version}' with binding 'max-keys-deny-${version}' denied request: at most 1 key, got 2`,
        ),
      );
      // From a file kubectl prints the Invalid Status by its details, as against kube-apiserver (the empty field before the message included).
      const manifest = join(server().dataDir, `two-${version}.json`);
      writeFileSync(manifest, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "two-file" }, data: { a: "1", b: "2" } }));
      const fromFile = await kubectl(["create", "-f", manifest, "-n", `deny-${version}`]);
      assert.notEqual(fromFile.code, 0);
      assert.equal(
        fromFile.stderr.trim(),
        `The configmaps "two-file" is invalid: : ValidatingAdmissionPolicy 'max-keys-${version}' with binding 'max-keys-deny-${version}' denied request: at most 1 key, got 2`,
      );
      const warned = await createUntil(kubectl, create("warn"), (result) => /Warning:/.test(result.stderr));
      assert.equal(warned.code, 0, warned.stderr);
      assert.match(
        warned.stderr,
        new RegExp(
          `Warning: Validation failed for ValidatingAdmissionPolicy 'max-keys-${version}' with binding 'max-keys-warn-${version}': at most 1 key, got 2`,
        ),
      );
      assert.match(ok(await kubectl(["get", "validatingadmissionpolicies"])), new RegExp(`max-keys-${version}\\s+1\\s+<unset>`));
    });
  }

  for (const version of ["newest", "oldest"] as const) {
    it(`kubectl ${version}: a policy using semver, format and a two-variable comprehension; params without paramKind refused`, async () => {
      const kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, resolveKubectl(version));
      const namespace = `semver-${version}`;
      const group = "admissionregistration.orch.io/v1";
      const rules = { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }] };
      const file = join(server().dataDir, `semver-${version}.json`);
      writeFileSync(
        file,
        JSON.stringify({
          apiVersion: "v1",
          kind: "List",
          items: [
            {
              apiVersion: group,
              kind: "ValidatingAdmissionPolicy",
              metadata: { name: `semver-${version}` },
              spec: {
                matchConstraints: rules,
                validations: [
                  {
                    expression:
                      "!has(object.data) || !('version' in object.data) || (isSemver(object.data.version, true) && semver(object.data.version, true).isGreaterThan(semver('1.0.0')))",
                    messageExpression: "'version %s is not a semver above 1.0.0'.format([object.data.version])",
                  },
                  { expression: "!has(object.data) || object.data.all(k, v, v.size() <= 10)", message: "values are at most 10 characters" },
                ],
              },
            },
            {
              apiVersion: group,
              kind: "ValidatingAdmissionPolicyBinding",
              metadata: { name: `semver-${version}` },
              spec: {
                policyName: `semver-${version}`,
                validationActions: ["Deny"],
                matchResources: { namespaceSelector: { matchLabels: { semver: version } } },
              },
            },
          ],
        }),
      );
      ok(await kubectl(["apply", "-f", file]));
      ok(await kubectl(["create", "namespace", namespace]));
      ok(await kubectl(["label", "namespace", namespace, `semver=${version}`]));
      const denied = await createUntil(kubectl, ["create", "configmap", "old", "--from-literal=version=v0.9", "-n", namespace], (result) => result.code !== 0);
      assert.match(
        denied.stderr,
        new RegExp(
          `ValidatingAdmissionPolicy 'semver-${version}' with binding 'semver-${version}' denied request: version v0\\.9 is not a semver above 1\\.0\\.0`,
        ),
      );
      const long = await kubectl(["create", "configmap", "long", "--from-literal=version=1.2", "--from-literal=note=far-too-long-value", "-n", namespace]);
      assert.match(long.stderr, /denied request: values are at most 10 characters/);
      ok(await kubectl(["create", "configmap", "new", "--from-literal=version=v1.2", "-n", namespace]));
      const paramsFile = join(server().dataDir, `params-${version}.json`);
      writeFileSync(
        paramsFile,
        JSON.stringify({
          apiVersion: group,
          kind: "ValidatingAdmissionPolicy",
          metadata: { name: `params-${version}` },
          spec: { matchConstraints: rules, validations: [{ expression: "params.data.limit == '1'" }] },
        }),
      );
      const refused = await kubectl(["apply", "-f", paramsFile]);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /spec\.validations\[0\]\.expression: Invalid value: .*compilation failed: ERROR: <input>:1:1: .*params/);
    });
  }
});
