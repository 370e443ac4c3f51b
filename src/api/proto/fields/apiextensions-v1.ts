import type { ProtoMessages } from "../messages.js";

/**
 * apiextensions/v1 messages: each field's wire number, and for message-typed fields the message (element/value message for
 * repeated/map fields). JSONSchemaProps uses its proto names (`ref`, `schema`, `xKubernetesPreserveUnknownFields`, …), not
 * its JSON names (`$ref`, `$schema`, `x-…-preserve-unknown-fields`). `JSON` carries one JSON value as bytes (`raw`), and the
 * three `JSONSchemaPropsOr…` messages hold one of two shapes; their JSON forms are the value itself, not an object of these fields.
 */
export const APIEXTENSIONS_V1: ProtoMessages = {
  "apiextensions.v1.CustomResourceColumnDefinition": "name=1 type=2 format=3 description=4 priority=5 jsonPath=6",
  "apiextensions.v1.CustomResourceConversion": "strategy=1 webhook=2:apiextensions.v1.WebhookConversion",
  "apiextensions.v1.CustomResourceDefinition":
    "metadata=1:meta.v1.ObjectMeta spec=2:apiextensions.v1.CustomResourceDefinitionSpec status=3:apiextensions.v1.CustomResourceDefinitionStatus",
  "apiextensions.v1.CustomResourceDefinitionCondition": "type=1 status=2 lastTransitionTime=3:meta.v1.Time reason=4 message=5 observedGeneration=6",
  "apiextensions.v1.CustomResourceDefinitionNames": "plural=1 singular=2 shortNames=3 kind=4 listKind=5 categories=6",
  "apiextensions.v1.CustomResourceDefinitionSpec":
    "group=1 names=3:apiextensions.v1.CustomResourceDefinitionNames scope=4 versions=7:apiextensions.v1.CustomResourceDefinitionVersion conversion=9:apiextensions.v1.CustomResourceConversion preserveUnknownFields=10",
  "apiextensions.v1.CustomResourceDefinitionStatus":
    "conditions=1:apiextensions.v1.CustomResourceDefinitionCondition acceptedNames=2:apiextensions.v1.CustomResourceDefinitionNames storedVersions=3 observedGeneration=4",
  "apiextensions.v1.CustomResourceDefinitionVersion":
    "name=1 served=2 storage=3 deprecated=7 deprecationWarning=8 schema=4:apiextensions.v1.CustomResourceValidation subresources=5:apiextensions.v1.CustomResourceSubresources additionalPrinterColumns=6:apiextensions.v1.CustomResourceColumnDefinition selectableFields=9:apiextensions.v1.SelectableField",
  "apiextensions.v1.CustomResourceSubresourceScale": "specReplicasPath=1 statusReplicasPath=2 labelSelectorPath=3",
  "apiextensions.v1.CustomResourceSubresourceStatus": "",
  "apiextensions.v1.CustomResourceSubresources":
    "status=1:apiextensions.v1.CustomResourceSubresourceStatus scale=2:apiextensions.v1.CustomResourceSubresourceScale",
  "apiextensions.v1.CustomResourceValidation": "openAPIV3Schema=1:apiextensions.v1.JSONSchemaProps",
  "apiextensions.v1.ExternalDocumentation": "description=1 url=2",
  "apiextensions.v1.JSON": "raw=1",
  "apiextensions.v1.JSONSchemaProps":
    "id=1 schema=2 ref=3 description=4 type=5 format=6 title=7 default=8:apiextensions.v1.JSON maximum=9 exclusiveMaximum=10 minimum=11 exclusiveMinimum=12 " +
    "maxLength=13 minLength=14 pattern=15 maxItems=16 minItems=17 uniqueItems=18 multipleOf=19 enum=20:apiextensions.v1.JSON maxProperties=21 minProperties=22 " +
    "required=23 items=24:apiextensions.v1.JSONSchemaPropsOrArray allOf=25:apiextensions.v1.JSONSchemaProps oneOf=26:apiextensions.v1.JSONSchemaProps " +
    "anyOf=27:apiextensions.v1.JSONSchemaProps not=28:apiextensions.v1.JSONSchemaProps properties=29:apiextensions.v1.JSONSchemaProps " +
    "additionalProperties=30:apiextensions.v1.JSONSchemaPropsOrBool patternProperties=31:apiextensions.v1.JSONSchemaProps " +
    "dependencies=32:apiextensions.v1.JSONSchemaPropsOrStringArray additionalItems=33:apiextensions.v1.JSONSchemaPropsOrBool " +
    "definitions=34:apiextensions.v1.JSONSchemaProps externalDocs=35:apiextensions.v1.ExternalDocumentation example=36:apiextensions.v1.JSON nullable=37 " +
    "xKubernetesPreserveUnknownFields=38 xKubernetesEmbeddedResource=39 xKubernetesIntOrString=40 xKubernetesListMapKeys=41 xKubernetesListType=42 " +
    "xKubernetesMapType=43 xKubernetesValidations=44:apiextensions.v1.ValidationRule",
  "apiextensions.v1.JSONSchemaPropsOrArray": "schema=1:apiextensions.v1.JSONSchemaProps jSONSchemas=2:apiextensions.v1.JSONSchemaProps",
  "apiextensions.v1.JSONSchemaPropsOrBool": "allows=1 schema=2:apiextensions.v1.JSONSchemaProps",
  "apiextensions.v1.JSONSchemaPropsOrStringArray": "schema=1:apiextensions.v1.JSONSchemaProps property=2",
  "apiextensions.v1.SelectableField": "jsonPath=1",
  "apiextensions.v1.ServiceReference": "namespace=1 name=2 path=3 port=4",
  "apiextensions.v1.ValidationRule": "rule=1 message=2 messageExpression=3 reason=4 fieldPath=5 optionalOldSelf=6",
  "apiextensions.v1.WebhookClientConfig": "url=3 service=1:apiextensions.v1.ServiceReference caBundle=2",
  "apiextensions.v1.WebhookConversion": "clientConfig=2:apiextensions.v1.WebhookClientConfig conversionReviewVersions=3",
};
