import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import { isIP } from "node:net";
import type { DefinitionDefaulter } from "../defaults.js";
import { invalidValue } from "../field-path.js";
import { listAt, recordAt, stringAt } from "./values.js";

/**
 * kube's SetDefaults_Service on a LoadBalancer's status (LoadBalancerIPMode, beta and on in 1.30):
 * an ingress point with an IP and no `ipMode` is `VIP`. The spec's defaults are `ServiceSpec`'s;
 * families, IPs and node ports are the allocator's.
 */
const defaultLoadBalancerIpMode: DefinitionDefaulter = (service) => {
  if (recordAt(service, "spec")?.["type"] !== "LoadBalancer") return;
  for (const ingress of listAt(recordAt(recordAt(service, "status"), "loadBalancer"), "ingress")) {
    if (!isPlainObject(ingress) || (stringAt(ingress, "ip") ?? "") === "") continue;
    if (ingress["ipMode"] === undefined || ingress["ipMode"] === null) ingress["ipMode"] = "VIP";
  }
};

export const SERVICE_DEFAULTERS: Readonly<Record<string, DefinitionDefaulter>> = {
  "core.v1.Service": defaultLoadBalancerIpMode,
};

function needsClusterIp(spec: Record<string, unknown> | undefined): boolean {
  return spec !== undefined && spec["type"] !== "ExternalName" && spec["clusterIP"] !== "None";
}

/**
 * A service's cluster IPs: each a valid IP (or `None`, headless, as the only entry), the first
 * equal to `clusterIP`; on update the primary one may not change while the service keeps one
 * (kube's ValidateService and ValidateServiceUpdate).
 */
export function validateServiceUpdate(service: ApiObject, old: ApiObject | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const spec = recordAt(service, "spec");
  const clusterIp = stringAt(spec, "clusterIP");
  const clusterIps = listAt(spec, "clusterIPs");
  clusterIps.forEach((ip, index) => {
    if (typeof ip !== "string" || (index === 0 && ip === "None" && clusterIps.length === 1)) return;
    if (isIP(ip) === 0) errors.push(invalidValue(`spec.clusterIPs[${index}]`, ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
  });
  if (clusterIps.length === 0 && clusterIp !== undefined && clusterIp !== "" && clusterIp !== "None" && isIP(clusterIp) === 0)
    errors.push(invalidValue("spec.clusterIPs[0]", clusterIp, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
  if (clusterIp !== undefined && clusterIp !== "" && clusterIps.length > 0 && clusterIps[0] !== clusterIp)
    errors.push(invalidValue("spec.clusterIPs", clusterIps, "first value must match `clusterIP`"));
  if (stringAt(spec, "type") === "ExternalName" && clusterIp !== undefined && clusterIp !== "")
    errors.push(invalidValue("spec.clusterIP", clusterIp, "may not be set for ExternalName services"));
  const type = stringAt(spec, "type");
  if (clusterIp === "None" && (type === "NodePort" || type === "LoadBalancer"))
    errors.push(invalidValue("spec.clusterIPs[0]", "None", `may not be set to 'None' for ${type} services`));
  if (old === undefined) return errors;
  const before = recordAt(old, "spec");
  const oldIps = listAt(before, "clusterIPs");
  if (needsClusterIp(before) && needsClusterIp(spec) && oldIps.length > 0 && clusterIps.length > 0 && clusterIps[0] !== oldIps[0])
    errors.push(invalidValue("spec.clusterIPs[0]", clusterIps, "may not change once set"));
  return errors;
}
