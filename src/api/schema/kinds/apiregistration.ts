import { bool, bytes, int32, listMap, obj, str, time, withDefault, type SchemaNode } from "../node.js";
import { kindsOf, type KindDeclaration } from "./kind-declaration.js";
import { resource } from "./meta.js";

/**
 * apiregistration.<apiDomain> v1: APIService, which names the server of one group version —
 * this server itself (no `service`: a local one) or a Service in front of an aggregated server.
 * kube's one default: the service port 443. The priorities are left unrequired here: a missing
 * one is zero, which validation refuses with kube's range message.
 */
function apiService(): SchemaNode {
  return resource('APIService represents a server for a particular GroupVersion. Name must be "version.group".', {
    spec: obj({
      caBundle: bytes("PEM CA bundle to verify the aggregated server's serving certificate."),
      group: str("The API group this server hosts."),
      groupPriorityMinimum: int32("The least priority of the group in discovery: higher comes first (18000 for the built-in core group)."),
      insecureSkipTLSVerify: bool("Skip verifying the aggregated server's serving certificate (strongly discouraged)."),
      service: obj(
        { name: str(), namespace: str(), port: withDefault(int32(), 443) },
        { description: "The Service in front of the aggregated server; absent for a group version this server serves itself." },
      ),
      version: str('The API version this server hosts, e.g. "v1".'),
      versionPriority: int32("The order of this version within its group: higher comes first."),
    }),
    status: obj({
      conditions: listMap(obj({ lastTransitionTime: time(), message: str(), reason: str(), status: str(), type: str() }), ["type"], { patch: true }),
    }),
  });
}

export const APIREGISTRATION_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  "apiregistration.v1.APIService": apiService(),
};

export const APIREGISTRATION_KINDS: readonly KindDeclaration[] = kindsOf("apiregistration", { domain: true }, { v1: ["APIService"] });
