import {
  atomic,
  bool,
  enumOf,
  freeForm,
  int32,
  int64,
  listMap,
  listMeta,
  mapOf,
  obj,
  objectMeta,
  ref,
  req,
  set,
  str,
  stringMap,
  strings,
  type RequiredProperty,
  type SchemaNode,
} from "../node.js";

/**
 * Definitions every group shares: object and list metadata, label selectors, conditions, Status,
 * DeleteOptions, watch events, and the scalar types with their own formats (Time, Quantity,
 * IntOrString, RawExtension).
 */

const API_VERSION = "APIVersion defines the versioned schema of this representation of an object.";
const KIND = "Kind is a string value representing the REST resource this object represents.";

/** A top-level kind: apiVersion, kind and metadata, then its own properties. */
export function resource(description: string, properties: Readonly<Record<string, SchemaNode | RequiredProperty>>): SchemaNode {
  return obj({ apiVersion: str(API_VERSION), kind: str(KIND), metadata: objectMeta(), ...properties }, { description });
}

/**
 * DeleteOptions' own fields, without its type meta: an object holding DeleteOptions (Eviction's
 * `deleteOptions`) carries these on the wire, where the message has no apiVersion or kind.
 */
export const DELETE_OPTIONS_FIELDS: Readonly<Record<string, SchemaNode>> = {
  dryRun: strings(),
  gracePeriodSeconds: int64(),
  orphanDependents: bool(),
  preconditions: ref("meta.v1.Preconditions"),
  propagationPolicy: str(),
};

export const META_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  "meta.v1.Time": { type: "string", format: "date-time", description: "Time is a timestamp in RFC 3339 form." },
  "meta.v1.MicroTime": { type: "string", format: "date-time", description: "MicroTime is a timestamp with microseconds." },
  "resource.Quantity": {
    format: "quantity",
    description: "Quantity is a fixed-point number: an integer or decimal with an optional SI or binary suffix (e.g. 100m, 1.5Gi).",
  },
  "intstr.IntOrString": { intOrString: true, description: "An int32 or a string." },
  "runtime.RawExtension": { type: "object", embeddedResource: true, preserveUnknownFields: true, description: "An embedded object." },
  "meta.v1.FieldsV1": freeForm("FieldsV1 stores a set of fields as a trie, in JSON."),
  "meta.v1.ObjectMeta": obj(
    {
      annotations: stringMap("Unstructured key-value data stored with the object."),
      creationTimestamp: ref("meta.v1.Time", "When the object was created. Set by the server."),
      deletionGracePeriodSeconds: int64("Seconds allowed for graceful termination once deletion is requested."),
      deletionTimestamp: ref("meta.v1.Time", "When the object will be deleted. Set by the server when deletion is requested."),
      finalizers: { ...set(str(), "Entries that must be removed before the object is deleted."), patchStrategy: "merge" },
      generateName: str("Prefix the server uses to generate a unique name when name is not given."),
      generation: int64("Sequence number of the desired state. Set by the server."),
      labels: stringMap("Map of string keys and values used to organize and select objects."),
      managedFields: atomic(ref("meta.v1.ManagedFieldsEntry"), "Which manager owns which fields. Maintained by the server."),
      name: str("Name, unique within a namespace."),
      namespace: str("The namespace of the object; empty for cluster-scoped objects."),
      ownerReferences: listMap(ref("meta.v1.OwnerReference"), ["uid"], { patch: true, description: "Objects this object depends on." }),
      resourceVersion: str("Opaque version of the object, for concurrency control and watches."),
      selfLink: str("Deprecated; not set."),
      uid: str("Unique identifier of the object. Set by the server."),
    },
    { description: "ObjectMeta is metadata that all persisted resources must have." },
  ),
  "meta.v1.ListMeta": obj(
    {
      continue: str("Token for the next chunk of a chunked list."),
      remainingItemCount: int64("Number of items not yet returned."),
      resourceVersion: str("Version at which the list was built."),
      selfLink: str("Deprecated; not set."),
    },
    { description: "ListMeta describes metadata that synthetic resources must have." },
  ),
  "meta.v1.ManagedFieldsEntry": obj({
    apiVersion: str(),
    fieldsType: str(),
    fieldsV1: ref("meta.v1.FieldsV1"),
    manager: str(),
    operation: str(),
    subresource: str(),
    time: ref("meta.v1.Time"),
  }),
  "meta.v1.OwnerReference": obj(
    {
      apiVersion: req(str()),
      blockOwnerDeletion: bool(),
      controller: bool(),
      kind: req(str()),
      name: req(str()),
      uid: req(str()),
    },
    { mapType: "atomic", description: "Identifies an owning object." },
  ),
  "meta.v1.LabelSelector": obj(
    {
      matchExpressions: atomic(ref("meta.v1.LabelSelectorRequirement"), "A list of label selector requirements, ANDed."),
      matchLabels: stringMap("Labels that must all match."),
    },
    { mapType: "atomic", description: "A label query over a set of resources." },
  ),
  "meta.v1.LabelSelectorRequirement": obj({
    key: req(str()),
    operator: req(enumOf(["In", "NotIn", "Exists", "DoesNotExist"])),
    values: strings(),
  }),
  "meta.v1.Condition": obj({
    lastTransitionTime: req(ref("meta.v1.Time")),
    message: str(),
    observedGeneration: int64(),
    reason: req(str()),
    status: req(enumOf(["True", "False", "Unknown"])),
    type: req(str()),
  }),
  "meta.v1.Status": obj(
    {
      apiVersion: str(API_VERSION),
      code: int32(),
      details: ref("meta.v1.StatusDetails"),
      kind: str(KIND),
      message: str(),
      metadata: listMeta(),
      reason: str(),
      status: str(),
    },
    { description: "Status is the result of an operation that does not return an object." },
  ),
  "meta.v1.StatusDetails": obj({
    causes: atomic(ref("meta.v1.StatusCause")),
    group: str(),
    kind: str(),
    name: str(),
    retryAfterSeconds: int32(),
    uid: str(),
  }),
  "meta.v1.StatusCause": obj({ field: str(), message: str(), reason: str() }),
  "meta.v1.DeleteOptions": obj(
    { apiVersion: str(API_VERSION), kind: str(KIND), ...DELETE_OPTIONS_FIELDS },
    { description: "DeleteOptions may be provided when deleting an API object." },
  ),
  "meta.v1.Preconditions": obj({ resourceVersion: str(), uid: str() }),
  "meta.v1.WatchEvent": obj({ object: req(ref("runtime.RawExtension")), type: req(str()) }, { description: "One event of a watch stream." }),
  "meta.v1.Patch": {
    type: "object",
    preserveUnknownFields: true,
    description: "A patch document (JSON patch, merge patch, strategic merge patch or apply configuration).",
  },
};

/** `map[string][]string` (user extra). */
export const STRING_LIST_MAP = mapOf(strings());
