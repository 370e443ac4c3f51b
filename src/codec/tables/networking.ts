import type { ApiObject } from "../../api/object.js";
import { text, AGE, NAME, type KindTables } from "./column.js";
import { firstOf, formatSelector, list, num, present, record, records, str } from "./format.js";
import { loadBalancerAddresses } from "./service.js";

const spec = (object: ApiObject): Record<string, unknown> => record(object["spec"]);

/**
 * The rules' hosts: the first three named (rules without a host are skipped), then ` + N more...`
 * counting every rule past three; `*` when no rule names a host.
 */
function ingressHosts(ingress: ApiObject): string {
  const rules = records(spec(ingress)["rules"]);
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === 3) more = true;
    if (!more && str(rule["host"]) !== "") hosts.push(str(rule["host"]));
  }
  if (hosts.length === 0) return "*";
  return more ? `${hosts.join(",")} + ${rules.length - 3} more...` : hosts.join(",");
}

/** An IngressClass's parameters as `Kind.group/name`, `<none>` without. */
function ingressClassParameters(ingressClass: ApiObject): string {
  const parameters = present(spec(ingressClass)["parameters"]);
  if (parameters === undefined) return "<none>";
  const group = parameters["apiGroup"];
  return `${str(parameters["kind"])}${typeof group === "string" ? `.${group}` : ""}/${str(parameters["name"])}`;
}

export const NETWORKING_TABLES: KindTables = {
  Ingress: [
    NAME,
    text("Class", "The ingress class that serves it.", (object) => str(spec(object)["ingressClassName"]) || "<none>"),
    text("Hosts", "The hosts its rules match.", ingressHosts),
    text("Address", "Where the load balancer is reachable.", (object) => loadBalancerAddresses(object["status"])),
    text("Ports", "80, and 443 when TLS is configured.", (object) => (list(spec(object)["tls"]).length > 0 ? "80, 443" : "80")),
    AGE,
  ],
  IngressClass: [
    NAME,
    text("Controller", "The controller that implements the class.", (object) => str(spec(object)["controller"])),
    text("Parameters", "The resource holding the class's parameters.", ingressClassParameters),
    AGE,
  ],
  NetworkPolicy: [NAME, text("Pod-Selector", "The pods the policy applies to.", (object) => formatSelector(spec(object)["podSelector"])), AGE],
};

/** EndpointSlices: ports (number, else name, else `*`) and addresses, three of each at most. */
export const DISCOVERY_TABLES: KindTables = {
  EndpointSlice: [
    NAME,
    text("AddressType", "IPv4, IPv6 or FQDN.", (object) => str(object["addressType"])),
    text("Ports", "The slice's ports.", (object) =>
      firstOf(
        records(object["ports"]).map((port) =>
          typeof port["port"] === "number" ? String(num(port["port"])) : typeof port["name"] === "string" ? port["name"] : "*",
        ),
        3,
        "<unset>",
      ),
    ),
    text("Endpoints", "The endpoints' addresses.", (object) =>
      firstOf(
        records(object["endpoints"]).flatMap((endpoint) => list(endpoint["addresses"]).map(String)),
        3,
        "<unset>",
      ),
    ),
    AGE,
  ],
};
