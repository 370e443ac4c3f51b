import { isIPv4, isIPv6 } from "node:net";

/**
 * An IPv4 or IPv6 CIDR as an indexable range of addresses: `addressAt(0)` is the network
 * address. Ranges are capped at 2^20 addresses (kube's bitmap allocator refuses larger service
 * ranges: an IPv4 mask of at least /12, an IPv6 one of at least /108).
 */
export interface CidrRange {
  readonly family: "IPv4" | "IPv6";
  readonly cidr: string;
  readonly size: number;
  addressAt(index: number): string;
  /** The index of an address in the range, or undefined when it is outside. */
  indexOf(address: string): number | undefined;
}

const MAX_BITS = 20;

/** Parses `10.0.0.0/24` or `fd00::/108`; throws an Error naming the problem. */
export function parseCidr(text: string): CidrRange {
  const [address = "", maskText = ""] = text.split("/");
  const family = isIPv4(address) ? "IPv4" : isIPv6(address) ? "IPv6" : undefined;
  if (family === undefined || !/^\d+$/.test(maskText)) throw new Error(`invalid CIDR address: ${text}`);
  const width = family === "IPv4" ? 32 : 128;
  const mask = Number(maskText);
  if (mask > width) throw new Error(`invalid CIDR address: ${text}`);
  const hostBits = width - mask;
  if (hostBits > MAX_BITS) throw new Error(`the range ${text} is too large: the mask must be at least /${width - MAX_BITS}`);
  const base = (addressBits(address, family) >> BigInt(hostBits)) << BigInt(hostBits);
  const size = 2 ** hostBits;
  const cidr = `${formatAddress(base, family)}/${mask}`;
  return {
    family,
    cidr,
    size,
    addressAt: (index) => formatAddress(base + BigInt(index), family),
    indexOf(candidate) {
      if (family === "IPv4" ? !isIPv4(candidate) : !isIPv6(candidate)) return undefined;
      const offset = addressBits(candidate, family) - base;
      return offset >= 0n && offset < BigInt(size) ? Number(offset) : undefined;
    },
  };
}

/** The address family of an IP, or undefined when it is not one. */
export function ipFamilyOf(address: string): "IPv4" | "IPv6" | undefined {
  return isIPv4(address) ? "IPv4" : isIPv6(address) ? "IPv6" : undefined;
}

function addressBits(address: string, family: "IPv4" | "IPv6"): bigint {
  if (family === "IPv4") return address.split(".").reduce((bits, part) => (bits << 8n) | BigInt(Number(part)), 0n);
  const [head = "", tail] = address.split("::");
  const groups = (part: string): string[] => (part === "" ? [] : part.split(":"));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  // An embedded IPv4 tail (::ffff:1.2.3.4) counts as two groups.
  const expand = (list: string[]): string[] =>
    list.flatMap((group) => {
      if (!group.includes(".")) return [group];
      const bits = addressBits(group, "IPv4");
      return [(bits >> 16n).toString(16), (bits & 0xffffn).toString(16)];
    });
  const leftGroups = expand(left);
  const rightGroups = expand(right);
  const zeros = tail === undefined ? [] : new Array<string>(8 - leftGroups.length - rightGroups.length).fill("0");
  return [...leftGroups, ...zeros, ...rightGroups].reduce((bits, group) => (bits << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}

/** IPv4 dotted quads; IPv6 in RFC 5952 form (lower case, the longest zero run as `::`). */
function formatAddress(bits: bigint, family: "IPv4" | "IPv6"): string {
  if (family === "IPv4") return [24n, 16n, 8n, 0n].map((shift) => String((bits >> shift) & 0xffn)).join(".");
  const groups = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) => Number((bits >> shift) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length++;
    if (length > bestLength) {
      bestStart = start;
      bestLength = length;
    }
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}

/** The canonical spelling of an IP (so `fd00:0::1` and `fd00::1` are one address), or undefined. */
export function canonicalIp(address: string): string | undefined {
  const family = ipFamilyOf(address);
  return family === undefined ? undefined : formatAddress(addressBits(address, family), family);
}
