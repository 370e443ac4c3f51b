import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiObject } from "../../object.js";
import { appArmorAnnotationErrors, appArmorAnnotationForProfile, appArmorMatchErrors, appArmorProfileForAnnotation } from "./pod-apparmor.js";
import { recordAt } from "./values.js";

type Json = Record<string, unknown>;

const KEY = "container.apparmor.security.beta.orch.io/";

function pod(annotations: Record<string, string>, spec: Json): ApiObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "p", annotations }, spec } as ApiObject;
}

describe("AppArmor annotation values (kube 1.30)", () => {
  const pairs: [string, Json][] = [
    ["runtime/default", { type: "RuntimeDefault" }],
    ["unconfined", { type: "Unconfined" }],
    ["localhost/deny-write", { type: "Localhost", localhostProfile: "deny-write" }],
  ];
  for (const [value, profile] of pairs) {
    it(`reads ${value} as ${String(profile["type"])} and writes it back`, () => {
      assert.deepEqual(appArmorProfileForAnnotation(value), profile);
      assert.equal(appArmorAnnotationForProfile(profile), value);
    });
  }
  it("reads no profile from an unknown, empty-named, padded or over-long value", () => {
    for (const value of ["", "Unconfined", "localhost/", "localhost/ x", `localhost/${"a".repeat(4096)}`])
      assert.equal(appArmorProfileForAnnotation(value), undefined);
    assert.deepEqual(appArmorProfileForAnnotation(`localhost/${"a".repeat(4095)}`), { type: "Localhost", localhostProfile: "a".repeat(4095) });
  });
});

describe("appArmorMatchErrors() (kube's validateAppArmorAnnotationsAndFieldsMatchOnCreate)", () => {
  const type = (path: string): [string, string] => [
    `${path}.securityContext.appArmorProfile.type`,
    "Forbidden: apparmor type in annotation and field must match",
  ];
  const name = (path: string): [string, string] => [
    `${path}.securityContext.appArmorProfile.localhostProfile`,
    "Forbidden: apparmor profile in annotation and field must match",
  ];
  function errors(annotations: Record<string, string>, spec: Json): [string, string][] {
    return appArmorMatchErrors(pod(annotations, spec), "orch.io").map((error) => [error.field, error.message]);
  }
  const own = (profile: Json): Json => ({ securityContext: { appArmorProfile: profile } });

  it("accepts matching annotations and fields", () => {
    assert.deepEqual(
      errors(
        { [`${KEY}a`]: "runtime/default", [`${KEY}b`]: "localhost/x", [`${KEY}c`]: "unconfined" },
        {
          containers: [
            { name: "a", ...own({ type: "RuntimeDefault" }) },
            { name: "b", ...own({ type: "Localhost", localhostProfile: "x" }) },
            { name: "c", ...own({ type: "Unconfined" }) },
          ],
        },
      ),
      [],
    );
  });

  it("refuses a different type, at the container's path, for every container list", () => {
    assert.deepEqual(
      errors(
        { [`${KEY}i`]: "unconfined", [`${KEY}a`]: "localhost/x", [`${KEY}b`]: "runtime/default" },
        {
          initContainers: [{ name: "i", ...own({ type: "RuntimeDefault" }) }],
          containers: [
            { name: "a", ...own({ type: "Unconfined" }) },
            { name: "b", ...own({ type: "Localhost", localhostProfile: "x" }) },
          ],
        },
      ),
      [type("spec.initContainers[0]"), type("spec.containers[0]"), type("spec.containers[1]")],
    );
  });

  it("refuses another Localhost profile name", () => {
    assert.deepEqual(errors({ [`${KEY}a`]: "localhost/y" }, { containers: [{ name: "a", ...own({ type: "Localhost", localhostProfile: "x" }) }] }), [
      name("spec.containers[0]"),
    ]);
  });

  it("compares with the pod's profile when the container has none", () => {
    assert.deepEqual(
      errors({ [`${KEY}a`]: "runtime/default" }, { securityContext: { appArmorProfile: { type: "Unconfined" } }, containers: [{ name: "a" }] }),
      [type("spec.containers[0]")],
    );
  });

  it("says nothing without an annotation, without a profile, or for a Windows pod", () => {
    assert.deepEqual(errors({}, { containers: [{ name: "a", ...own({ type: "Unconfined" }) }] }), []);
    assert.deepEqual(errors({ [`${KEY}a`]: "bogus" }, { containers: [{ name: "a" }] }), []);
    assert.deepEqual(errors({ [`${KEY}a`]: "runtime/default" }, { os: { name: "windows" }, containers: [{ name: "a", ...own({ type: "Unconfined" }) }] }), []);
  });
});

describe("appArmorAnnotationErrors() (kube's ValidateAppArmorPodAnnotations)", () => {
  function errors(annotations: Record<string, string>, spec: Json, keyDomain = "orch.io"): [string, string][] {
    const object = pod(annotations, spec);
    return appArmorAnnotationErrors(object.metadata.annotations ?? {}, recordAt(object, "spec"), "metadata.annotations", keyDomain).map((error) => [
      error.field,
      error.message,
    ]);
  }
  const spec = { initContainers: [{ name: "i" }], containers: [{ name: "a" }], ephemeralContainers: [{ name: "e" }] };

  it("accepts the known values, an empty one and any localhost/ name, for init, regular and ephemeral containers", () => {
    assert.deepEqual(
      errors({ [`${KEY}i`]: "runtime/default", [`${KEY}a`]: "localhost/", [`${KEY}e`]: "", other: "x", "apparmor.security.beta.orch.io/a": "?" }, spec),
      [],
    );
    assert.deepEqual(errors({ [`${KEY}a`]: "unconfined" }, spec), []);
  });

  it("refuses an annotation naming no container of the pod", () => {
    assert.deepEqual(errors({ [`${KEY}b`]: "runtime/default" }, spec), [[`metadata.annotations[${KEY}b]`, 'Invalid value: "b": container not found']]);
  });

  it("refuses a value that is no profile, after the container check of the same annotation", () => {
    assert.deepEqual(errors({ [`${KEY}a`]: "RuntimeDefault", [`${KEY}z`]: "x" }, spec), [
      [`metadata.annotations[${KEY}a]`, 'Invalid value: "RuntimeDefault": invalid AppArmor profile name: "RuntimeDefault"'],
      [`metadata.annotations[${KEY}z]`, 'Invalid value: "z": container not found'],
      [`metadata.annotations[${KEY}z]`, 'Invalid value: "x": invalid AppArmor profile name: "x"'],
    ]);
  });

  it("reads the annotations of the profile's key domain only", () => {
    assert.deepEqual(errors({ [`${KEY}b`]: "x" }, spec, "kubernetes.io"), []);
    assert.deepEqual(errors({ "container.apparmor.security.beta.kubernetes.io/b": "runtime/default" }, spec, "kubernetes.io"), [
      ["metadata.annotations[container.apparmor.security.beta.kubernetes.io/b]", 'Invalid value: "b": container not found'],
    ]);
  });

  it("holds Windows pods to it too", () => {
    assert.equal(errors({ [`${KEY}b`]: "runtime/default" }, { ...spec, os: { name: "windows" } }).length, 1);
  });
});
