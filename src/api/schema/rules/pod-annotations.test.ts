import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../../testing/in-process.js";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../../profile.js";
import { podSpecificAnnotationErrors, validDeletionCost } from "./pod-annotations.js";

type Json = Record<string, unknown>;

describe("validDeletionCost() (kube's GetDeletionCostFromPodAnnotations)", () => {
  const cases: [string | undefined, boolean][] = [
    [undefined, true],
    ["0", true],
    ["10", true],
    ["-5", true],
    ["-0", true],
    ["-007", true],
    ["2147483647", true],
    ["-2147483648", true],
    ["", false],
    ["+10", false],
    ["008", false],
    ["00", false],
    ["2147483648", false],
    ["-2147483649", false],
    ["1.5", false],
    ["1e3", false],
    [" 1", false],
    ["-", false],
    ["x", false],
  ];
  for (const [value, want] of cases) it(`${JSON.stringify(value)} → ${want}`, () => assert.equal(validDeletionCost(value), want));
});

describe("podSpecificAnnotationErrors() (kube's ValidatePodSpecificAnnotations)", () => {
  const errors = (annotations: Record<string, string>, spec: Json, path = "metadata.annotations", allowInvalidDeletionCost = false) =>
    podSpecificAnnotationErrors(annotations, spec, path, "orch.io", { allowInvalidDeletionCost }).map((error) => `${error.field}: ${error.message}`);
  const spec = { containers: [{ name: "c" }] };

  it("wants a node for the mirror-pod annotation, a canonical int32 deletion cost, seccomp profiles and known AppArmor containers", () => {
    assert.deepEqual(
      errors(
        {
          "orch.io/config.mirror": "hash",
          "controller.orch.io/pod-deletion-cost": "+1",
          "seccomp.security.alpha.orch.io/pod": "foo",
          "container.seccomp.security.alpha.orch.io/c": "localhost/../x",
          "container.apparmor.security.beta.orch.io/nope": "runtime/default",
        },
        spec,
      ),
      [
        'metadata.annotations[orch.io/config.mirror]: Invalid value: "hash": must set spec.nodeName if mirror pod annotation is set',
        'metadata.annotations[controller.orch.io/pod-deletion-cost]: Invalid value: "+1": must be a 32bit integer',
        'metadata.annotations.seccomp.security.alpha.orch.io/pod: Invalid value: "foo": must be a valid seccomp profile',
        "metadata.annotations.container.seccomp.security.alpha.orch.io/c: Invalid value: \"../x\": must not contain '..'",
        'metadata.annotations[container.apparmor.security.beta.orch.io/nope]: Invalid value: "nope": container not found',
      ],
    );
  });

  it("accepts what kube accepts, and an invalid cost kept from the stored pod", () => {
    assert.deepEqual(
      errors(
        {
          "orch.io/config.mirror": "hash",
          "controller.orch.io/pod-deletion-cost": "-100",
          "seccomp.security.alpha.orch.io/pod": "docker/default",
          "container.seccomp.security.alpha.orch.io/c": "localhost/profiles/audit.json",
          "container.apparmor.security.beta.orch.io/c": "unconfined",
          "seccomp.security.alpha.kubernetes.io/pod": "another profile's key: not ours",
        },
        { ...spec, nodeName: "n1" },
      ),
      [],
    );
    assert.deepEqual(errors({ "controller.orch.io/pod-deletion-cost": "many" }, spec, "metadata.annotations", true), []);
    assert.deepEqual(errors({ "seccomp.security.alpha.orch.io/pod": "localhost//abs" }, spec, "spec.template.annotations"), [
      'spec.template.annotations.seccomp.security.alpha.orch.io/pod: Invalid value: "/abs": must be a relative path',
    ]);
  });
});

