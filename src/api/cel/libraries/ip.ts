/**
 * kube's IP and CIDR libraries: `ip(s)`, `isIP(s)`, `cidr(s)`, `isCIDR(s)`, `string(ip)`; on an
 * IP `family()`, `isUnspecified()`, `isLoopback()`, `isLinkLocalMulticast()`,
 * `isLinkLocalUnicast()`, `isGlobalUnicast()`; on a CIDR `containsIP(ip|string)`,
 * `containsCIDR(cidr|string)`, `ip()`, `masked()`, `prefixLength()`. As in kube, IPv4-mapped IPv6
 * addresses and zones are rejected.
 */
import { EvaluationError, type Environment } from "@marcbachmann/cel-js";

/** An address as a number of `bits` bits (32 for IPv4, 128 for IPv6). */
export class IpAddress {
  constructor(
    readonly value: bigint,
    readonly bits: 32 | 128,
  ) {}
  toString(): string {
    return this.bits === 32 ? formatV4(this.value) : formatV6(this.value);
  }
}

/** An address plus a prefix length, as written (not masked). */
export class CidrBlock {
  constructor(
    readonly address: IpAddress,
    readonly prefix: number,
  ) {}
  toString(): string {
    return `${this.address.toString()}/${this.prefix}`;
  }
}

function parseV4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || (part.length > 1 && part.startsWith("0")) || Number(part) > 255) return undefined;
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

function parseV6(text: string): bigint | undefined {
  if (text.includes("%")) return undefined;
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groups = (half: string | undefined): string[] | undefined => (half === undefined || half === "" ? [] : half.split(":"));
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  if (head === undefined || tail === undefined) return undefined;
  const words: bigint[] = [];
  const all = [...head, ...tail];
  for (const [index, group] of all.entries()) {
    if (index === all.length - 1 && group.includes(".")) {
      const v4 = parseV4(group);
      if (v4 === undefined) return undefined;
      words.push(v4 >> 16n, v4 & 0xffffn);
      continue;
    }
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    words.push(BigInt(`0x${group}`));
  }
  const tailWords = tail.reduce((count, group) => count + (group.includes(".") ? 2 : 1), 0);
  const headWords = words.length - tailWords;
  if (halves.length === 1 ? words.length !== 8 : words.length > 7) return undefined;
  const full = [...words.slice(0, headWords), ...new Array<bigint>(8 - words.length).fill(0n), ...words.slice(headWords)];
  return full.reduce((value, word) => (value << 16n) | word, 0n);
}

function formatV4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join(".");
}

function formatV6(value: bigint): string {
  const words = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) => Number((value >> shift) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && words[start + length] === 0) length++;
    if (length > bestLength) [bestStart, bestLength] = [start, length];
  }
  const hex = words.map((word) => word.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}

/** Parses an IPv4 or IPv6 address the way kube's `ip()` accepts it; undefined otherwise. */
export function parseIp(text: string): IpAddress | undefined {
  const v4 = parseV4(text);
  if (v4 !== undefined) return new IpAddress(v4, 32);
  const v6 = parseV6(text);
  if (v6 === undefined) return undefined;
  if (v6 >> 32n === 0xffffn) return undefined; // IPv4-mapped IPv6 is ambiguous; kube rejects it.
  return new IpAddress(v6, 128);
}

