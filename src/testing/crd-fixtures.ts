import { ORCH_PROFILE } from "../api/profile.js";

/**
 * CustomResourceDefinitions shaped like controller-gen output, for tests and the `crd` bench:
 * string enums, defaults of every JSON type, patterns, bounds, list-map and set markers,
 * int-or-string, preserve-unknown-fields, embedded resources, CEL rules, several versions,
 * status and scale sub-resources, printer columns and selectable fields. `padding` adds nested,
 * described properties until the schema is about that many bytes (real operators' CRDs run to
 * hundreds of KB).
 */
export interface CrdFixtureOptions {
  readonly group: string;
  readonly plural: string;
  readonly kind: string;
  readonly apiextensionsGroup: string;
  readonly scope?: "Namespaced" | "Cluster";
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  /** Approximate size of the whole definition in bytes, split over its two versions (default: no padding). */
  readonly padding?: number;
}

type Json = Record<string, unknown>;

/** kube's extension spelling, which CRDs written for kube use (the profile's first prefix). */
const X = ORCH_PROFILE.openApiExtensionPrefixes[0] ?? "";

/** A nested, described object of `depth` levels, each with a few typed fields (controller-gen's descriptions are long). */
function nested(depth: number, index: number): Json {
  const description = `Field ${index} at depth ${depth}. ${"Controller-gen copies the Go doc comment of every field into the schema, so descriptions are long. ".repeat(2)}`;
  const properties: Json = {
    name: { type: "string", description, maxLength: 253 },
    mode: { type: "string", description, enum: ["Auto", "Manual", "Disabled"], default: "Auto" },
    count: { type: "integer", format: "int32", description, minimum: 0, default: 1 },
    ratio: { type: "number", description },
    enabled: { type: "boolean", description, default: false },
  };
  if (depth > 0) properties["child"] = nested(depth - 1, index);
  return { type: "object", description, properties };
}

export function crdFixture(options: CrdFixtureOptions): Json {
  const { group, plural, kind } = options;
  const padding: Json = {};
  const target = (options.padding ?? 0) / 2;
  for (let index = 0; JSON.stringify(padding).length < target; index++) padding[`extension${index}`] = nested(4, index);
  const spec = (withRules: boolean): Json => ({
    type: "object",
    description: `${kind}Spec defines the desired state of ${kind}.`,
    required: ["image"],
    properties: {
      image: { type: "string", description: "Container image to run.", minLength: 1, pattern: "^[a-z0-9./:-]+$" },
      replicas: { type: "integer", format: "int32", description: "Desired replicas.", minimum: 0, maximum: 100, default: 1 },
      mode: { type: "string", description: "How updates roll out.", enum: ["Rolling", "Recreate"], default: "Rolling" },
      port: { [`${X}int-or-string`]: true, description: "Port number or name." },
      labels: { type: "object", additionalProperties: { type: "string" }, default: { managed: "true" } },
      tags: { type: "array", items: { type: "string" }, [`${X}list-type`]: "set", default: [] },
      ports: {
        type: "array",
        [`${X}list-type`]: "map",
        [`${X}list-map-keys`]: ["name"],
        items: {
          type: "object",
          required: ["name"],
          properties: { name: { type: "string" }, port: { type: "integer" }, protocol: { type: "string", default: "TCP", enum: ["TCP", "UDP"] } },
        },
      },
      schedule: { type: "string", format: "date-time", nullable: true },
      settings: { type: "object", [`${X}preserve-unknown-fields`]: true },
      template: { type: "object", [`${X}embedded-resource`]: true, [`${X}preserve-unknown-fields`]: true },
      ratio: { type: "number", default: 0.5 },
      paused: { type: "boolean", default: false },
      extensions: { type: "object", properties: padding },
    },
    ...(withRules
      ? {
          [`${X}validations`]: [
            { rule: "self.replicas <= 50 || self.mode == 'Recreate'", message: "more than 50 replicas need mode Recreate", reason: "FieldValueForbidden" },
            { rule: "self.image == oldSelf.image || self.paused", messageExpression: "'image may change only while paused'", fieldPath: ".image" },
          ],
        }
      : {}),
  });
  const status: Json = {
    type: "object",
    properties: {
      replicas: { type: "integer" },
      selector: { type: "string" },
      phase: { type: "string", enum: ["Pending", "Running", "Failed"] },
      conditions: {
        type: "array",
        [`${X}list-type`]: "map",
        [`${X}list-map-keys`]: ["type"],
        items: {
          type: "object",
          required: ["type", "status"],
          properties: { type: { type: "string" }, status: { type: "string", enum: ["True", "False", "Unknown"] } },
        },
      },
    },
  };
  const version = (name: string, storage: boolean, extra: Json): Json => ({
    name,
    served: true,
    storage,
    schema: {
      openAPIV3Schema: {
        type: "object",
        description: `${kind} is the Schema for the ${plural} API.`,
        properties: {
          apiVersion: { type: "string" },
          kind: { type: "string" },
          metadata: { type: "object" },
          spec: spec(storage),
          status,
        },
      },
    },
    subresources: { status: {}, scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".status.selector" } },
    additionalPrinterColumns: [
      { name: "Image", type: "string", jsonPath: ".spec.image", description: "The image." },
      { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" },
      { name: "Phase", type: "string", jsonPath: ".status.phase", priority: 1 },
      { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
    ],
    selectableFields: [{ jsonPath: ".spec.mode" }],
    ...extra,
  });
  return {
    apiVersion: `${options.apiextensionsGroup}/v1`,
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}`, annotations: { "controller-gen.kubebuilder.io/version": "v0.14.0" } },
    spec: {
      group,
      names: {
        kind,
        listKind: `${kind}List`,
        plural,
        singular: kind.toLowerCase(),
        shortNames: options.shortNames ?? [],
        categories: options.categories ?? [],
      },
      scope: options.scope ?? "Namespaced",
      versions: [
        version("v1", true, {}),
        version("v1beta1", false, { deprecated: true, deprecationWarning: `${group}/v1beta1 ${kind} is deprecated; use v1` }),
      ],
    },
    status: { acceptedNames: { kind: "", plural: "" }, conditions: [], storedVersions: [] },
  };
}
