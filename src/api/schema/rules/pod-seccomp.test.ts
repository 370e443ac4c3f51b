import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiObject } from "../../object.js";
import { seccompMatchErrors } from "./pod-seccomp.js";
import { recordAt } from "./values.js";

type Json = Record<string, unknown>;

const POD = "seccomp.security.alpha.orch.io/pod";
const KEY = "container.seccomp.security.alpha.orch.io/";

function errors(annotations: Record<string, string>, spec: Json, keyDomain = "orch.io"): [string, string][] {
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", annotations }, spec } as ApiObject;
  return seccompMatchErrors(pod.metadata.annotations ?? {}, recordAt(pod, "spec"), "spec", keyDomain).map((error) => [error.field, error.message]);
}
const own = (profile: Json): Json => ({ securityContext: { seccompProfile: profile } });
const type = (path: string): [string, string] => [`${path}.seccompProfile.type`, "Forbidden: seccomp type in annotation and field must match"];

describe("seccompMatchErrors() (kube's validateSeccompAnnotationsAndFields)", () => {
  it("accepts matching annotations and fields (docker/default for RuntimeDefault too)", () => {
    assert.deepEqual(
      errors(
        { [POD]: "runtime/default", [`${KEY}a`]: "docker/default", [`${KEY}b`]: "localhost/p.json", [`${KEY}c`]: "unconfined" },
        {
          ...own({ type: "RuntimeDefault" }),
          containers: [
            { name: "a", ...own({ type: "RuntimeDefault" }) },
            { name: "b", ...own({ type: "Localhost", localhostProfile: "p.json" }) },
            { name: "c", ...own({ type: "Unconfined" }) },
          ],
        },
      ),
      [],
    );
  });

  it("accepts an annotation without its field and a field without its annotation (no sync since kube 1.27)", () => {
    assert.deepEqual(errors({ [POD]: "unconfined", [`${KEY}a`]: "x" }, { containers: [{ name: "a" }, { name: "b", ...own({ type: "Unconfined" }) }] }), []);
  });

  it("refuses the pod's annotation against the pod's field and a container's against its own", () => {
    assert.deepEqual(
      errors(
        { [POD]: "unconfined", [`${KEY}i`]: "runtime/default", [`${KEY}a`]: "localhost/x" },
        {
          ...own({ type: "RuntimeDefault" }),
          initContainers: [{ name: "i", ...own({ type: "Unconfined" }) }],
          containers: [{ name: "a", ...own({ type: "RuntimeDefault" }) }],
        },
      ),
      [type("spec.securityContext"), type("spec.initContainers[0].securityContext"), type("spec.containers[0].securityContext")],
    );
  });

  it("does not hold a container's annotation to the pod's field", () => {
    assert.deepEqual(errors({ [`${KEY}a`]: "unconfined" }, { ...own({ type: "RuntimeDefault" }), containers: [{ name: "a" }] }), []);
  });

  it("refuses another Localhost profile name, and a Localhost field against a non-localhost annotation", () => {
    assert.deepEqual(
      errors(
        { [`${KEY}a`]: "localhost/y", [`${KEY}b`]: "runtime/default" },
        {
          containers: [
            { name: "a", ...own({ type: "Localhost", localhostProfile: "x" }) },
            { name: "b", ...own({ type: "Localhost", localhostProfile: "x" }) },
          ],
        },
      ),
      [
        ["spec.containers[0].securityContext.seccompProfile.localhostProfile", "Forbidden: seccomp profile in annotation and field must match"],
        type("spec.containers[1].securityContext"),
      ],
    );
  });

  it("reads the annotations of the profile's key domain", () => {
    const spec = { ...own({ type: "RuntimeDefault" }), containers: [{ name: "a" }] };
    assert.deepEqual(errors({ [POD]: "unconfined" }, spec, "kubernetes.io"), []);
    assert.deepEqual(errors({ "seccomp.security.alpha.kubernetes.io/pod": "unconfined" }, spec, "kubernetes.io"), [type("spec.securityContext")]);
  });
});
