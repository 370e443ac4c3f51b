import {
  atomic,
  bool,
  double,
  enumOf,
  freeForm,
  int32,
  int64,
  listMap,
  mapOf,
  obj,
  ref,
  req,
  str,
  strings,
  time,
  withDefault,
  type SchemaNode,
} from "../node.js";
import type { KindDeclaration } from "./kind-declaration.js";
import { resource } from "./meta.js";

/**
 * apiextensions.<apiDomain>/v1 CustomResourceDefinition. JSONSchemaProps names kube's vendor
 * extensions as properties, so its definition is built with the profile's extension prefixes.
 */

const props = (): SchemaNode => ref("apiextensions.v1.JSONSchemaProps");
/**
 * kube's `JSON`: any JSON value (a string enum member, a default of any type, an example). Also
 * `JSONSchemaPropsOrBool` and `JSONSchemaPropsOrArray`, which take a schema or a boolean / a list.
 */
const json = (): SchemaNode => ({
  description: "JSON represents any valid JSON value. These types are supported: bool, int64, float64, string, []interface{}, map[string]interface{} and nil.",
  preserveUnknownFields: true,
});

function jsonSchemaProps(extensionPrefixes: readonly string[]): SchemaNode {
  const extensions: Record<string, SchemaNode> = {};
  for (const prefix of extensionPrefixes) {
    extensions[`${prefix}embedded-resource`] = bool();
    extensions[`${prefix}int-or-string`] = bool();
    extensions[`${prefix}list-map-keys`] = strings();
    extensions[`${prefix}list-type`] = str();
    extensions[`${prefix}map-type`] = str();
    extensions[`${prefix}preserve-unknown-fields`] = bool();
    extensions[`${prefix}validations`] = listMap(
      obj({ fieldPath: str(), message: str(), messageExpression: str(), optionalOldSelf: bool(), reason: str(), rule: req(str()) }),
      ["rule"],
      { patch: true },
    );
  }
  return obj(
    {
      $ref: str(),
      $schema: str(),
      additionalItems: json(),
      additionalProperties: json(),
      allOf: atomic(props()),
      anyOf: atomic(props()),
      default: json(),
      definitions: mapOf(props()),
      dependencies: mapOf(json()),
      description: str(),
      enum: atomic(json()),
      example: json(),
      exclusiveMaximum: bool(),
      exclusiveMinimum: bool(),
      externalDocs: obj({ description: str(), url: str() }),
      format: str(),
      id: str(),
      items: json(),
      maxItems: int64(),
      maxLength: int64(),
      maxProperties: int64(),
      maximum: double(),
      minItems: int64(),
      minLength: int64(),
      minProperties: int64(),
      minimum: double(),
      multipleOf: double(),
      not: props(),
      nullable: bool(),
      oneOf: atomic(props()),
      pattern: str(),
      patternProperties: mapOf(props()),
      properties: mapOf(props()),
      required: strings(),
      title: str(),
      type: str(),
      uniqueItems: bool(),
      ...extensions,
    },
    { description: "A JSON-Schema following Specification Draft 4." },
  );
}

const WEBHOOK_CLIENT_CONFIG = obj({
  caBundle: { type: "string", format: "byte" },
  // kube's apiextensions SetDefaults_ServiceReference: port 443.
  service: obj({ name: req(str()), namespace: req(str()), path: str(), port: withDefault(int32(), 443) }),
  url: str(),
});

export function apiextensionsDefinitions(extensionPrefixes: readonly string[]): Record<string, SchemaNode> {
  return {
    "apiextensions.v1.JSONSchemaProps": jsonSchemaProps(extensionPrefixes),
    "apiextensions.v1.CustomResourceDefinitionNames": obj({
      categories: strings(),
      kind: req(str()),
      listKind: str(),
      plural: req(str()),
      shortNames: strings(),
      singular: str(),
    }),
    "apiextensions.v1.CustomResourceDefinition": resource("CustomResourceDefinition describes a custom resource the server can serve.", {
      spec: req(
        obj({
          conversion: obj({
            strategy: req(enumOf(["None", "Webhook"])),
            webhook: obj({ clientConfig: WEBHOOK_CLIENT_CONFIG, conversionReviewVersions: strings() }),
          }),
          group: req(str("The API group of the custom resources.")),
          names: req(ref("apiextensions.v1.CustomResourceDefinitionNames")),
          preserveUnknownFields: bool(),
          // Values checked by the kind's validator with kube's texts (an empty scope is Required once, not also Unsupported).
          scope: req(str("Cluster or Namespaced. Required in v1.")),
          versions: req(atomic(ref("apiextensions.v1.CustomResourceDefinitionVersion"))),
        }),
      ),
      status: obj({
        // Generated manifests carry `acceptedNames: {kind: "", plural: ""}`: the names are not required here.
        acceptedNames: obj({ categories: strings(), kind: str(), listKind: str(), plural: str(), shortNames: strings(), singular: str() }),
        conditions: listMap(obj({ lastTransitionTime: time(), message: str(), reason: str(), status: req(str()), type: req(str()) }), ["type"]),
        storedVersions: strings(),
      }),
    }),
    "apiextensions.v1.CustomResourceDefinitionVersion": obj({
      additionalPrinterColumns: atomic(obj({ description: str(), format: str(), jsonPath: req(str()), name: req(str()), priority: int32(), type: req(str()) })),
      deprecated: bool(),
      deprecationWarning: str(),
      name: req(str()),
      schema: obj({ openAPIV3Schema: props() }),
      selectableFields: atomic(obj({ jsonPath: req(str()) })),
      served: req(bool()),
      storage: req(bool()),
      subresources: obj({
        scale: obj({ labelSelectorPath: str(), specReplicasPath: req(str()), statusReplicasPath: req(str()) }),
        status: freeForm(),
      }),
    }),
  };
}

export const APIEXTENSIONS_KINDS: readonly KindDeclaration[] = [
  { group: "apiextensions", domain: true, version: "v1", kind: "CustomResourceDefinition", id: "apiextensions.v1.CustomResourceDefinition" },
];
