import type { Profile } from "../profile.js";
import { DEDUCED, type FieldType, type MapType, type SchemaSource } from "./field-type.js";
import { fieldTypeFromOpenApi } from "./openapi.js";

/**
 * The list and map markers of the kinds served today, as partial OpenAPI schemas: only the
 * fields whose merge behaviour differs from the default (granular objects, atomic lists) are
 * declared, with the markers kube's own schemas carry. Everything undeclared inside a declared
 * kind behaves as untyped struct fields. Kinds without an entry get the schema-less default.
 * TODO(#4): replace with each kind's full OpenAPI schema; `fieldTypeFromOpenApi` reads those too.
 */
type Schema = Record<string, unknown>;

interface Markers {
  readonly ext: (name: string, value: unknown) => Schema;
  /** `list-type: map` with keys, merged by strategic merge patch on the first key. */
  readonly listMap: (keys: readonly string[], items: Schema) => Schema;
  /** A list with only kube's legacy patch markers (`patch-strategy: merge` + merge key): a map list for apply. */
  readonly mergeList: (key: string, items?: Schema) => Schema;
  readonly set: () => Schema;
  readonly atomicList: () => Schema;
  readonly atomicMap: () => Schema;
}

function markers(profile: Profile): Markers {
  const ext = (name: string, value: unknown): Schema => Object.fromEntries(profile.openApiExtensionPrefixes.map((prefix) => [`${prefix}${name}`, value]));
  return {
    ext,
    listMap: (keys, items) => ({ type: "array", items, ...ext("list-type", "map"), ...ext("list-map-keys", keys), ...ext("patch-strategy", "merge"), ...ext("patch-merge-key", keys[0]) }),
    mergeList: (key, items = { type: "object", properties: {} }) => ({ type: "array", items, ...ext("patch-strategy", "merge"), ...ext("patch-merge-key", key) }),
    set: () => ({ type: "array", items: { type: "string" }, ...ext("list-type", "set"), ...ext("patch-strategy", "merge") }),
    atomicList: () => ({ type: "array", ...ext("list-type", "atomic") }),
    atomicMap: () => ({ type: "object", ...ext("map-type", "atomic") }),
  };
}

/** `map[string]string`, and quantities (`resources.limits`): granular maps of scalars. */
const STRING_MAP: Schema = { type: "object", additionalProperties: { type: "string" } };
const QUANTITY_MAP = STRING_MAP;

function struct(properties: Record<string, Schema>): Schema {
  return { type: "object", properties };
}

function objectMeta(m: Markers): Schema {
  return struct({
    labels: STRING_MAP,
    annotations: STRING_MAP,
    finalizers: m.set(),
    ownerReferences: m.listMap(["uid"], struct({})),
    managedFields: m.atomicList(),
  });
}

function podSpec(m: Markers): Schema {
  const port = struct({ protocol: { type: "string", default: "TCP" } });
  const container = struct({
    ports: m.listMap(["containerPort", "protocol"], port),
    env: m.mergeList("name"),
    volumeMounts: m.mergeList("mountPath"),
    volumeDevices: m.mergeList("devicePath"),
    resources: struct({ limits: QUANTITY_MAP, requests: QUANTITY_MAP, claims: m.listMap(["name"], struct({})) }),
  });
  const containers = m.mergeList("name", container);
  const labelSelector = m.atomicMap();
  const podAffinity = struct({ requiredDuringSchedulingIgnoredDuringExecution: m.atomicList(), preferredDuringSchedulingIgnoredDuringExecution: m.atomicList() });
  const nodeAffinity = struct({ requiredDuringSchedulingIgnoredDuringExecution: m.atomicMap(), preferredDuringSchedulingIgnoredDuringExecution: m.atomicList() });
  return struct({
    containers,
    initContainers: containers,
    ephemeralContainers: containers,
    volumes: { ...m.mergeList("name"), ...m.ext("patch-strategy", "merge,retainKeys") },
    imagePullSecrets: m.mergeList("name"),
    hostAliases: m.listMap(["ip"], struct({})),
    topologySpreadConstraints: m.listMap(["topologyKey", "whenUnsatisfiable"], struct({ labelSelector })),
    resourceClaims: m.listMap(["name"], struct({})),
    schedulingGates: m.listMap(["name"], struct({})),
    nodeSelector: m.atomicMap(),
    overhead: QUANTITY_MAP,
    affinity: struct({ nodeAffinity, podAffinity, podAntiAffinity: podAffinity }),
  });
}

function podTemplate(m: Markers): Schema {
  return struct({ metadata: objectMeta(m), spec: podSpec(m) });
}

function conditions(m: Markers): Schema {
  return m.listMap(["type"], struct({}));
}