for (const profile of [KUBERNETES_PROFILE, ORCH_PROFILE]) {
  const domain = profile.keyDomain;
  describe(`pod templates as kube's ValidatePodTemplateSpec judges them (${profile.name} profile)`, () => {
    let server: Awaited<ReturnType<typeof inProcessServer>>;
    before(async () => {
      server = await inProcessServer({ profile });
    });
    after(async () => {
      await server.stop();
    });

    const podSpec = (extra: Json = {}): Json => ({ containers: [{ name: "c", image: "busybox:1.36" }], ...extra });
    const template = (annotations: Record<string, string>, spec: Json = podSpec()): Json => ({
      metadata: { labels: { app: "a" }, annotations },
      spec,
    });
    const deployment = (name: string, annotations: Record<string, string>, spec?: Json): Json => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name },
      spec: { selector: { matchLabels: { app: "a" } }, template: template(annotations, spec) },
    });

    async function refused(path: string, body: Json, message: string): Promise<void> {
      const answer = await server.call("POST", path, { body });
      assert.equal(answer.status, 422, answer.text);
      assert.equal(answer.json["message"], message);
    }

    it("refuses a Deployment whose template's AppArmor annotation names no container, at kube's `spec.template.annotations` path", async () => {
      await refused(
        "/apis/apps/v1/namespaces/default/deployments",
        deployment("exporter", { [`container.apparmor.security.beta.${domain}/munge`]: "runtime/default" }),
        `Deployment.apps "exporter" is invalid: spec.template.annotations[container.apparmor.security.beta.${domain}/munge]: Invalid value: "munge": container not found`,
      );
    });

    it("refuses a template's bad AppArmor value, seccomp value, deletion cost and mirror annotation, in a DaemonSet, a Job, a CronJob and a ReplicaSet", async () => {
      await refused(
        "/apis/apps/v1/namespaces/default/daemonsets",
        { ...deployment("ds", { [`container.apparmor.security.beta.${domain}/c`]: "confined" }), kind: "DaemonSet" },
        `DaemonSet.apps "ds" is invalid: spec.template.annotations[container.apparmor.security.beta.${domain}/c]: Invalid value: "confined": invalid AppArmor profile name: "confined"`,
      );
      await refused(
        "/apis/batch/v1/namespaces/default/jobs",
        {
          apiVersion: "batch/v1",
          kind: "Job",
          metadata: { name: "j" },
          spec: { template: { metadata: { annotations: { [`seccomp.security.alpha.${domain}/pod`]: "foo" } }, spec: podSpec({ restartPolicy: "Never" }) } },
        },
        `Job.batch "j" is invalid: spec.template.annotations.seccomp.security.alpha.${domain}/pod: Invalid value: "foo": must be a valid seccomp profile`,
      );
      await refused(
        "/apis/batch/v1/namespaces/default/cronjobs",
        {
          apiVersion: "batch/v1",
          kind: "CronJob",
          metadata: { name: "cj" },
          spec: {
            schedule: "*/5 * * * *",
            jobTemplate: {
              spec: {
                template: { metadata: { annotations: { [`controller.${domain}/pod-deletion-cost`]: "008" } }, spec: podSpec({ restartPolicy: "OnFailure" }) },
              },
            },
          },
        },
        `CronJob.batch "cj" is invalid: spec.jobTemplate.spec.template.annotations[controller.${domain}/pod-deletion-cost]: Invalid value: "008": must be a 32bit integer`,
      );
      await refused(
        "/apis/apps/v1/namespaces/default/replicasets",
        { ...deployment("rs", { [`${domain}/config.mirror`]: "x" }), kind: "ReplicaSet" },
        `ReplicaSet.apps "rs" is invalid: spec.template.annotations[${domain}/config.mirror]: Invalid value: "x": must set spec.nodeName if mirror pod annotation is set`,
      );
    });

    it("refuses a template whose seccomp annotation contradicts its field, and ephemeral containers in a template", async () => {
      await refused(
        "/apis/apps/v1/namespaces/default/statefulsets",
        {
          ...deployment(
            "ss",
            { [`container.seccomp.security.alpha.${domain}/c`]: "unconfined" },
            { containers: [{ name: "c", image: "busybox:1.36", securityContext: { seccompProfile: { type: "RuntimeDefault" } } }] },
          ),
          kind: "StatefulSet",
        },
        'StatefulSet.apps "ss" is invalid: spec.template.spec.containers[0].securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match',
      );
      await refused(
        "/api/v1/namespaces/default/podtemplates",
        {
          apiVersion: "v1",
          kind: "PodTemplate",
          metadata: { name: "pt" },
          template: { spec: podSpec({ ephemeralContainers: [{ name: "debug", image: "busybox:1.36" }] }) },
        },
        'PodTemplate "pt" is invalid: template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template',
      );
    });

    it("accepts a template with valid annotations matching its fields, and refuses an update that breaks them", async () => {
      const valid = deployment(
        "fine",
        {
          [`container.apparmor.security.beta.${domain}/c`]: "localhost/deny-write",
          [`container.seccomp.security.alpha.${domain}/c`]: "runtime/default",
          [`controller.${domain}/pod-deletion-cost`]: "-10",
        },
        { containers: [{ name: "c", image: "busybox:1.36", securityContext: { seccompProfile: { type: "RuntimeDefault" } } }] },
      );
      const created = await server.call("POST", "/apis/apps/v1/namespaces/default/deployments", { body: valid });
      assert.equal(created.status, 201, created.text);
      const patched = await server.call("PATCH", "/apis/apps/v1/namespaces/default/deployments/fine", {
        headers: { "content-type": "application/merge-patch+json" },
        body: { spec: { template: { metadata: { annotations: { [`container.apparmor.security.beta.${domain}/gone`]: "runtime/default" } } } } },
      });
      assert.equal(patched.status, 422, patched.text);
      assert.match(
        String(patched.json["message"]),
        /spec\.template\.annotations\[container\.apparmor\.security\.beta\.[a-z.]+\/gone\]: Invalid value: "gone": container not found/,
      );
    });

    it("refuses a pod's bad deletion cost, seccomp value and mirror annotation without a node (kube's ValidatePodSpecificAnnotations on create)", async () => {
      const pod = (name: string, annotations: Record<string, string>): Json => ({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, annotations },
        spec: podSpec(),
      });
      await refused(
        "/api/v1/namespaces/default/pods",
        pod("cost", { [`controller.${domain}/pod-deletion-cost`]: "+1" }),
        `Pod "cost" is invalid: metadata.annotations[controller.${domain}/pod-deletion-cost]: Invalid value: "+1": must be a 32bit integer`,
      );
      await refused(
        "/api/v1/namespaces/default/pods",
        pod("seccomp", { [`container.seccomp.security.alpha.${domain}/c`]: "bogus" }),
        `Pod "seccomp" is invalid: metadata.annotations.container.seccomp.security.alpha.${domain}/c: Invalid value: "bogus": must be a valid seccomp profile`,
      );
      await refused(
        "/api/v1/namespaces/default/pods",
        pod("mirror", { [`${domain}/config.mirror`]: "hash" }),
        `Pod "mirror" is invalid: metadata.annotations[${domain}/config.mirror]: Invalid value: "hash": must set spec.nodeName if mirror pod annotation is set`,
      );
    });

    it("lets a pod stored with an invalid deletion cost be updated, as kube's AllowInvalidPodDeletionCost", async () => {
      // A pod as the server writes it (defaults applied), stored with the cost kube's validation now refuses.
      const source = await server.call("POST", "/api/v1/namespaces/default/pods", {
        body: { apiVersion: "v1", kind: "Pod", metadata: { name: "source" }, spec: podSpec() },
      });
      assert.equal(source.status, 201, source.text);
      const metadata = source.json["metadata"] as Json;
      const stored = {
        ...source.json,
        metadata: {
          ...metadata,
          name: "legacy",
          uid: "0f0f0f0f-0000-4000-8000-0000000000e1",
          annotations: { [`controller.${domain}/pod-deletion-cost`]: "many" },
        },
      };
      delete (stored.metadata as Json)["resourceVersion"];
      await server.storage.create("/pods/default/legacy", JSON.stringify(stored));
      const labelled = await server.call("PATCH", "/api/v1/namespaces/default/pods/legacy", {
        headers: { "content-type": "application/merge-patch+json" },
        body: { metadata: { labels: { x: "y" } } },
      });
      assert.equal(labelled.status, 200, labelled.text);
    });
  });
}
