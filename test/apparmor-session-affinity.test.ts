// kube 1.30's create-time AppArmor sync (annotation ↔ securityContext.appArmorProfile) and its
// Service defaulting (sessionAffinity None drops sessionAffinityConfig), with real kubectl in both
// product profiles; and kube's refusals of AppArmor annotations (ValidateAppArmorPodAnnotations) and of
// seccomp annotations contradicting their fields (validateSeccompAnnotationsAndFields).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../src/api/profile.js";
import { kubectlFor, ok } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";

type Json = Record<string, unknown>;

function manifest(suffix: string, keyDomain: string): string {
  return `apiVersion: v1
kind: Pod
metadata:
  name: armored-${suffix}
  annotations:
    container.apparmor.security.beta.${keyDomain}/annotated: runtime/default
spec:
  containers:
    - name: annotated
      image: busybox:1.36
    - name: fielded
      image: busybox:1.36
      securityContext:
        appArmorProfile:
          type: Localhost
          localhostProfile: deny-write
---
apiVersion: v1
kind: Service
metadata:
  name: sticky-${suffix}
spec:
  sessionAffinity: None
  sessionAffinityConfig:
    clientIP:
      timeoutSeconds: 60
  ports:
    - port: 80
`;
}

for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
  describe(`AppArmor sync and session affinity defaulting (${profile.name} profile)`, () => {
    const server = useTestServer({ profile, storageBackend: "memory" });

    for (const version of ["1.27", "1.33"] as const) {
      it(`kubectl ${version}: the pod's annotation becomes a field and its field an annotation; the Service loses its config`, async () => {
        const kubectl = kubectlFor(server().server.kubeconfigPath, join(server().dataDir, `kubectl-${version}`), version);
        const suffix = version.replace(".", "");
        const file = join(server().dataDir, `manifest-${suffix}.yaml`);
        writeFileSync(file, manifest(suffix, profile.keyDomain));
        const created = await kubectl(["create", "-f", file]);
        ok(created);
        const key = `container.apparmor.security.beta.${profile.keyDomain}/`;
        assert.ok(created.stderr.includes(`metadata.annotations[${key}annotated]: deprecated since v1.30`), created.stderr);

        const pod = JSON.parse(ok(await kubectl(["get", "pod", `armored-${suffix}`, "-o", "json"]))) as Json;
        const annotations = (pod["metadata"] as Json)["annotations"] as Json;
        assert.equal(annotations[`${key}annotated`], "runtime/default");
        assert.equal(annotations[`${key}fielded`], "localhost/deny-write");
        const containers = (pod["spec"] as Json)["containers"] as Json[];
        assert.deepEqual(
          containers.map((container) => (container["securityContext"] as Json)["appArmorProfile"]),
          [{ type: "RuntimeDefault" }, { type: "Localhost", localhostProfile: "deny-write" }],
        );

        // kube's ValidatePodSpecificAnnotationUpdates: the AppArmor annotations are fixed at creation.
        const added = await kubectl(["annotate", "pod", `armored-${suffix}`, `${key}other=unconfined`]);
        assert.notEqual(added.code, 0);
        assert.ok(added.stderr.includes(`metadata.annotations[${key}other]: Forbidden: may not add AppArmor annotations`), added.stderr);
        const changed = await kubectl(["annotate", "--overwrite", "pod", `armored-${suffix}`, `${key}annotated=unconfined`]);
        assert.notEqual(changed.code, 0);
        assert.ok(changed.stderr.includes(`metadata.annotations[${key}annotated]: Forbidden: may not remove or update AppArmor annotations`), changed.stderr);
        ok(await kubectl(["annotate", "pod", `armored-${suffix}`, "note=fine"]));

        const service = JSON.parse(ok(await kubectl(["get", "service", `sticky-${suffix}`, "-o", "json"]))) as Json;
        const spec = service["spec"] as Json;
        assert.equal(spec["sessionAffinity"], "None");
        assert.equal(spec["sessionAffinityConfig"], undefined);
      });

      it(`kubectl ${version}: kube's refusals of AppArmor and seccomp annotations, one per rule`, async () => {
        const kubectl = kubectlFor(server().server.kubeconfigPath, join(server().dataDir, `kubectl-refusals-${version}`), version);
        const suffix = version.replace(".", "");
        const domain = profile.keyDomain;
        const apparmor = `container.apparmor.security.beta.${domain}/`;
        const cases: [string, string, string][] = [
          [
            "missing",
            `annotations: {${apparmor}other: runtime/default}`,
            `metadata.annotations[${apparmor}other]: Invalid value: "other": container not found`,
          ],
          [
            "badvalue",
            `annotations: {${apparmor}c: confined}`,
            `metadata.annotations[${apparmor}c]: Invalid value: "confined": invalid AppArmor profile name: "confined"`,
          ],
          [
            "seccomp",
            `annotations: {container.seccomp.security.alpha.${domain}/c: unconfined}`,
            "spec.containers[0].securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match",
          ],
        ];
        for (const [name, annotations, message] of cases) {
          const file = join(server().dataDir, `refused-${name}-${suffix}.yaml`);
          writeFileSync(
            file,
            `apiVersion: v1
kind: Pod
metadata:
  name: refused-${name}-${suffix}
  ${annotations}
spec:
  containers:
    - name: c
      image: busybox:1.36
      securityContext:
        seccompProfile: {type: RuntimeDefault}
`,
          );
          const created = await kubectl(["create", "-f", file]);
          assert.notEqual(created.code, 0, created.stdout);
          assert.ok(created.stderr.includes(`The Pod "refused-${name}-${suffix}" is invalid: ${message}`), created.stderr);
        }
      });
    }
  });
}
