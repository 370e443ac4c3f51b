import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiObject } from "../../object.js";
import { validateCustomResourceDefinition } from "./custom-resource-definitions.js";

type Json = Record<string, unknown>;

const SPEC_SCHEMA = { type: "object", properties: { spec: { type: "object", properties: { a: { type: "string" } } } } };

function version(name: string, extra: Json = {}): Json {
  return { name, served: true, storage: name === "v1", schema: { openAPIV3Schema: SPEC_SCHEMA }, ...extra };
}

function crd(spec: Json = {}, name = "widgets.example.com"): ApiObject {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
      versions: [version("v1")],
      ...spec,
    },
  } as ApiObject;
}

function messages(object: ApiObject, old?: ApiObject): string[] {
  return validateCustomResourceDefinition(object, old).map((error) => `${error.field}: ${error.message}`);
}

/** A schema whose spec has one property `x` with the given schema. */
function withX(x: Json): Json {
  return { versions: [version("v1", { schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { x } } } } } })] };
}

const X = "spec.validation.openAPIV3Schema.properties[spec].properties[x]";
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

describe("validateCustomResourceDefinition() words and places errors as kube 1.30's apiextensions validation", () => {
  it("accepts a well-formed definition", () => assert.deepEqual(messages(crd()), []));

  it("reports a schema every version shares once, at spec.validation (kube's internal form), and a differing one per version", () => {
    const untyped = { type: "object", properties: { spec: { type: "object", properties: { x: { description: "no type" } } } } };
    const shared = { schema: { openAPIV3Schema: untyped } };
    assert.deepEqual(messages(crd({ versions: [version("v1", shared), version("v2", shared)] })), [
      `${X}.type: Required value: must not be empty for specified object fields`,
    ]);
    assert.deepEqual(messages(crd({ versions: [version("v1", shared), version("v2")] })), [
      "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[x].type: Required value: must not be empty for specified object fields",
    ]);
  });

  it("names: DNS-1035 plural, singular, short names and categories; kind and listKind in mixed case; kind ≠ listKind", () => {
    assert.deepEqual(
      messages(crd({ names: { plural: "widgets", singular: "Widget", kind: "Wid get", listKind: "Wid get", shortNames: ["W_1"], categories: ["All"] } })),
      [
        `spec.names.singular: Invalid value: "Widget": ${DNS1035}`,
        `spec.names.kind: Invalid value: "Wid get": may have mixed case, but should otherwise match: ${DNS1035}`,
        `spec.names.listKind: Invalid value: "Wid get": may have mixed case, but should otherwise match: ${DNS1035}`,
        `spec.names.shortNames[0]: Invalid value: "W_1": ${DNS1035}`,
        `spec.names.categories[0]: Invalid value: "All": ${DNS1035}`,
        'spec.names.listKind: Invalid value: "Wid get": kind and listKind may not be the same',
      ],
    );
  });

  it("versions: DNS-1035 names, unique names and one storage version with kube's Go rendering of the list", () => {
    assert.deepEqual(messages(crd({ versions: [version("v1"), version("V2.0")] })), [`spec.versions[1].name: Invalid value: "V2.0": ${DNS1035}`]);
    const go = (name: string, storage: boolean): string =>
      `apiextensions.CustomResourceDefinitionVersion{Name:"${name}", Served:true, Storage:${storage}, Deprecated:false, DeprecationWarning:(*string)(nil), ` +
      "Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), " +
      "AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}";
    assert.deepEqual(messages(crd({ versions: [version("v1"), version("v1", { storage: false })] })), [
      `spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{${go("v1", true)}, ${go("v1", false)}}: must contain unique version names`,
    ]);
    assert.deepEqual(messages(crd({ versions: [version("v1"), version("v2", { storage: true })] })), [
      `spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{${go("v1", true)}, ${go("v2", true)}}: must have exactly one version marked as storage version`,
    ]);
    const noVersions = crd();
    delete (noVersions["spec"] as Json)["versions"];
    assert.deepEqual(messages(noVersions), [
      "spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion(nil): must have exactly one version marked as storage version",
    ]);
    assert.deepEqual(messages(crd({ versions: [version("v1", { deprecationWarning: "old" })] })), [
      'spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions',
    ]);
    // kube tests unicode.IsPrint first: a tab or a no-break space is "non-printable" (at its byte offset).
    const deprecated = (warning: string): Json => version("v1", { deprecated: true, deprecationWarning: warning });
    assert.deepEqual(messages(crd({ versions: [deprecated("é\told")] })), [
      'spec.versions[0].deprecationWarning: Invalid value: "é\\told": must only contain printable UTF-8 characters; non-printable character found at index 2',
    ]);
    assert.deepEqual(messages(crd({ versions: [deprecated("old\u00a0version")] })), [
      'spec.versions[0].deprecationWarning: Invalid value: "old\u00a0version": must only contain printable UTF-8 characters; non-printable character found at index 3',
    ]);
    assert.deepEqual(messages(crd({ versions: [deprecated("v1 is deprecated; use v2 ✓")] })), []);
  });

  it("group, scope and preserveUnknownFields", () => {
    assert.deepEqual(messages(crd({ group: "Example_.com" }, "widgets.Example_.com")), [
      `spec.group: Invalid value: "Example_.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
    assert.deepEqual(messages(crd({ scope: "Global" })), ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']);
    assert.deepEqual(messages(crd({ preserveUnknownFields: true })), [
      "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
    ]);
  });

  it("schema keywords: types, uniqueItems, the root's type, defaults in top-level metadata, list-map keys and nullable set items", () => {
    assert.deepEqual(messages(crd(withX({ type: "foo" }))), [
      `${X}.type: Unsupported value: "foo": supported values: "array", "boolean", "integer", "number", "object", "string"`,
    ]);
    assert.deepEqual(messages(crd(withX({ type: "array", items: { type: "string" }, uniqueItems: true }))), [
      `${X}.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
    ]);
    assert.deepEqual(messages(crd(withX({ type: "array", items: { properties: {} } }))), [
      `${X}.items.type: Required value: must not be empty for specified array items`,
    ]);
    assert.deepEqual(messages(crd({ versions: [version("v1", { schema: { openAPIV3Schema: { properties: { spec: { type: "object" } } } } })] })), [
      "spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root",
    ]);
    assert.deepEqual(messages(crd({ versions: [version("v1", { schema: { openAPIV3Schema: { type: "string" } } })] })), [
      'spec.validation.openAPIV3Schema.type: Invalid value: "string": must be object at the root',
    ]);
    const metadata = { type: "object", properties: { name: { type: "string", default: "a" } } };
    assert.deepEqual(messages(crd({ versions: [version("v1", { schema: { openAPIV3Schema: { type: "object", properties: { metadata } } } })] })), [
      "spec.validation.openAPIV3Schema.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata",
    ]);
    const listMap = (name: Json, required: string[] = []): Json => ({
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
      items: { type: "object", required, properties: { name } },
    });
    assert.deepEqual(messages(crd(withX(listMap({ type: "string" })))), [
      `${X}.items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
    ]);
    assert.deepEqual(messages(crd(withX(listMap({ type: "string", nullable: true }, ["name"])))), [
      `${X}.items.properties[name].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable`,
    ]);
    assert.deepEqual(messages(crd(withX({ type: "array", "x-kubernetes-list-type": "set", items: { type: "string", nullable: true } }))), [
      `${X}.items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set`,
    ]);
  });

  it("printer columns and the scale subresource, hoisted to the spec when every version shares them", () => {
    const columns = [
      { name: "A", type: "foo", jsonPath: ".spec.a" },
      { name: "B", type: "string", jsonPath: "spec.a" },
    ];
    assert.deepEqual(messages(crd({ versions: [version("v1", { additionalPrinterColumns: columns })] })), [
      'spec.additionalPrinterColumns[0].type: Invalid value: "foo": must be one of boolean,date,integer,number,string',
      'spec.additionalPrinterColumns[1].JSONPath: Invalid value: "spec.a": must be a simple json path starting with .',
    ]);
    const scale = { scale: { specReplicasPath: "spec.replicas", statusReplicasPath: ".spec.replicas" } };
    assert.deepEqual(messages(crd({ versions: [version("v1", { subresources: scale })] })), [
      'spec.subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with .',
      'spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.replicas": should be a json path under .status',
    ]);
  });

  it("conversion webhook at kube's internal paths", () => {
    const webhook = (webhook: Json): Json => ({ conversion: { strategy: "Webhook", webhook } });
    assert.deepEqual(messages(crd(webhook({ clientConfig: { url: "https://example.com/convert" } }))), [
      "spec.conversion.conversionReviewVersions: Required value",
    ]);
    assert.deepEqual(messages(crd(webhook({ conversionReviewVersions: ["v1"] }))), [
      "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook",
    ]);
    assert.deepEqual(messages(crd(webhook({ conversionReviewVersions: ["v9"], clientConfig: { url: "http://example.com/convert" } }))), [
      `spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'spec.conversion.conversionReviewVersions: Invalid value: []string{"v9"}: must include at least one of v1, v1beta1',
    ]);
  });
});

