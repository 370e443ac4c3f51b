// kube's ValidatePodTemplateSpec (ValidatePodSpecificAnnotations at `spec.template.annotations`, the
// seccomp annotation/field match) and ValidatePodSpecificAnnotations of pods (the deletion cost),
// with real kubectl in both product profiles.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../src/api/profile.js";
import { kubectlFor, ok } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";

for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
  describe(`pod-specific annotations of pod templates and pods (${profile.name} profile)`, () => {
    const server = useTestServer({ profile, storageBackend: "memory" });
    const domain = profile.keyDomain;

    for (const version of ["1.27", "1.33"] as const) {
      it(`kubectl ${version}: a Deployment whose template names a missing container, a Job whose template's seccomp annotation contradicts its field, a pod's bad deletion cost`, async () => {
        const kubectl = kubectlFor(server().server.kubeconfigPath, join(server().dataDir, `kubectl-${version}`), version);
        const suffix = version.replace(".", "");
        const deployment = join(server().dataDir, `exporter-${suffix}.yaml`);
        writeFileSync(
          deployment,
          `apiVersion: apps/v1
kind: Deployment
metadata:
  name: exporter-${suffix}
spec:
  selector:
    matchLabels: {app: exporter}
  template:
    metadata:
      labels: {app: exporter}
      annotations:
        container.apparmor.security.beta.${domain}/munge: runtime/default
    spec:
      containers:
        - name: exporter
          image: busybox:1.36
`,
        );
        const refused = await kubectl(["create", "-f", deployment]);
        assert.notEqual(refused.code, 0, refused.stdout);
        assert.ok(
          refused.stderr.includes(
            `The Deployment "exporter-${suffix}" is invalid: spec.template.annotations[container.apparmor.security.beta.${domain}/munge]: Invalid value: "munge": container not found`,
          ),
          refused.stderr,
        );

        const job = join(server().dataDir, `job-${suffix}.yaml`);
        writeFileSync(
          job,
          `apiVersion: batch/v1
kind: Job
metadata:
  name: once-${suffix}
spec:
  template:
    metadata:
      annotations:
        container.seccomp.security.alpha.${domain}/work: unconfined
    spec:
      restartPolicy: Never
      containers:
        - name: work
          image: busybox:1.36
          securityContext:
            seccompProfile: {type: RuntimeDefault}
`,
        );
        const contradicted = await kubectl(["create", "-f", job]);
        assert.notEqual(contradicted.code, 0, contradicted.stdout);
        assert.ok(
          contradicted.stderr.includes(
            `The Job "once-${suffix}" is invalid: spec.template.spec.containers[0].securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match`,
          ),
          contradicted.stderr,
        );

        ok(await kubectl(["run", `costly-${suffix}`, "--image=busybox:1.36"]));
        const cost = await kubectl(["annotate", "pod", `costly-${suffix}`, `controller.${domain}/pod-deletion-cost=+1`]);
        assert.notEqual(cost.code, 0, cost.stdout);
        assert.ok(
          cost.stderr.includes(`metadata.annotations[controller.${domain}/pod-deletion-cost]: Invalid value: "+1": must be a 32bit integer`),
          cost.stderr,
        );
        ok(await kubectl(["annotate", "pod", `costly-${suffix}`, `controller.${domain}/pod-deletion-cost=-5`]));
      });
    }
  });
}
