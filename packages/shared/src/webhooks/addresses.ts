/**
 * Which IP addresses a webhook may be sent to (SSRF defence, CONTRACT §6.7). Addresses are parsed
 * to bytes here rather than matched as text, so every spelling of one address (`127.1`, `::ffff:
 * 7f00:1`, `[::ffff:127.0.0.1]`) gets the same verdict. An IPv6 address passes only inside
 * 2000::/3 and outside the IANA IPv6 special-purpose registry; IPv6 forms that carry an IPv4
 * address (IPv4-compatible, IPv4-mapped, NAT64, 6to4, Teredo, ISATAP) never pass, and are named by
 * the address they carry. The IANA special-purpose address registries are the reference
 * (CONTRACT §6.15, §6.21).
 */
import { isIP } from "node:net";

/** Why an address is refused, in words an operator understands. */
export type AddressClass = "loopback" | "private" | "link-local" | "metadata" | "unspecified" | "multicast" | "reserved";

type Range = readonly [base: string, prefixLength: number, kind: AddressClass];

/**
 * IPv4, refused unless `HUB_WEBHOOKS_ALLOW_PRIVATE=true`: the machine itself and the networks
 * behind it. Everything in {@link IPV4_ALWAYS_REFUSED} stays refused even then.
 */
const IPV4_PRIVATE: readonly Range[] = [
  ["127.0.0.0", 8, "loopback"],
  ["10.0.0.0", 8, "private"],
  ["172.16.0.0", 12, "private"],
  ["192.168.0.0", 16, "private"],
  ["100.64.0.0", 10, "private"], // carrier-grade NAT (shared address space)
  ["198.18.0.0", 15, "private"], // benchmarking networks
  ["169.254.0.0", 16, "link-local"],
];

/** IPv4 that is never a webhook target: cloud metadata services, and addresses no endpoint can have. */
const IPV4_ALWAYS_REFUSED: readonly Range[] = [
  ["169.254.169.254", 32, "metadata"], // AWS, GCP, Azure, OpenStack, …
  ["169.254.170.2", 32, "metadata"], // AWS ECS task metadata
  ["100.100.100.200", 32, "metadata"], // Alibaba Cloud
  ["168.63.129.16", 32, "metadata"], // Azure's wire server
  ["0.0.0.0", 8, "unspecified"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"], // includes 255.255.255.255
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "reserved"],
  ["198.51.100.0", 24, "reserved"],
  ["203.0.113.0", 24, "reserved"],
  ["192.88.99.0", 24, "reserved"], // 6to4 relay anycast (deprecated)
];

/**
 * The only IPv6 that `HUB_WEBHOOKS_ALLOW_PRIVATE=true` admits (CONTRACT §6.21): loopback, unique
 * local and link-local, never a form that carries an IPv4 address.
 */
const IPV6_PRIVATE: readonly Range[] = [
  ["::1", 128, "loopback"],
  ["fc00::", 7, "private"], // unique local
  ["fe80::", 10, "link-local"],
];

/** IPv6 refused even with `HUB_WEBHOOKS_ALLOW_PRIVATE=true`, named for the refusal's message. */
const IPV6_NAMED: readonly Range[] = [
  ["fd00:ec2::254", 128, "metadata"], // AWS over IPv6 (inside the unique local block)
  ["::", 128, "unspecified"],
  ["ff00::", 8, "multicast"],
];

/** IPv6 global unicast (RFC 4291): the only block a webhook may target at all. */
const IPV6_GLOBAL_UNICAST = ["2000::", 3] as const;

/**
 * The IANA IPv6 special-purpose address registry, every entry, whatever its "globally reachable"
 * column says (CONTRACT §6.21): an address in one is refused. The entries outside 2000::/3 are
 * refused by that rule already; they are listed so this reads as the registry does.
 */
const IPV6_SPECIAL_PURPOSE: readonly Range[] = [
  ["::1", 128, "loopback"],
  ["::", 128, "unspecified"],
  ["::ffff:0:0", 96, "reserved"], // IPv4-mapped
  ["64:ff9b::", 96, "reserved"], // IPv4-IPv6 translation
  ["64:ff9b:1::", 48, "reserved"], // IPv4-IPv6 translation, local use
  ["100::", 64, "reserved"], // discard-only
  ["100:0:0:1::", 64, "reserved"], // dummy prefix
  ["2001::", 23, "reserved"], // IETF protocol assignments
  ["2001::", 32, "reserved"], // Teredo
  ["2001:1::1", 128, "reserved"], // Port Control Protocol anycast
  ["2001:1::2", 128, "reserved"], // TURN anycast
  ["2001:1::3", 128, "reserved"], // DNS-SD service registration protocol anycast
  ["2001:2::", 48, "reserved"], // benchmarking
  ["2001:3::", 32, "reserved"], // AMT
  ["2001:4:112::", 48, "reserved"], // AS112-v6
  ["2001:10::", 28, "reserved"], // ORCHID (deprecated)
  ["2001:20::", 28, "reserved"], // ORCHIDv2
  ["2001:30::", 28, "reserved"], // drone remote ID
  ["2001:db8::", 32, "reserved"], // documentation
  ["2002::", 16, "reserved"], // 6to4
  ["2620:4f:8000::", 48, "reserved"], // direct delegation AS112 service
  ["3fff::", 20, "reserved"], // documentation (RFC 9637)
  ["5f00::", 16, "reserved"], // segment routing (SRv6) SIDs
  ["fc00::", 7, "private"], // unique local
  ["fe80::", 10, "link-local"],
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
    const mask = 0x80 >> (bit % 8);
    if ((bytes[bit >> 3]! & mask) !== (base[bit >> 3]! & mask)) return false;
  }
  return true;
}

