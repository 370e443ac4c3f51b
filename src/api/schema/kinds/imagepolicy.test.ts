import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiObject } from "../../object.js";
import { apiGroup, KUBERNETES_PROFILE, ORCH_PROFILE } from "../../profile.js";
import { builtinCatalogue } from "../catalogue.js";
import { objectSchemaFor } from "../object-schema.js";

describe("imagepolicy v1alpha1 ImageReview (exchanged with the image policy webhook, not served)", () => {
  for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
    const group = apiGroup(profile, "imagepolicy");
    const schema = objectSchemaFor(builtinCatalogue(profile), { group, version: "v1alpha1", kind: "ImageReview" });

    it(`has a schema and field numbers under the ${profile.name} profile`, () => {
      assert.ok(schema !== undefined);
      const shape = builtinCatalogue(profile).protoShape(group, "v1alpha1", "ImageReview");
      assert.equal(shape?.fields.get("spec")?.number, 2);
      assert.equal(shape?.fields.get("spec")?.shape?.fields.get("namespace")?.number, 3);
      assert.equal(shape?.fields.get("status")?.shape?.fields.get("reason")?.number, 2);
    });

    it(`accepts a review as the webhook exchanges it and names bad fields (${profile.name})`, () => {
      assert.ok(schema !== undefined);
      const review: ApiObject = {
        apiVersion: `${group}/v1alpha1`,
        kind: "ImageReview",
        metadata: {},
        spec: {
          containers: [{ image: "registry.example.com/app:1" }],
          annotations: { [`team.image-policy.${profile.keyDomain}/ticket`]: "1234" },
          namespace: "default",
        },
        status: { allowed: false, reason: "image not signed" },
      };
      assert.deepEqual(schema.validate(review, undefined), []);
      assert.deepEqual(schema.unknownFields(review, { prune: false }), []);
      const bad: ApiObject = { ...review, spec: { containers: [{ image: 7 }] }, status: { reason: "no verdict" } };
      assert.deepEqual(
        schema
          .validate(bad, undefined)
          .map((error) => `${error.type} ${error.field}`)
          .sort(),
        ["FieldValueRequired status.allowed", "FieldValueTypeInvalid spec.containers[0].image"].sort(),
      );
      assert.deepEqual(schema.unknownFields({ ...review, spec: { namespace: "default", podName: "x" } }, { prune: false }), ["spec.podName"]);
    });
  }
});
