import {
  atomic,
  between,
  bool,
  bytes,
  enumOf,
  int32,
  int64,
  intOrString,
  listMap,
  mapOf,
  mergeList,
  microTime,
  obj,
  quantityMap,
  ref,
  req,
  set,
  str,
  stringMap,
  strings,
  time,
  withDefault,
  type SchemaNode,
} from "../node.js";
import { SELECTOR_MAP } from "./core-pod.js";
import { resource } from "./meta.js";
import type { KindDeclaration } from "./kind-declaration.js";

/** core/v1 kinds other than the pod tree. */

const PROTOCOL = ["SCTP", "TCP", "UDP"];
const objectRef = (description?: string): SchemaNode => ref("core.v1.ObjectReference", description);

export const CORE_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  "core.v1.Pod": resource("Pod is a collection of containers that can run on a host.", {
    spec: ref("core.v1.PodSpec", "Specification of the desired behavior of the pod."),
    status: ref("core.v1.PodStatus", "Most recently observed status of the pod. Set by the system."),
  }),
  "core.v1.PodTemplate": resource("PodTemplate describes a template for creating copies of a predefined pod.", { template: ref("core.v1.PodTemplateSpec") }),
  "core.v1.ReplicationController": resource("ReplicationController keeps a number of pod replicas running.", {
    spec: obj({
      minReadySeconds: int32(),
      replicas: withDefault(between(int32("Number of desired pods."), 0, 2147483647), 1),
      selector: { ...SELECTOR_MAP, description: "Label query over the pods that should match the replica count." },
      template: ref("core.v1.PodTemplateSpec"),
    }),
    status: obj({
      availableReplicas: int32(),
      conditions: listMap(ref("core.v1.ReplicationControllerCondition"), ["type"], { patch: true }),
      fullyLabeledReplicas: int32(),
      observedGeneration: int64(),
      readyReplicas: int32(),
      replicas: int32(),
    }),
  }),
  "core.v1.ReplicationControllerCondition": obj({ lastTransitionTime: time(), message: str(), reason: str(), status: req(str()), type: req(str()) }),
  "core.v1.Namespace": resource("Namespace provides a scope for names.", {
    spec: obj({ finalizers: strings("Values that must be empty before the namespace is removed.") }),
    status: obj({
      conditions: listMap(ref("core.v1.NamespaceCondition"), ["type"], { patch: true }),
      phase: str("The lifecycle phase of the namespace: Active or Terminating."),
    }),
  }),
  "core.v1.NamespaceCondition": obj({ lastTransitionTime: time(), message: str(), reason: str(), status: req(str()), type: req(str()) }),
  "core.v1.ConfigMap": resource("ConfigMap holds configuration data for pods to consume.", {
    binaryData: mapOf(bytes(), "Binary data; keys must not overlap data's."),
    data: stringMap("Configuration data."),
    immutable: bool("When true, data cannot be changed."),
  }),
  "core.v1.Secret": resource("Secret holds secret data of a certain type.", {
    data: mapOf(bytes(), "Secret data, base64-encoded."),
    immutable: bool("When true, data cannot be changed."),
    stringData: stringMap("Write-only convenience: merged into data on write."),
    type: str("Used to facilitate programmatic handling of secret data."),
  }),
  "core.v1.ServiceAccount": resource("ServiceAccount binds together a name, a principal and a set of secrets.", {
    automountServiceAccountToken: bool(),
    imagePullSecrets: atomic(ref("core.v1.LocalObjectReference")),
    secrets: listMap(objectRef(), ["name"], { patch: true }),
  }),
  "core.v1.Service": resource("Service is a named abstraction of a software service: a port the proxy listens on and the selector of the pods that serve it.", {
    spec: ref("core.v1.ServiceSpec", "Behavior of the service."),
    status: obj({
      conditions: listMap(ref("meta.v1.Condition"), ["type"], { patch: true }),
      loadBalancer: obj({ ingress: atomic(ref("core.v1.LoadBalancerIngress")) }),
    }),
  }),
  "core.v1.ServiceSpec": obj({
    allocateLoadBalancerNodePorts: bool(),
    clusterIP: str(),
    clusterIPs: strings(),
    externalIPs: strings(),
    externalName: str(),
    externalTrafficPolicy: enumOf(["Cluster", "Local"]),
    healthCheckNodePort: int32(),
    internalTrafficPolicy: enumOf(["Cluster", "Local"]),
    ipFamilies: atomic(enumOf(["IPv4", "IPv6"])),
    ipFamilyPolicy: enumOf(["PreferDualStack", "RequireDualStack", "SingleStack"]),
    loadBalancerClass: str(),
    loadBalancerIP: str(),
    loadBalancerSourceRanges: strings(),
    ports: listMap(ref("core.v1.ServicePort"), ["port", "protocol"], { patch: true, description: "Ports exposed by the service." }),
    publishNotReadyAddresses: bool(),
    selector: { ...SELECTOR_MAP, description: "Pods with these labels receive the traffic." },
    sessionAffinity: withDefault(enumOf(["ClientIP", "None"]), "None"),
    sessionAffinityConfig: obj({ clientIP: obj({ timeoutSeconds: int32() }) }),
    trafficDistribution: str(),
    type: withDefault(enumOf(["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"], "How the service is exposed."), "ClusterIP"),
  }),
  "core.v1.ServicePort": obj({
    appProtocol: str(),
    name: str(),
    nodePort: int32(),
    port: req(int32("The port the service exposes.")),
    protocol: withDefault(enumOf(PROTOCOL), "TCP"),
    targetPort: intOrString("Port on the pods. Defaults to port."),
  }),
  "core.v1.LoadBalancerIngress": obj({ hostname: str(), ip: str(), ipMode: str(), ports: atomic(ref("core.v1.PortStatus")) }),
  "core.v1.PortStatus": obj({ error: str(), port: req(int32()), protocol: req(str()) }),
  "core.v1.Node": resource("Node is a worker node.", {
    spec: obj({
      configSource: ref("core.v1.NodeConfigSource"),
      externalID: str(),
      podCIDR: str(),
      podCIDRs: { ...set(str()), patchStrategy: "merge" },
      providerID: str(),
      taints: atomic(ref("core.v1.Taint")),
      unschedulable: bool(),
    }),
    status: obj({
      addresses: mergeList(ref("core.v1.NodeAddress"), "type"),
      allocatable: quantityMap(),
      capacity: quantityMap(),
      conditions: mergeList(ref("core.v1.NodeCondition"), "type"),
      config: obj({
        active: ref("core.v1.NodeConfigSource"),
        assigned: ref("core.v1.NodeConfigSource"),
        error: str(),
        lastKnownGood: ref("core.v1.NodeConfigSource"),
      }),
      daemonEndpoints: obj({ kubeletEndpoint: obj({ Port: int32() }) }),
      images: atomic(obj({ names: strings(), sizeBytes: int64() })),
      nodeInfo: obj({
        architecture: str(),
        bootID: str(),
        containerRuntimeVersion: str(),
        kernelVersion: str(),
        kubeProxyVersion: str(),
        kubeletVersion: str(),
        machineID: str(),
        operatingSystem: str(),
        osImage: str(),
        systemUUID: str(),
      }),
      phase: str("Pending, Running or Terminated."),
      runtimeHandlers: atomic(obj({ features: obj({ recursiveReadOnlyMounts: bool() }), name: str() })),
      volumesAttached: atomic(obj({ devicePath: req(str()), name: req(str()) })),
      volumesInUse: strings(),
    }),
  }),
  "core.v1.NodeConfigSource": obj({
    configMap: obj({ kubeletConfigKey: req(str()), name: req(str()), namespace: req(str()), resourceVersion: str(), uid: str() }),
  }),
  "core.v1.NodeAddress": obj({ address: req(str()), type: req(str()) }),
  "core.v1.NodeCondition": obj({ lastHeartbeatTime: time(), lastTransitionTime: time(), message: str(), reason: str(), status: req(str()), type: req(str()) }),
  "core.v1.Event": resource("Event is a report of an event somewhere in the cluster.", {
    action: str(),
    count: int32(),
    eventTime: microTime(),
    firstTimestamp: time(),
    // Always present in kube's JSON (a struct, never omitted): events created through
    // events/v1beta1 without `regarding` read back with `{}` and can be written back as they are.
    involvedObject: req(withDefault(objectRef("The object this event is about."), {})),
    lastTimestamp: time(),
    message: str(),
    reason: str(),
    related: objectRef(),
    reportingComponent: str(),
    reportingInstance: str(),
    series: obj({ count: int32(), lastObservedTime: microTime() }),
    source: ref("core.v1.EventSource"),
    type: str(),
  }),
  "core.v1.EventSource": obj({ component: str(), host: str() }),
  "core.v1.Binding": resource("Binding ties one object to another; a pod to the node it is scheduled on.", {
    target: req(ref("core.v1.ObjectReference", "The node the pod is bound to.")),
  }),
  "core.v1.Endpoints": resource("Endpoints is the set of endpoints that implement a service.", { subsets: atomic(ref("core.v1.EndpointSubset")) }),
  "core.v1.EndpointSubset": obj({
    addresses: atomic(ref("core.v1.EndpointAddress")),
    notReadyAddresses: atomic(ref("core.v1.EndpointAddress")),
    ports: atomic(ref("core.v1.EndpointPort")),
  }),
  "core.v1.EndpointAddress": obj({ hostname: str(), ip: req(str()), nodeName: str(), targetRef: objectRef() }, { mapType: "atomic" }),
  "core.v1.EndpointPort": obj({ appProtocol: str(), name: str(), port: req(int32()), protocol: withDefault(enumOf(PROTOCOL), "TCP") }, { mapType: "atomic" }),
  "core.v1.LimitRange": resource("LimitRange sets resource usage limits for each kind of resource in a namespace.", {
    spec: obj({
      limits: atomic(
        obj({
          default: quantityMap(),
          defaultRequest: quantityMap(),
          max: quantityMap(),
          maxLimitRequestRatio: quantityMap(),
          min: quantityMap(),
          type: req(str()),
        }),
      ),
    }),
  }),
  "core.v1.ResourceQuota": resource("ResourceQuota sets aggregate quota restrictions enforced per namespace.", {
    spec: obj({
      hard: quantityMap(),
      scopeSelector: obj(
        { matchExpressions: atomic(obj({ operator: req(enumOf(["DoesNotExist", "Exists", "In", "NotIn"])), scopeName: req(str()), values: strings() })) },
        { mapType: "atomic" },
      ),
      scopes: strings(),
    }),
    status: obj({ hard: quantityMap(), used: quantityMap() }),
  }),
  "core.v1.PersistentVolume": resource("PersistentVolume is a storage resource provisioned by an administrator.", {
    spec: ref("core.v1.PersistentVolumeSpec"),
    status: ref("core.v1.PersistentVolumeStatus"),
  }),
  "core.v1.PersistentVolumeClaim": resource("PersistentVolumeClaim is a user's request for and claim to a persistent volume.", {
    spec: ref("core.v1.PersistentVolumeClaimSpec"),
    status: ref("core.v1.PersistentVolumeClaimStatus"),
  }),
  "core.v1.ComponentStatus": resource("ComponentStatus holds the cluster validation info (deprecated).", {
    conditions: listMap(ref("core.v1.ComponentCondition"), ["type"], { patch: true, description: "The component's conditions as last checked." }),
  }),
  "core.v1.ComponentCondition": obj({
    error: str("The error of the health check, when it could not be made."),
    message: str("What the component's health check answered."),
    status: req(str('"True", "False" or "Unknown".')),
    type: req(str('The kind of condition: only "Healthy".')),
  }),
};

export const CORE_KINDS: readonly KindDeclaration[] = [
  "Pod",
  "PodTemplate",
  "ReplicationController",
  "Namespace",
  "ConfigMap",
  "Secret",
  "ServiceAccount",
  "Service",
  "Node",
  "Event",
  "Endpoints",
  "LimitRange",
  "ResourceQuota",
  "PersistentVolume",
  "PersistentVolumeClaim",
  "ComponentStatus",
  "Binding",
].map((kind) => ({ group: "", version: "v1", kind, id: `core.v1.${kind}` }));
