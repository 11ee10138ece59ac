/**
 * Which IP addresses a webhook may be sent to (SSRF defence, CONTRACT §6.7). Addresses are parsed
 * to bytes here rather than matched as text, so every spelling of one address (`127.1`, `::ffff:
 * 7f00:1`, `[::ffff:127.0.0.1]`) gets the same verdict, and IPv6 forms that carry an IPv4 address
 * (IPv4-compatible, IPv4-mapped, NAT64, 6to4, Teredo) are judged by the address they carry. The
 * IANA special-purpose address registries are the reference (CONTRACT §6.15).
 */
import { isIP } from "node:net";

/** Why an address is refused, in words an operator understands. */
export type AddressClass = "loopback" | "private" | "link-local" | "metadata" | "unspecified" | "multicast" | "reserved";

/**
 * Refused unless `HUB_WEBHOOKS_ALLOW_PRIVATE=true`: the machine itself and the networks behind it.
 * Everything in {@link ALWAYS_REFUSED} stays refused even then.
 */
const PRIVATE_RANGES: ReadonlyArray<readonly [string, number, AddressClass]> = [
  ["127.0.0.0", 8, "loopback"],
  ["::1", 128, "loopback"],
  ["10.0.0.0", 8, "private"],
  ["172.16.0.0", 12, "private"],
  ["192.168.0.0", 16, "private"],
  ["100.64.0.0", 10, "private"], // carrier-grade NAT (shared address space)
  ["198.18.0.0", 15, "private"], // benchmarking networks
  ["fc00::", 7, "private"], // unique local
  ["169.254.0.0", 16, "link-local"],
  ["fe80::", 10, "link-local"],
];

/** Never a webhook target: cloud metadata services, and addresses no endpoint can have. */
const ALWAYS_REFUSED: ReadonlyArray<readonly [string, number, AddressClass]> = [
  ["169.254.169.254", 32, "metadata"], // AWS, GCP, Azure, OpenStack, …
  ["169.254.170.2", 32, "metadata"], // AWS ECS task metadata
  ["100.100.100.200", 32, "metadata"], // Alibaba Cloud
  ["168.63.129.16", 32, "metadata"], // Azure's wire server
  ["fd00:ec2::254", 128, "metadata"], // AWS over IPv6
  ["0.0.0.0", 8, "unspecified"],
  ["::", 128, "unspecified"],
  ["224.0.0.0", 4, "multicast"],
  ["ff00::", 8, "multicast"],
  ["240.0.0.0", 4, "reserved"], // includes 255.255.255.255
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "reserved"],
  ["198.51.100.0", 24, "reserved"],
  ["203.0.113.0", 24, "reserved"],
  ["2001:db8::", 32, "reserved"],
  ["3fff::", 20, "reserved"], // documentation (RFC 9637)
  ["192.88.99.0", 24, "reserved"], // 6to4 relay anycast (deprecated)
  ["100::", 64, "reserved"], // discard-only
  ["2001:2::", 48, "reserved"], // benchmarking
  ["2001:10::", 28, "reserved"], // ORCHID
  ["2001:20::", 28, "reserved"], // ORCHIDv2
  ["5f00::", 16, "reserved"], // SRv6 SIDs
  ["fec0::", 10, "reserved"], // site-local (deprecated, still routed inside some networks)
];

/** 4 or 16 bytes of an IP address in any textual form Node accepts; undefined when it is none. */
export function addressBytes(address: string): Uint8Array | undefined {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const version = isIP(bare);
  if (version === 4) return Uint8Array.from(bare.split(".").map(Number));
  if (version !== 6) return undefined;
  const withoutZone = bare.split("%")[0]!;
  let text = withoutZone;
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail.push(...dotted[1]!.split(".").map(Number));
    text = `${text.slice(0, -dotted[1]!.length)}0:0`;
  }
  const [head, rest] = text.split("::") as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(":").filter((g) => g !== "") : []);
  const left = groups(head);
  const right = groups(rest);
  const missing = 8 - left.length - right.length;
  const all = [...left, ...Array.from({ length: rest === undefined ? 0 : missing }, () => "0"), ...right];
  const bytes = new Uint8Array(16);
  all.forEach((group, i) => {
    const value = Number.parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  if (tail.length === 4) bytes.set(tail, 12);
  return bytes;
}

function inRange(bytes: Uint8Array, base: Uint8Array, prefixLength: number): boolean {
  if (bytes.length !== base.length) return false;
  for (let bit = 0; bit < prefixLength; bit++) {
    const mask = 0x80 >> bit % 8;
    if ((bytes[bit >> 3]! & mask) !== (base[bit >> 3]! & mask)) return false;
  }
  return true;
}

const compile = (ranges: ReadonlyArray<readonly [string, number, AddressClass]>) =>
  ranges.map(([base, prefixLength, kind]) => ({ base: addressBytes(base)!, prefixLength, kind }));
const privateRanges = compile(PRIVATE_RANGES);
const alwaysRefused = compile(ALWAYS_REFUSED);

/**
 * The IPv4 addresses an IPv6 address carries, from the IANA special-purpose registry's forms:
 * IPv4-compatible `::/96` (not `::` and `::1`), IPv4-mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96`
 * and `64:ff9b:1::/48` (the last 32 bits), 6to4 `2002::/16`, and Teredo `2001::/32` (its server,
 * and its client stored inverted).
 */
function embeddedIpv4s(bytes: Uint8Array): Uint8Array[] {
  if (bytes.length !== 16) return [];
  const zeros = (from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);
  const last32 = bytes.slice(12, 16);
  if (zeros(0, 12) && bytes[12] !== 0) return [last32];
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return [last32];
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b) {
    if (zeros(4, 12)) return [last32];
    if (bytes[4] === 0x00 && bytes[5] === 0x01) return [last32];
  }
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return [bytes.slice(2, 6)];
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0x00 && bytes[3] === 0x00) return [bytes.slice(4, 8), last32.map((b) => b ^ 0xff)];
  return [];
}

function classOf(bytes: Uint8Array, allowPrivate: boolean): AddressClass | undefined {
  for (const range of alwaysRefused) if (inRange(bytes, range.base, range.prefixLength)) return range.kind;
  if (allowPrivate) return undefined;
  for (const range of privateRanges) if (inRange(bytes, range.base, range.prefixLength)) return range.kind;
  return undefined;
}

/**
 * The class that makes `address` unfit as a webhook target, or undefined when it may be used.
 * With `allowPrivate` (development and tests only), loopback, private and link-local addresses
 * pass; metadata, unspecified, multicast and reserved addresses never do. Text that is no IP
 * address at all is "reserved".
 */
export function refusedAddressClass(address: string, options: { allowPrivate: boolean }): AddressClass | undefined {
  const parsed = addressBytes(address);
  if (!parsed) return "reserved";
  // The carried IPv4 address first: `::ffff:127.0.0.1` is loopback, whatever the IPv6 form says.
  for (const candidate of [...embeddedIpv4s(parsed), parsed]) {
    const refused = classOf(candidate, options.allowPrivate);
    if (refused) return refused;
  }
  return undefined;
}