/** Parses `address/prefix`; undefined when malformed or the prefix is out of range. */
export function parseCidr(text: string): CidrBlock | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const address = parseIp(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (address === undefined || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  return prefix > address.bits ? undefined : new CidrBlock(address, prefix);
}

function mask(block: CidrBlock): bigint {
  const bits = BigInt(block.address.bits);
  const hostBits = bits - BigInt(block.prefix);
  return ((1n << bits) - 1n) ^ ((1n << hostBits) - 1n);
}

function contains(block: CidrBlock, ip: IpAddress): boolean {
  if (ip.bits !== block.address.bits) return false;
  const m = mask(block);
  return (ip.value & m) === (block.address.value & m);
}

function requireIp(text: string): IpAddress {
  const ip = parseIp(text);
  if (ip === undefined) throw new EvaluationError(`IP Address ${JSON.stringify(text)} parse error during conversion from string`);
  return ip;
}

function requireCidr(text: string): CidrBlock {
  const block = parseCidr(text);
  if (block === undefined) throw new EvaluationError(`network address parse error during conversion from string: ${JSON.stringify(text)}`);
  return block;
}

function inRange(ip: IpAddress, text: string): boolean {
  const block = parseCidr(text);
  return block !== undefined && contains(block, ip);
}

/** Registers `net.IP` and `net.CIDR` and their functions on `env`. */
export function registerIpLibrary(env: Environment): void {
  env
    .registerType("net.IP", IpAddress)
    .registerType("net.CIDR", CidrBlock)
    .registerFunction("ip(string): net.IP", requireIp)
    .registerFunction("isIP(string): bool", (text: string) => parseIp(text) !== undefined)
    .registerFunction("string(net.IP): string", (ip: IpAddress) => ip.toString())
    .registerFunction("string(net.CIDR): string", (block: CidrBlock) => block.toString())
    .registerFunction("net.IP.family(): int", (ip: IpAddress) => (ip.bits === 32 ? 4n : 6n))
    .registerFunction("net.IP.isUnspecified(): bool", (ip: IpAddress) => ip.value === 0n)
    .registerFunction("net.IP.isLoopback(): bool", (ip: IpAddress) => (ip.bits === 32 ? inRange(ip, "127.0.0.0/8") : ip.value === 1n))
    .registerFunction("net.IP.isLinkLocalMulticast(): bool", (ip: IpAddress) => inRange(ip, ip.bits === 32 ? "224.0.0.0/24" : "ff02::/16"))
    .registerFunction("net.IP.isLinkLocalUnicast(): bool", (ip: IpAddress) => inRange(ip, ip.bits === 32 ? "169.254.0.0/16" : "fe80::/10"))
    .registerFunction("net.IP.isGlobalUnicast(): bool", (ip: IpAddress) => {
      if (ip.bits === 32 && ip.value === 0xffffffffn) return false;
      const excluded = ip.bits === 32 ? ["0.0.0.0/32", "127.0.0.0/8", "169.254.0.0/16", "224.0.0.0/4"] : ["::/128", "::1/128", "fe80::/10", "ff00::/8"];
      return !excluded.some((range) => inRange(ip, range));
    })
    .registerOperator("net.IP == net.IP", (a: IpAddress, b: IpAddress) => a.bits === b.bits && a.value === b.value)
    .registerFunction("cidr(string): net.CIDR", requireCidr)
    .registerFunction("isCIDR(string): bool", (text: string) => parseCidr(text) !== undefined)
    .registerFunction("net.CIDR.containsIP(net.IP): bool", contains)
    .registerFunction("net.CIDR.containsIP(string): bool", (block: CidrBlock, text: string) => contains(block, requireIp(text)))
    .registerFunction(
      "net.CIDR.containsCIDR(net.CIDR): bool",
      (block: CidrBlock, other: CidrBlock) => other.prefix >= block.prefix && contains(block, other.address),
    )
    .registerFunction("net.CIDR.containsCIDR(string): bool", (block: CidrBlock, text: string) => {
      const other = requireCidr(text);
      return other.prefix >= block.prefix && contains(block, other.address);
    })
    .registerFunction("net.CIDR.ip(): net.IP", (block: CidrBlock) => block.address)
    .registerFunction(
      "net.CIDR.masked(): net.CIDR",
      (block: CidrBlock) => new CidrBlock(new IpAddress(block.address.value & mask(block), block.address.bits), block.prefix),
    )
    .registerFunction("net.CIDR.prefixLength(): int", (block: CidrBlock) => BigInt(block.prefix))
    .registerOperator(
      "net.CIDR == net.CIDR",
      (a: CidrBlock, b: CidrBlock) => a.prefix === b.prefix && a.address.bits === b.address.bits && a.address.value === b.address.value,
    );
}
