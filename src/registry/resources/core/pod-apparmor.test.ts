import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiObject } from "../../../api/object.js";
import { syncAppArmorOnCreate } from "./pod-apparmor.js";

type Json = Record<string, unknown>;

const KEY = "container.apparmor.security.beta.orch.io/";
const DEPRECATED = (name: string): string => `metadata.annotations[${KEY}${name}]: deprecated since v1.30; use the "appArmorProfile" field instead`;

function pod(annotations: Record<string, string> | undefined, spec: Json): ApiObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "p", ...(annotations === undefined ? {} : { annotations }) }, spec } as ApiObject;
}

/** Runs the sync; answers the pod's annotations, each container's profile by name, and the warnings. */
function synced(annotations: Record<string, string> | undefined, spec: Json): { annotations: unknown; profiles: Json; warnings: string[] } {
  const object = pod(annotations, spec);
  const warnings: string[] = [];
  syncAppArmorOnCreate(object, "orch.io", (message) => warnings.push(message));
  const profiles: Json = {};
  const synced = object["spec"] as Json;
  for (const list of ["initContainers", "containers", "ephemeralContainers"]) {
    for (const container of (synced[list] as Json[] | undefined) ?? []) {
      profiles[String(container["name"])] = (container["securityContext"] as Json | undefined)?.["appArmorProfile"];
    }
  }
  return { annotations: object.metadata.annotations, profiles, warnings };
}

describe("syncAppArmorOnCreate() (kube 1.30's applyAppArmorVersionSkew)", () => {
  const field = (profile: Json): Json => ({ securityContext: { appArmorProfile: profile } });

  it("writes each container's field as its annotation, the three values", () => {
    const result = synced(undefined, {
      containers: [
        { name: "a", image: "i", ...field({ type: "RuntimeDefault" }) },
        { name: "b", image: "i", ...field({ type: "Localhost", localhostProfile: "k8s-deny-write" }) },
        { name: "c", image: "i", ...field({ type: "Unconfined" }) },
      ],
    });
    assert.deepEqual(result.annotations, { [`${KEY}a`]: "runtime/default", [`${KEY}b`]: "localhost/k8s-deny-write", [`${KEY}c`]: "unconfined" });
    assert.deepEqual(result.warnings, []);
  });

  it("writes the pod's profile for containers without their own, init containers included", () => {
    const result = synced(
      { other: "x" },
      {
        securityContext: { appArmorProfile: { type: "RuntimeDefault" } },
        initContainers: [{ name: "init", image: "i" }],
        containers: [
          { name: "a", image: "i" },
          { name: "b", image: "i", ...field({ type: "Unconfined" }) },
        ],
      },
    );
    assert.deepEqual(result.annotations, { other: "x", [`${KEY}init`]: "runtime/default", [`${KEY}a`]: "runtime/default", [`${KEY}b`]: "unconfined" });
    assert.deepEqual(result.profiles, { init: undefined, a: undefined, b: { type: "Unconfined" } });
  });

  it("writes no annotation for a Localhost profile without a name", () => {
    const result = synced(undefined, { containers: [{ name: "a", image: "i", ...field({ type: "Localhost" }) }] });
    assert.equal(result.annotations, undefined);
  });

  it("turns an annotation into the container's field, with kube's deprecation warning", () => {
    const result = synced(
      { [`${KEY}a`]: "runtime/default", [`${KEY}b`]: "localhost/custom", [`${KEY}init`]: "unconfined" },
      {
        initContainers: [{ name: "init", image: "i" }],
        containers: [
          { name: "a", image: "i", securityContext: { runAsUser: 1 } },
          { name: "b", image: "i" },
        ],
      },
    );
    assert.deepEqual(result.profiles, {
      init: { type: "Unconfined" },
      a: { type: "RuntimeDefault" },
      b: { type: "Localhost", localhostProfile: "custom" },
    });
    assert.deepEqual(result.warnings, [DEPRECATED("init"), DEPRECATED("a"), DEPRECATED("b")]);
  });

  it("keeps the other security context fields of a container it writes a field to", () => {
    const object = pod({ [`${KEY}a`]: "runtime/default" }, { containers: [{ name: "a", image: "i", securityContext: { runAsUser: 1 } }] });
    syncAppArmorOnCreate(object, "orch.io");
    assert.deepEqual(((object["spec"] as Json)["containers"] as Json[])[0]?.["securityContext"], { runAsUser: 1, appArmorProfile: { type: "RuntimeDefault" } });
  });

  it("copies no annotation equal to the pod's profile, and does not warn about it", () => {
    const result = synced(
      { [`${KEY}a`]: "unconfined" },
      { securityContext: { appArmorProfile: { type: "Unconfined" } }, containers: [{ name: "a", image: "i" }] },
    );
    assert.deepEqual(result.profiles, { a: undefined });
    assert.deepEqual(result.warnings, []);
  });

  it("copies an annotation that differs from the pod's profile", () => {
    const result = synced(
      { [`${KEY}a`]: "runtime/default" },
      { securityContext: { appArmorProfile: { type: "Unconfined" } }, containers: [{ name: "a", image: "i" }] },
    );
    assert.deepEqual(result.profiles, { a: { type: "RuntimeDefault" } });
    assert.deepEqual(result.warnings, [DEPRECATED("a")]);
  });

  it("copies no annotation that stands for no valid profile, and warns", () => {
    for (const value of ["localhost/", "localhost/ padded", "other", ""]) {
      const result = synced({ [`${KEY}a`]: value }, { containers: [{ name: "a", image: "i" }] });
      assert.deepEqual(result.profiles, { a: undefined }, value);
      assert.deepEqual(result.annotations, { [`${KEY}a`]: value });
      assert.deepEqual(result.warnings, [DEPRECATED("a")], value);
    }
  });

  it("leaves a container with both an annotation and a field as they are", () => {
    const result = synced({ [`${KEY}a`]: "unconfined" }, { containers: [{ name: "a", image: "i", ...field({ type: "RuntimeDefault" }) }] });
    assert.deepEqual(result.annotations, { [`${KEY}a`]: "unconfined" });
    assert.deepEqual(result.profiles, { a: { type: "RuntimeDefault" } });
    assert.deepEqual(result.warnings, []);
  });

  it("leaves Windows pods alone", () => {
    const result = synced({ [`${KEY}a`]: "runtime/default" }, { os: { name: "windows" }, containers: [{ name: "a", image: "i" }] });
    assert.deepEqual(result.profiles, { a: undefined });
    assert.deepEqual(result.warnings, []);
  });

  it("spells the annotation with the key domain it is given", () => {
    const object = pod(undefined, { containers: [{ name: "a", image: "i", ...field({ type: "RuntimeDefault" }) }] });
    syncAppArmorOnCreate(object, "kubernetes.io");
    assert.deepEqual(object.metadata.annotations, { "container.apparmor.security.beta.kubernetes.io/a": "runtime/default" });
  });
});
