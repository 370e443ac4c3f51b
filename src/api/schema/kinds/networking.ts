import { atomic, enumOf, int32, intOrString, labelSelector, obj, ref, req, str, strings, withDefault, type SchemaNode } from "../node.js";
import { kindsOf, type KindDeclaration } from "./kind-declaration.js";
import { resource } from "./meta.js";

/** networking.<apiDomain>/v1: Ingress (v1 backend shape, required pathType), IngressClass, NetworkPolicy. */

const backend = (description?: string): SchemaNode => ref("networking.v1.IngressBackend", description);

export const NETWORKING_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  "networking.v1.Ingress": resource("Ingress is a collection of rules that let inbound connections reach backends.", {
    spec: obj({
      defaultBackend: backend("Backend for requests no rule matches."),
      ingressClassName: str("Name of the IngressClass this ingress belongs to."),
      rules: atomic(ref("networking.v1.IngressRule"), "Host rules. When empty, all traffic goes to the default backend."),
      tls: atomic(obj({ hosts: strings(), secretName: str() })),
    }),
    status: obj({
      loadBalancer: obj({
        ingress: atomic(
          obj({
            hostname: str(),
            ip: str(),
            ports: atomic(obj({ error: str(), port: req(int32()), protocol: req(str()) })),
          }),
        ),
      }),
    }),
  }),
  "networking.v1.IngressRule": obj({
    host: str("Fully qualified domain name of a network host (may start with a '*.' wildcard)."),
    http: obj({ paths: req(atomic(ref("networking.v1.HTTPIngressPath"), "Paths mapped to backends.")) }),
  }),
  "networking.v1.HTTPIngressPath": obj({
    backend: req(backend("Where matching traffic goes.")),
    path: str("Matched against the request path; must start with '/' for Exact and Prefix."),
    pathType: req(enumOf(["Exact", "ImplementationSpecific", "Prefix"], "How the path is matched: Exact, Prefix or ImplementationSpecific.")),
  }),
  "networking.v1.IngressBackend": obj({
    resource: ref("core.v1.TypedLocalObjectReference"),
    service: obj({
      name: req(str("Name of the service.")),
      port: obj({ name: str(), number: int32() }, { description: "The service's port, by name or number." }),
    }),
  }),
  "networking.v1.IngressClass": resource("IngressClass names the controller that implements ingresses of a class.", {
    spec: obj({
      controller: str("The controller implementing the class."),
      // kube's networking/v1 defaulting gives parameters without a scope `scope: Cluster`.
      parameters: obj({
        apiGroup: str(),
        kind: req(str()),
        name: req(str()),
        namespace: str(),
        scope: withDefault(enumOf(["Cluster", "Namespace"]), "Cluster"),
      }),
    }),
  }),
  "networking.v1.NetworkPolicy": resource("NetworkPolicy describes which network traffic is allowed for a set of pods.", {
    spec: obj({
      egress: atomic(obj({ ports: atomic(ref("networking.v1.NetworkPolicyPort")), to: atomic(ref("networking.v1.NetworkPolicyPeer")) })),
      ingress: atomic(obj({ from: atomic(ref("networking.v1.NetworkPolicyPeer")), ports: atomic(ref("networking.v1.NetworkPolicyPort")) })),
      podSelector: req(labelSelector("The pods the policy applies to.")),
      policyTypes: atomic(enumOf(["Egress", "Ingress"])),
    }),
  }),
  "networking.v1.NetworkPolicyPeer": obj({
    ipBlock: obj({ cidr: req(str()), except: strings() }),
    namespaceSelector: labelSelector(),
    podSelector: labelSelector(),
  }),
  "networking.v1.NetworkPolicyPort": obj({ endPort: int32(), port: intOrString(), protocol: withDefault(enumOf(["SCTP", "TCP", "UDP"]), "TCP") }),
};

export const NETWORKING_KINDS: readonly KindDeclaration[] = kindsOf("networking", { domain: true }, { v1: ["Ingress", "IngressClass", "NetworkPolicy"] });
