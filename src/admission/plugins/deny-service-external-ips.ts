import type { AdmissionPlugin } from "../interface.js";
import { denied } from "../deny.js";
import { recordOf } from "./pod-spec.js";

function externalIPs(object: unknown): string[] {
  const value = recordOf(recordOf(object)["spec"])["externalIPs"];
  return Array.isArray(value) ? value.map(String) : [];
}

/** DenyServiceExternalIPs: a service may not gain `externalIPs` (existing ones may stay or be removed). */
export function denyServiceExternalIPs(): AdmissionPlugin {
  return {
    name: "DenyServiceExternalIPs",
    resources: new Set(["services"]),
    handles: (operation) => operation === "CREATE" || operation === "UPDATE",
    async validate(attributes) {
      if (attributes.object === undefined || attributes.resource.group !== "" || attributes.subresource !== "") return;
      const before = new Set(externalIPs(attributes.oldObject));
      if (externalIPs(attributes.object).some((address) => !before.has(address)))
        throw denied(attributes, "use of external IPs is denied by admission control");
    },
  };
}
