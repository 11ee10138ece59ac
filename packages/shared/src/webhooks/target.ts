/**
 * Where a webhook may go (CONTRACT §6.7): an `https://` URL (`http://` only with
 * HUB_WEBHOOKS_ALLOW_INSECURE) whose host resolves only to addresses fit for it (loopback, private
 * and link-local only with HUB_WEBHOOKS_ALLOW_PRIVATE; cloud metadata never). The API checks it at
 * creation and the relay again before every attempt, because DNS can change; the relay then
 * connects to the very address it checked.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { refusedAddressClass } from "./addresses";

export interface WebhookTargetPolicy {
  /** `http://` URLs are accepted (development and tests only). */
  allowInsecure: boolean;
  /** Loopback, private and link-local addresses are accepted (development and tests only). */
  allowPrivate: boolean;
}

/** One resolved address of a host. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (tests inject their own). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo, as any HTTP client would use), every address. */
export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

/** Longest URL a subscription may have. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;

/** What a refusal says to the developer trying a webhook on their own machine (CONTRACT §6.21). */
const LOCAL_WEBHOOK_SETTINGS =
  "for a local webhook, HUB_WEBHOOKS_ALLOW_INSECURE=true allows http:// and HUB_WEBHOOKS_ALLOW_PRIVATE=true allows loopback and private addresses";

export type TargetCheck<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * Checks the form of a webhook URL: absolute, `https:` (or `http:` when allowed), a host, and no
 * user name or password (credentials belong in the signature, and the URL is shown to admins and
 * written into events).
 */
export function checkWebhookUrl(raw: string, policy: Pick<WebhookTargetPolicy, "allowInsecure">): TargetCheck<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "not an absolute URL" };
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && policy.allowInsecure)) {
    return { ok: false, reason: policy.allowInsecure ? "the URL must be https:// or http://" : `the URL must be https:// (${LOCAL_WEBHOOK_SETTINGS})` };
  }
  if (!url.hostname) return { ok: false, reason: "the URL has no host" };
  if (url.username || url.password) return { ok: false, reason: "the URL must not contain a user name or password" };
  return { ok: true, value: url };
}

/** A URL's host without the brackets of an IPv6 literal. */
export function bareHostname(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Resolves the URL's host and checks every address it has; a host with even one refused address
 * is refused (else a name answering with both a public and a private address would pass the check
 * and be connected to the private one). Returns the address to connect to: the first one.
 */
export async function resolveWebhookTarget(
  url: URL,
  policy: Pick<WebhookTargetPolicy, "allowPrivate">,
  resolver: HostResolver = systemResolver,
): Promise<TargetCheck<ResolvedAddress>> {
  const hostname = bareHostname(url);
  let addresses: ResolvedAddress[];
  const literal = isIP(hostname);
  if (literal !== 0) addresses = [{ address: hostname, family: literal === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await resolver(hostname);
    } catch {
      return { ok: false, reason: `the host ${hostname} does not resolve` };
    }
  }
  if (addresses.length === 0) return { ok: false, reason: `the host ${hostname} does not resolve` };
  for (const { address } of addresses) {
    const refused = refusedAddressClass(address, policy);
    if (refused) {
      const named = literal === 0 ? `the host ${hostname} resolves to ${address}, ` : `${address} is `;
      // Name the setting only when it would admit this address (never a metadata or embedded-IPv4 one).
      const allowedLocally = !policy.allowPrivate && refusedAddressClass(address, { allowPrivate: true }) === undefined;
      const hint = allowedLocally ? " (for a local webhook, HUB_WEBHOOKS_ALLOW_PRIVATE=true allows it)" : "";
      return { ok: false, reason: `${named}a ${refused} address, which webhooks may not target${hint}` };
    }
  }
  return { ok: true, value: addresses[0]! };
}
