import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { crdFromV1beta1 } from "./crd-v1beta1.js";

const SCHEMA = { openAPIV3Schema: { type: "object" } };

describe("crdFromV1beta1()", () => {
  test("pushes hoisted validation, subresources and printer columns down to every version, renaming JSONPath", () => {
    const v1 = crdFromV1beta1(
      {
        apiVersion: "apiextensions.k8s.io/v1beta1",
        kind: "CustomResourceDefinition",
        metadata: { name: "a.b.c" },
        spec: {
          group: "b.c",
          version: "v1",
          validation: SCHEMA,
          subresources: { status: {} },
          additionalPrinterColumns: [{ name: "N", type: "string", JSONPath: ".spec.n" }],
          versions: [
            { name: "v1", served: true, storage: true },
            { name: "v2", served: true, storage: false },
          ],
          preserveUnknownFields: false,
        },
      },
      "apiextensions.k8s.io/v1",
    );
    assert.equal(v1["apiVersion"], "apiextensions.k8s.io/v1");
    assert.deepEqual(v1["spec"], {
      group: "b.c",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: SCHEMA,
          subresources: { status: {} },
          additionalPrinterColumns: [{ name: "N", type: "string", jsonPath: ".spec.n" }],
        },
        {
          name: "v2",
          served: true,
          storage: false,
          schema: SCHEMA,
          subresources: { status: {} },
          additionalPrinterColumns: [{ name: "N", type: "string", jsonPath: ".spec.n" }],
        },
      ],
    });
  });

  test("keeps a version's own fields, the single version without a list, preserveUnknownFields: true and webhook conversion", () => {
    const v1 = crdFromV1beta1(
      {
        apiVersion: "apiextensions.k8s.io/v1beta1",
        spec: {
          group: "b.c",
          version: "v1",
          preserveUnknownFields: true,
          conversion: { strategy: "Webhook", webhookClientConfig: { url: "https://x" }, conversionReviewVersions: ["v1"] },
        },
      },
      "apiextensions.k8s.io/v1",
    );
    assert.deepEqual(v1["spec"], {
      group: "b.c",
      versions: [{ name: "v1", served: true, storage: true }],
      preserveUnknownFields: true,
      conversion: { strategy: "Webhook", webhook: { clientConfig: { url: "https://x" }, conversionReviewVersions: ["v1"] } },
    });
    const own = crdFromV1beta1(
      { spec: { validation: SCHEMA, versions: [{ name: "v1", schema: { openAPIV3Schema: { type: "string" } } }] } },
      "apiextensions.k8s.io/v1",
    );
    assert.deepEqual((own["spec"] as { versions: unknown[] }).versions, [{ name: "v1", schema: { openAPIV3Schema: { type: "string" } } }]);
  });
});
