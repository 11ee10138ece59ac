/**
 * The client address the login throttle counts by (CONTRACT §6.15): Express's `req.ip`, which is
 * the socket's address or the `X-Forwarded-For` hop that `HUB_TRUST_PROXY` (Express's `trust
 * proxy`) picks. One IPv6 host usually holds a whole /64, so an IPv6 address counts as its /64.
 */
import type { Request } from "express";
import { addressBytes } from "@hub/shared/webhooks";

/** The address a request counts as (see {@link throttledAddress}). */
export function clientAddress(req: Request): string {
  return throttledAddress(req.ip ?? req.socket.remoteAddress ?? "");
}

/**
 * `address` as the throttle counts it: IPv4 (also written IPv4-mapped, `::ffff:192.0.2.1`) as
 * dotted quad, any other IPv6 address as its /64 (`2001:db8:1:2::/64`). Text that is no address
 * is kept as it is.
 */
export function throttledAddress(address: string): string {
  const bytes = addressBytes(address);
  if (!bytes) return address;
  const isMapped = bytes.length === 16 && bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (bytes.length === 4 || isMapped) return [...bytes.subarray(-4)].join(".");
  const groups = [0, 2, 4, 6].map((i) => ((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return `${groups.join(":")}::/64`;
}