const compile = (ranges: readonly Range[]) => ranges.map(([base, prefixLength, kind]) => ({ base: addressBytes(base)!, prefixLength, kind }));
const ipv4Private = compile(IPV4_PRIVATE);
const ipv4AlwaysRefused = compile(IPV4_ALWAYS_REFUSED);
const ipv6Private = compile(IPV6_PRIVATE);
const ipv6Named = compile(IPV6_NAMED);
const ipv6SpecialPurpose = compile(IPV6_SPECIAL_PURPOSE);
const ipv6GlobalUnicast = { base: addressBytes(IPV6_GLOBAL_UNICAST[0])!, prefixLength: IPV6_GLOBAL_UNICAST[1] };

const firstMatch = (bytes: Uint8Array, ranges: ReturnType<typeof compile>) => ranges.find((range) => inRange(bytes, range.base, range.prefixLength))?.kind;

/**
 * The IPv4 addresses an IPv6 address carries: IPv4-compatible `::/96` (not `::` and `::1`),
 * IPv4-mapped `::ffff:0:0/96`, IPv4-translated `::ffff:0:0:0/96` (RFC 2765), NAT64 `64:ff9b::/96`
 * and `64:ff9b:1::/48` (the last 32 bits), 6to4 `2002::/16`, Teredo `2001::/32` (its server, and
 * its client stored inverted), and an ISATAP interface identifier (`…:0:5efe:a.b.c.d`, under any
 * prefix, link-local included).
 */
function embeddedIpv4s(bytes: Uint8Array): Uint8Array[] {
  if (bytes.length !== 16) return [];
  const zeros = (from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);
  const last32 = bytes.slice(12, 16);
  if (zeros(0, 12) && bytes[12] !== 0) return [last32];
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return [last32];
  if (zeros(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(10, 12)) return [last32];
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b) {
    if (zeros(4, 12)) return [last32];
    if (bytes[4] === 0x00 && bytes[5] === 0x01) return [last32];
  }
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return [bytes.slice(2, 6)];
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0x00 && bytes[3] === 0x00) return [bytes.slice(4, 8), last32.map((b) => b ^ 0xff)];
  if ((bytes[8] === 0x00 || bytes[8] === 0x02) && bytes[9] === 0x00 && bytes[10] === 0x5e && bytes[11] === 0xfe) return [last32];
  return [];
}

function ipv4Class(bytes: Uint8Array, allowPrivate: boolean): AddressClass | undefined {
  return firstMatch(bytes, ipv4AlwaysRefused) ?? (allowPrivate ? undefined : firstMatch(bytes, ipv4Private));
}

/**
 * IPv6 (CONTRACT §6.21): global unicast only inside 2000::/3 and outside every special-purpose
 * entry; a form that carries an IPv4 address never passes, and is named by what it carries
 * (`::ffff:169.254.169.254` is "metadata") so the message says what it would have reached.
 */
function ipv6Class(bytes: Uint8Array, allowPrivate: boolean): AddressClass | undefined {
  const carried = embeddedIpv4s(bytes);
  if (carried.length > 0) return carried.map((ipv4) => ipv4Class(ipv4, false)).find((kind) => kind !== undefined) ?? "reserved";
  const named = firstMatch(bytes, ipv6Named);
  if (named) return named;
  const local = firstMatch(bytes, ipv6Private);
  if (local) return allowPrivate ? undefined : local;
  if (!inRange(bytes, ipv6GlobalUnicast.base, ipv6GlobalUnicast.prefixLength)) return "reserved";
  return firstMatch(bytes, ipv6SpecialPurpose);
}

/**
 * The class that makes `address` unfit as a webhook target, or undefined when it may be used.
 * With `allowPrivate` (development and tests only), IPv4 loopback, private, CGNAT and link-local
 * addresses pass, and of IPv6 only `::1`, `fc00::/7` and `fe80::/10`; metadata, unspecified,
 * multicast, reserved and IPv4-carrying IPv6 addresses never do. Text that is no IP address at all
 * is "reserved".
 */
export function refusedAddressClass(address: string, options: { allowPrivate: boolean }): AddressClass | undefined {
  const parsed = addressBytes(address);
  if (!parsed) return "reserved";
  return parsed.length === 4 ? ipv4Class(parsed, options.allowPrivate) : ipv6Class(parsed, options.allowPrivate);
}