describe("validateCustomResourceDefinition() API approval of protected groups", () => {
  const FIELD = "metadata.annotations[api-approved.kubernetes.io]";
  const SEE = "see https://github.com/kubernetes/enhancements/pull/1111";
  function protectedCrd(annotation?: string): ApiObject {
    const object = crd({ group: "gateway.networking.k8s.io" }, "widgets.gateway.networking.k8s.io");
    return annotation === undefined
      ? object
      : ({ ...object, metadata: { ...object.metadata, annotations: { "api-approved.kubernetes.io": annotation } } } as ApiObject);
  }

  it("refuses a k8s.io group without the annotation, or with neither a URL nor 'unapproved…', as kube", () => {
    assert.deepEqual(messages(protectedCrd()), [
      `${FIELD}: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", ${SEE}`,
    ]);
    assert.deepEqual(messages(protectedCrd("soon")), [
      `${FIELD}: Invalid value: "soon": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", ${SEE}`,
    ]);
  });

  it("accepts a URL or an 'unapproved' reason, other groups without it, and an update that leaves the state as it was", () => {
    assert.deepEqual(messages(protectedCrd("https://github.com/kubernetes-sigs/gateway-api/pull/4530")), []);
    assert.deepEqual(messages(protectedCrd("unapproved, experimental-only")), []);
    assert.deepEqual(messages(crd()), []);
    assert.deepEqual(messages(protectedCrd("soon"), protectedCrd("later")), []);
    assert.equal(messages(protectedCrd(), protectedCrd("soon")).length, 1);
  });
});
