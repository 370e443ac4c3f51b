import { atomic, bool, enumOf, int32, microTime, obj, quantityMap, ref, req, set, str, stringMap, time, withDefault, type SchemaNode } from "../node.js";
import { SELECTOR_MAP } from "./core-pod.js";
import { kindsOf, type KindDeclaration } from "./kind-declaration.js";
import { resource } from "./meta.js";

/** Small groups: scheduling, node, coordination, discovery and events. */

const RUNTIME_CLASS = resource("RuntimeClass defines a container runtime supported in the cluster.", {
  handler: req(str("The CRI handler that runs pods of this class.")),
  overhead: obj({ podFixed: quantityMap() }),
  scheduling: obj({ nodeSelector: { ...SELECTOR_MAP }, tolerations: atomic(ref("core.v1.Toleration")) }),
});

const endpointSlice = (endpoint: string): SchemaNode =>
  resource("EndpointSlice is a subset of the endpoints that implement a service.", {
    addressType: req(enumOf(["FQDN", "IPv4", "IPv6"])),
    endpoints: atomic(ref(endpoint), "The endpoints of the slice; may be empty."),
    // kube's SetDefaults_EndpointPort (discovery v1 and v1beta1): an unnamed port reads `name: ""`.
    ports: atomic(
      obj(
        { appProtocol: str(), name: withDefault(str(), ""), port: int32(), protocol: withDefault(enumOf(["SCTP", "TCP", "UDP"]), "TCP") },
        { mapType: "atomic" },
      ),
    ),
  });

/** The parts of an endpoint both versions share; v1 adds `zone` and `deprecatedTopology`, v1beta1 has `topology`. */
const ENDPOINT_COMMON = {
  addresses: req(set(str())),
  conditions: obj({ ready: bool(), serving: bool(), terminating: bool() }),
  hints: obj({ forZones: atomic(obj({ name: req(str()) })) }),
  hostname: str(),
  nodeName: str(),
  targetRef: ref("core.v1.ObjectReference"),
};

const EVENTS_EVENT = resource("Event is a report of an event somewhere in the cluster.", {
  action: str("What action was taken or failed."),
  deprecatedCount: int32(),
  deprecatedFirstTimestamp: time(),
  deprecatedLastTimestamp: time(),
  deprecatedSource: ref("core.v1.EventSource"),
  eventTime: microTime("When the event first occurred. Required."),
  note: str("A human-readable description."),
  reason: str("Why the action was taken."),
  regarding: ref("core.v1.ObjectReference", "The object this event is about."),
  related: ref("core.v1.ObjectReference"),
  reportingController: str("The controller that emitted the event."),
  reportingInstance: str("The controller instance that emitted the event."),
  series: obj({ count: req(int32()), lastObservedTime: req(microTime()) }),
  type: str("Normal or Warning."),
});

export const CLUSTER_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  "scheduling.v1.PriorityClass": resource("PriorityClass maps a priority class name to a priority value.", {
    description: str(),
    globalDefault: bool(),
    preemptionPolicy: withDefault(enumOf(["Never", "PreemptLowerPriority"]), "PreemptLowerPriority"),
    value: req(int32("The priority of pods of this class.")),
  }),
  "node.v1.RuntimeClass": RUNTIME_CLASS,
  "node.v1beta1.RuntimeClass": RUNTIME_CLASS,
  "coordination.v1.Lease": resource("Lease defines a lease concept.", {
    spec: obj({
      acquireTime: microTime(),
      holderIdentity: str(),
      leaseDurationSeconds: int32(),
      leaseTransitions: int32(),
      preferredHolder: str(),
      renewTime: microTime(),
      strategy: str(),
    }),
  }),
  "discovery.v1.EndpointSlice": endpointSlice("discovery.v1.Endpoint"),
  "discovery.v1beta1.EndpointSlice": endpointSlice("discovery.v1beta1.Endpoint"),
  "discovery.v1.Endpoint": obj({ ...ENDPOINT_COMMON, deprecatedTopology: stringMap(), zone: str() }),
  "discovery.v1beta1.Endpoint": obj({
    ...ENDPOINT_COMMON,
    topology: stringMap("Topology labels of the endpoint; the zone and hostname keys map to v1's zone and nodeName."),
  }),
  "events.v1.Event": EVENTS_EVENT,
  "events.v1beta1.Event": EVENTS_EVENT,
};

export const CLUSTER_KINDS: readonly KindDeclaration[] = [
  ...kindsOf("scheduling", { domain: true }, { v1: ["PriorityClass"] }),
  ...kindsOf("node", { domain: true }, { v1: ["RuntimeClass"], v1beta1: ["RuntimeClass"] }),
  ...kindsOf("coordination", { domain: true }, { v1: ["Lease"] }),
  ...kindsOf("discovery", { domain: true }, { v1: ["EndpointSlice"], v1beta1: ["EndpointSlice"] }),
  ...kindsOf("events", { domain: true }, { v1: ["Event"], v1beta1: ["Event"] }),
];
