import { internalError, invalid, type FieldError } from "../../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../../api/object.js";
import type { Storage } from "../../../storage/index.js";
import { canonicalIp, ipFamilyOf, type CidrRange } from "../../../util/cidr.js";
import { KeyRangeAllocator, type AllocationOwner, type Claim } from "../../allocation/key-range-allocator.js";
import type { WriteAllocations } from "../../definition.js";

/**
 * The ranges services draw from: `--service-cluster-ip-range` (one CIDR, or two of different
 * families for dual-stack; the first is primary) and `--service-node-port-range`.
 */
export interface ServiceNetwork {
  readonly clusterIpRanges: readonly CidrRange[];
  readonly nodePorts: { readonly base: number; readonly size: number };
}

/** Where the allocations live in storage: one key per allocated value (see KeyRangeAllocator). */
export const SERVICE_IP_PREFIX = "/ranges/serviceips/";
export const NODE_PORT_PREFIX = "/ranges/servicenodeports/";

/** What one service holds: its cluster IPs and node ports (the health check port among them). */
interface Held {
  readonly ips: readonly string[];
  readonly ports: readonly number[];
}

type Spec = Record<string, unknown>;

function specOf(service: ApiObject): Spec {
  const spec = service["spec"];
  if (isPlainObject(spec)) return spec;
  const fresh: Spec = {};
  service["spec"] = fresh;
  return fresh;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function portList(spec: Spec): Record<string, unknown>[] {
  const ports = spec["ports"];
  return Array.isArray(ports) ? ports.filter(isPlainObject) : [];
}

/** kube's needsClusterIP: every type but ExternalName, unless headless. */
function needsClusterIp(spec: Spec): boolean {
  return spec["type"] !== "ExternalName" && spec["clusterIP"] !== "None";
}

function needsNodePorts(spec: Spec): boolean {
  return spec["type"] === "NodePort" || (spec["type"] === "LoadBalancer" && spec["allocateLoadBalancerNodePorts"] !== false);
}

function needsHealthCheckPort(spec: Spec): boolean {
  return spec["type"] === "LoadBalancer" && spec["externalTrafficPolicy"] === "Local";
}

function heldBy(service: ApiObject): Held {
  const spec = specOf(service);
  const ips = needsClusterIp(spec) ? stringList(spec["clusterIPs"]) : [];
  const ports = portList(spec)
    .map((port) => port["nodePort"])
    .filter((port): port is number => typeof port === "number" && port !== 0);
  const health = spec["healthCheckNodePort"];
  if (typeof health === "number" && health !== 0) ports.push(health);
  return { ips, ports };
}

/** The Service allocations over `network`: the Store calls them around every service write. */
/**
 * The size of a range's static band, as kube computes it: a `step`-th of the range, at least
 * `min` and at most `max` values (IPs: 16, 256, a 16th — 10.0.0.1–10.0.0.16 of a /24; node ports:
 * 16, 128, a 32nd — 30000–30085 of the default range); none in a range smaller than `min`.
 */
export function staticBand(size: number, min: number, max: number, step: number): number {
  if (size < min) return 0;
  return Math.min(max, Math.max(min, Math.floor(size / step)));
}

export function serviceAllocations(network: ServiceNetwork): WriteAllocations {
  const perStorage = new WeakMap<Storage, { ips: KeyRangeAllocator[]; ports: KeyRangeAllocator }>();
  const allocatorsFor = (storage: Storage) => {
    let allocators = perStorage.get(storage);
    if (allocators === undefined) {
      allocators = {
        ips: network.clusterIpRanges.map(
          (range) =>
            new KeyRangeAllocator(storage, {
              prefix: SERVICE_IP_PREFIX,
              size: range.size,
              valueAt: (index) => range.addressAt(index),
              indexOf: (value) => range.indexOf(value),
              // The network address, and for IPv4 the broadcast address, are never handed out.
              reserved: (index) => index === 0 || (range.family === "IPv4" && index === range.size - 1),
              // Index 0 is the network address: the static band starts at 1.
              dynamicFrom: 1 + staticBand(range.size, 16, 256, 16),
            }),
        ),
        ports: new KeyRangeAllocator(storage, {
          prefix: NODE_PORT_PREFIX,
          size: network.nodePorts.size,
          valueAt: (index) => String(network.nodePorts.base + index),
          indexOf: (value) => {
            const index = Number(value) - network.nodePorts.base;
            return Number.isInteger(index) && index >= 0 && index < network.nodePorts.size ? index : undefined;
          },
          dynamicFrom: staticBand(network.nodePorts.size, 16, 128, 32),
        }),
      };
      perStorage.set(storage, allocators);
    }
    return allocators;
  };

  const release = async (storage: Storage, owner: AllocationOwner, held: Held): Promise<void> => {
    const allocators = allocatorsFor(storage);
    for (const ip of held.ips) {
      const family = ipFamilyOf(ip);
      const index = network.clusterIpRanges.findIndex((range) => range.family === family);
      await allocators.ips[index]?.release(canonicalIp(ip) ?? ip, owner);
    }
    for (const port of held.ports) await allocators.ports.release(String(port), owner);
  };

  /** Fills the service's families, IPs and node ports, claiming each; on a refusal releases what it claimed and throws. */
  const fill = async (service: ApiObject, storage: Storage, dryRun: boolean, old: ApiObject | undefined): Promise<Held> => {
    const owner: AllocationOwner = { uid: service.metadata.uid ?? "", name: `${service.metadata.namespace ?? ""}/${service.metadata.name ?? ""}` };
    const allocators = allocatorsFor(storage);
    const spec = specOf(service);
    const claimed: { ips: string[]; ports: number[] } = { ips: [], ports: [] };
    const oldHeld = old === undefined ? { ips: [], ports: [] } : heldBy(old);
    const errors: FieldError[] = [];
    const refuse = async (error: FieldError | Error): Promise<never> => {
      if (!dryRun)
        await release(storage, owner, {
          ips: claimed.ips.filter((ip) => !oldHeld.ips.includes(ip)),
          ports: claimed.ports.filter((port) => !oldHeld.ports.includes(port)),
        });
      if (error instanceof Error) throw error;
      throw invalid("Service", "", service.metadata.name, [error]);
    };
    const claim = async (allocator: KeyRangeAllocator, value: string): Promise<Claim> =>
      dryRun ? allocator.check(value, owner) : allocator.claim(value, owner);

    if (spec["type"] === "ExternalName") return { ips: [], ports: [] };
    const families = familiesOf(spec, network, errors);
    if (errors.length > 0) throw invalid("Service", "", service.metadata.name, errors);
    if (spec["clusterIP"] === "None") {
      spec["clusterIPs"] = ["None"];
    } else {
      const requested = stringList(spec["clusterIPs"]);
      if (requested.length === 0 && typeof spec["clusterIP"] === "string" && spec["clusterIP"] !== "") requested.push(spec["clusterIP"]);
      const ips: string[] = [];
      for (const [index, family] of families.entries()) {
        const rangeIndex = network.clusterIpRanges.findIndex((range) => range.family === family);
        const allocator = allocators.ips[rangeIndex];
        const range = network.clusterIpRanges[rangeIndex];
        if (allocator === undefined || range === undefined) continue;
        const wanted = requested[index];
        if (wanted !== undefined && wanted !== "") {
          const ip = canonicalIp(wanted) ?? wanted;
          const answer = await claim(allocator, ip);
          if (answer.kind === "outside")
            await refuse(
              invalidIps(
                requested,
                `failed to allocate IP ${wanted}: the provided IP (${wanted}) is not in the valid range. The range of valid IPs is ${range.cidr}`,
              ),
            );
          if (answer.kind === "taken") await refuse(invalidIps(requested, `failed to allocate IP ${wanted}: provided IP is already allocated`));
          if (!dryRun) claimed.ips.push(ip);
          ips.push(ip);
        } else if (dryRun) {
          ips.push(range.addressAt(1));
        } else {
          const ip = await allocator.claimAny(owner);
          if (ip === undefined) await refuse(internalError("failed to allocate a serviceIP: range is full"));
          else {
            claimed.ips.push(ip);
            ips.push(ip);
          }
        }
      }
      spec["clusterIPs"] = ips;
      spec["clusterIP"] = ips[0];
    }
    const portTargets: { holder: Record<string, unknown>; field: string; path: string }[] = [];
    if (needsNodePorts(spec))
      portList(spec).forEach((port, index) => portTargets.push({ holder: port, field: "nodePort", path: `spec.ports[${index}].nodePort` }));
    if (needsHealthCheckPort(spec)) portTargets.push({ holder: spec, field: "healthCheckNodePort", path: "spec.healthCheckNodePort" });
    for (const { holder, field, path } of portTargets) {
      const wanted = holder[field];
      if (typeof wanted === "number" && wanted !== 0) {
        const answer = await claim(allocators.ports, String(wanted));
        if (answer.kind === "outside")
          await refuse({
            type: "FieldValueInvalid",
            field: path,
            message: `Invalid value: ${wanted}: provided port is not in the valid range. The range of valid ports is ${network.nodePorts.base}-${network.nodePorts.base + network.nodePorts.size - 1}`,
          });
        if (answer.kind === "taken")
          await refuse({ type: "FieldValueInvalid", field: path, message: `Invalid value: ${wanted}: provided port is already allocated` });
        if (!dryRun) claimed.ports.push(wanted);
      } else if (!dryRun) {
        const port = await allocators.ports.claimAny(owner);
        if (port === undefined) await refuse(internalError("failed to allocate a nodePort: range is full"));
        holder[field] = Number(port);
        claimed.ports.push(Number(port));
      }
    }
    return heldBy(service);
  };

  return {
    async create(service, storage, dryRun) {
      const held = await fill(service, storage, dryRun, undefined);
      const owner = ownerOf(service);
      return async () => (dryRun ? undefined : release(storage, owner, held));
    },
    async update(service, old, storage, dryRun) {
      const held = await fill(service, storage, dryRun, old);
      const before = heldBy(old);
      const owner = ownerOf(service);
      return async (stored) => {
        if (dryRun) return;
        const [from, to] = stored ? [before, held] : [held, before];
        await release(storage, owner, { ips: from.ips.filter((ip) => !to.ips.includes(ip)), ports: from.ports.filter((port) => !to.ports.includes(port)) });
      };
    },
    async release(service, storage) {
      await release(storage, ownerOf(service), heldBy(service));
    },
    async repair(services, storage, suspects) {
      const allocators = allocatorsFor(storage);
      const ipAllocatorOf = (ip: string): KeyRangeAllocator | undefined =>
        allocators.ips[network.clusterIpRanges.findIndex((range) => range.family === ipFamilyOf(ip))];
      const claimed: string[] = [];
      const conflicts: string[] = [];
      // Who holds each value, by allocation key, and the values held without a claim.
      const holders = new Map<string, string>();
      for (const service of services) {
        const owner = ownerOf(service);
        const held = heldBy(service);
        const values: [KeyRangeAllocator | undefined, string][] = [
          ...held.ips.map((ip): [KeyRangeAllocator | undefined, string] => [ipAllocatorOf(ip), canonicalIp(ip) ?? ip]),
          ...held.ports.map((port): [KeyRangeAllocator | undefined, string] => [allocators.ports, String(port)]),
        ];
        for (const [allocator, value] of values) {
          const key = allocator?.keyOf(value);
          if (allocator === undefined || key === undefined) continue;
          if (holders.has(key) && holders.get(key) !== owner.uid) {
            conflicts.push(key);
            continue;
          }
          holders.set(key, owner.uid);
          const answer = await allocator.claim(value, owner);
          if (answer.kind === "taken") conflicts.push(key);
          else if (answer.kind === "ok" && answer.fresh === true) claimed.push(key);
        }
      }
      const released: string[] = [];
      const nextSuspects = new Set<string>();
      const listed: [KeyRangeAllocator, string, { value: string; uid: string | undefined }[]][] = [
        [allocators.ports, NODE_PORT_PREFIX, await allocators.ports.allocations()],
      ];
      const firstIps = allocators.ips[0];
      if (firstIps !== undefined) listed.push([firstIps, SERVICE_IP_PREFIX, await firstIps.allocations()]);
      for (const [allocator, prefix, allocations] of listed) {
        for (const { value, uid } of allocations) {
          const key = `${prefix}${value}`;
          if (uid === undefined || holders.get(key) === uid) continue;
          if (holders.has(key)) {
            if (!conflicts.includes(key)) conflicts.push(key);
            continue;
          }
          if (suspects !== "all" && !suspects.has(key)) {
            nextSuspects.add(key);
            continue;
          }
          const owner = { uid, name: "" };
          await ((prefix === SERVICE_IP_PREFIX ? ipAllocatorOf(value) : allocator) ?? allocator).release(value, owner);
          released.push(key);
        }
      }
      return { released, claimed, conflicts, suspects: nextSuspects };
    },
  };
}

function ownerOf(service: ApiObject): AllocationOwner {
  return { uid: service.metadata.uid ?? "", name: `${service.metadata.namespace ?? ""}/${service.metadata.name ?? ""}` };
}

function invalidIps(requested: readonly string[], detail: string): FieldError {
  return { type: "FieldValueInvalid", field: "spec.clusterIPs", message: `Invalid value: ${JSON.stringify(requested)}: ${detail}` };
}

/**
 * The families a service gets (kube's initIPFamilyFields, simplified): those it names, else
 * those of the IPs it requests, else the cluster's primary family, and both for a dual-stack
 * policy on a dual-stack cluster. Writes `ipFamilies` and `ipFamilyPolicy` back.
 */
function familiesOf(spec: Spec, network: ServiceNetwork, errors: FieldError[]): ("IPv4" | "IPv6")[] {
  const configured = network.clusterIpRanges.map((range) => range.family);
  const dualStackCluster = configured.length > 1;
  const policy = typeof spec["ipFamilyPolicy"] === "string" ? spec["ipFamilyPolicy"] : undefined;
  if (policy === "RequireDualStack" && !dualStackCluster)
    errors.push({
      type: "FieldValueInvalid",
      field: "spec.ipFamilyPolicy",
      message: `Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services`,
    });
  let families = stringList(spec["ipFamilies"]).filter((family): family is "IPv4" | "IPv6" => family === "IPv4" || family === "IPv6");
  if (families.length === 0) {
    const requested = stringList(spec["clusterIPs"]).filter((ip) => ip !== "" && ip !== "None");
    if (requested.length === 0 && typeof spec["clusterIP"] === "string" && spec["clusterIP"] !== "None" && spec["clusterIP"] !== "")
      requested.push(spec["clusterIP"]);
    families = requested.map(ipFamilyOf).filter((family): family is "IPv4" | "IPv6" => family !== undefined);
  }
  if (families.length === 0 && configured[0] !== undefined) families = [configured[0]];
  families.forEach((family, index) => {
    if (!configured.includes(family))
      errors.push({ type: "FieldValueInvalid", field: `spec.ipFamilies[${index}]`, message: `Invalid value: "${family}": not configured on this cluster` });
  });
  const wantsDual = policy === "RequireDualStack" || policy === "PreferDualStack";
  if (wantsDual && dualStackCluster && families.length === 1) {
    const other = configured.find((family) => family !== families[0]);
    if (other !== undefined) families.push(other);
  }
  spec["ipFamilies"] = families;
  spec["ipFamilyPolicy"] = policy ?? "SingleStack";
  return families;
}