function kind(m: Markers, properties: Record<string, Schema>): Schema {
  return struct({ metadata: objectMeta(m), ...properties });
}

/** The declared kinds by `group/version/Kind` ("" group for core). */
function declaredKinds(m: Markers): Record<string, Schema> {
  const labelSelector = m.atomicMap();
  const workload = (extra: Record<string, Schema> = {}): Schema =>
    kind(m, { spec: struct({ selector: labelSelector, template: podTemplate(m), ...extra }), status: struct({ conditions: conditions(m) }) });
  const servicePort = struct({ protocol: { type: "string", default: "TCP" } });
  return {
    "/v1/Pod": kind(m, { spec: podSpec(m), status: struct({ conditions: conditions(m), podIPs: m.mergeList("ip"), hostIPs: m.mergeList("ip") }) }),
    "/v1/PodTemplate": kind(m, { template: podTemplate(m) }),
    "/v1/ReplicationController": kind(m, { spec: struct({ selector: m.atomicMap(), template: podTemplate(m) }), status: struct({ conditions: conditions(m) }) }),
    "/v1/Service": kind(m, {
      spec: struct({ ports: m.listMap(["port", "protocol"], servicePort), selector: m.atomicMap(), clusterIPs: m.atomicList(), ipFamilies: m.atomicList(), externalIPs: m.atomicList() }),
      status: struct({ conditions: conditions(m), loadBalancer: struct({ ingress: m.atomicList() }) }),
    }),
    "/v1/Node": kind(m, { spec: struct({ podCIDRs: m.set(), taints: m.atomicList() }), status: struct({ conditions: m.mergeList("type"), addresses: m.mergeList("type"), capacity: QUANTITY_MAP, allocatable: QUANTITY_MAP }) }),
    "/v1/Namespace": kind(m, { spec: struct({ finalizers: m.atomicList() }), status: struct({ conditions: conditions(m) }) }),
    "/v1/ConfigMap": kind(m, { data: STRING_MAP, binaryData: STRING_MAP }),
    "/v1/Secret": kind(m, { data: STRING_MAP, stringData: STRING_MAP }),
    "/v1/ServiceAccount": kind(m, { secrets: m.mergeList("name"), imagePullSecrets: m.atomicList() }),
    "/v1/Endpoints": kind(m, { subsets: m.atomicList() }),
    "/v1/LimitRange": kind(m, { spec: struct({ limits: m.atomicList() }) }),
    "/v1/ResourceQuota": kind(m, { spec: struct({ hard: QUANTITY_MAP, scopes: m.atomicList() }), status: struct({ hard: QUANTITY_MAP, used: QUANTITY_MAP }) }),
    "/v1/PersistentVolume": kind(m, { spec: struct({ accessModes: m.atomicList(), claimRef: m.atomicMap(), mountOptions: m.atomicList(), capacity: QUANTITY_MAP }) }),
    "/v1/PersistentVolumeClaim": kind(m, { spec: struct({ accessModes: m.atomicList(), selector: labelSelector }), status: struct({ conditions: conditions(m), capacity: QUANTITY_MAP }) }),
    "/v1/Event": kind(m, {}),
    "apps/v1/Deployment": workload(),
    "apps/v1/ReplicaSet": workload(),
    "apps/v1/DaemonSet": workload(),
    "apps/v1/StatefulSet": workload({ volumeClaimTemplates: m.atomicList() }),
    "batch/v1/Job": kind(m, { spec: struct({ selector: labelSelector, template: podTemplate(m) }), status: struct({ conditions: m.atomicList() }) }),
    "batch/v1/CronJob": kind(m, { spec: struct({ jobTemplate: struct({ metadata: objectMeta(m), spec: struct({ selector: labelSelector, template: podTemplate(m) }) }) }) }),
  };
}

/**
 * The schema source of the built-in kinds: declared markers where a kind has an entry, and for
 * any other kind kube's default for custom resources without a schema (keys granular, lists
 * atomic) under the common object metadata.
 */
export function builtinSchemas(profile: Profile): SchemaSource {
  const m = markers(profile);
  const read = (schema: Schema): FieldType => fieldTypeFromOpenApi(schema, { extensionPrefixes: profile.openApiExtensionPrefixes });
  const declared = new Map(Object.entries(declaredKinds(m)).map(([key, schema]) => [key, read(schema)]));
  const metadata = read(objectMeta(m));
  const schemaLess: MapType = { kind: "map", fields: new Map([["metadata", metadata]]), defaults: new Map(), elements: DEDUCED, elementsAreFields: false, mapType: "granular" };
  return {
    schemaFor(group, version, kind) {
      return declared.get(`${group}/${version}/${kind}`) ?? schemaLess;
    },
  };
}
