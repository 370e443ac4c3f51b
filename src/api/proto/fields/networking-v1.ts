import type { ProtoMessages } from "../messages.js";

/**
 * networking/v1 messages: each field's wire number, and for message-typed fields the message (element/value message for repeated/map fields).
 * `IngressClassParametersReference.apiGroup` is recorded under its JSON name; the wire schema spells it `aPIGroup`.
 */
export const NETWORKING_V1: ProtoMessages = {
  "networking.v1.HTTPIngressPath": "path=1 pathType=3 backend=2:networking.v1.IngressBackend",
  "networking.v1.HTTPIngressRuleValue": "paths=1:networking.v1.HTTPIngressPath",
  "networking.v1.IPBlock": "cidr=1 except=2",
  "networking.v1.Ingress": "metadata=1:meta.v1.ObjectMeta spec=2:networking.v1.IngressSpec status=3:networking.v1.IngressStatus",
  "networking.v1.IngressBackend": "service=4:networking.v1.IngressServiceBackend resource=3:core.v1.TypedLocalObjectReference",
  "networking.v1.IngressClass": "metadata=1:meta.v1.ObjectMeta spec=2:networking.v1.IngressClassSpec",
  "networking.v1.IngressClassParametersReference": "apiGroup=1 kind=2 name=3 scope=4 namespace=5",
  "networking.v1.IngressClassSpec": "controller=1 parameters=2:networking.v1.IngressClassParametersReference",
  "networking.v1.IngressLoadBalancerIngress": "ip=1 hostname=2 ports=4:networking.v1.IngressPortStatus",
  "networking.v1.IngressLoadBalancerStatus": "ingress=1:networking.v1.IngressLoadBalancerIngress",
  "networking.v1.IngressPortStatus": "port=1 protocol=2 error=3",
  "networking.v1.IngressRule": "host=1 ingressRuleValue=2:networking.v1.IngressRuleValue",
  "networking.v1.IngressRuleValue": "http=1:networking.v1.HTTPIngressRuleValue",
  "networking.v1.IngressServiceBackend": "name=1 port=2:networking.v1.ServiceBackendPort",
  "networking.v1.IngressSpec":
    "ingressClassName=4 defaultBackend=1:networking.v1.IngressBackend tls=2:networking.v1.IngressTLS rules=3:networking.v1.IngressRule",
  "networking.v1.IngressStatus": "loadBalancer=1:networking.v1.IngressLoadBalancerStatus",
  "networking.v1.IngressTLS": "hosts=1 secretName=2",
  "networking.v1.NetworkPolicy": "metadata=1:meta.v1.ObjectMeta spec=2:networking.v1.NetworkPolicySpec",
  "networking.v1.NetworkPolicyEgressRule": "ports=1:networking.v1.NetworkPolicyPort to=2:networking.v1.NetworkPolicyPeer",
  "networking.v1.NetworkPolicyIngressRule": "ports=1:networking.v1.NetworkPolicyPort from=2:networking.v1.NetworkPolicyPeer",
  "networking.v1.NetworkPolicyPeer": "podSelector=1:meta.v1.LabelSelector namespaceSelector=2:meta.v1.LabelSelector ipBlock=3:networking.v1.IPBlock",
  "networking.v1.NetworkPolicyPort": "protocol=1 port=2:intstr.IntOrString endPort=3",
  "networking.v1.NetworkPolicySpec":
    "podSelector=1:meta.v1.LabelSelector ingress=2:networking.v1.NetworkPolicyIngressRule egress=3:networking.v1.NetworkPolicyEgressRule policyTypes=4",
  "networking.v1.ServiceBackendPort": "name=1 number=2",
};
