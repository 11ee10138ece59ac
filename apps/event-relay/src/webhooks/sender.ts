/**
 * Sends one webhook attempt, with the SSRF defence of CONTRACT §6.7 applied every time: the URL's
 * form is checked again (the settings may have changed since the subscription was created), its
 * host resolved again and every address checked (DNS may have changed), and the connection is
 * made to exactly the address that was checked (a pinned `lookup`, so a second resolution cannot
 * swap it). Redirects are never followed (a 3xx is a failed attempt), the whole exchange is
 * bounded by a timeout, and at most `maxResponseBytes` of the answer are read.
 *
 * What an attempt says about itself (`error`) names the cause, never the URL or a header: those can
 * carry secrets (tokens in paths, the signature).
 */
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { bareHostname, checkWebhookUrl, resolveWebhookTarget, type HostResolver, type ResolvedAddress, type WebhookTargetPolicy } from "@hub/shared/webhooks";
import type { SignedWebhookRequest } from "./signer";

/**
 * How one attempt ended. `refused`: never sent, the target is not allowed. `aborted`: cut short
 * because the relay is stopping; it does not count as an attempt.
 */
export type AttemptResult =
  | { kind: "delivered"; statusCode: number }
  | { kind: "http_error"; statusCode: number; error: string }
  | { kind: "network_error" | "timeout" | "refused" | "aborted"; statusCode: null; error: string };

export interface WebhookSenderOptions {
  policy: WebhookTargetPolicy;
  resolver: HostResolver;
  /** The whole attempt, connection included. CONTRACT §6.7: 10 s. */
  timeoutMs: number;
  /** The most bytes of an answer read; the rest is not (the connection is closed). */
  maxResponseBytes: number;
}

export interface WebhookSender {
  send(url: string, request: SignedWebhookRequest, signal?: AbortSignal): Promise<AttemptResult>;
  /** Closes the kept-alive connections. */
  close(): void;
}

/** A lookup that answers with the one address already checked, whatever the name. */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as (err: null, addresses: ResolvedAddress[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
}

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by the endpoint",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EPIPE: "connection closed by the endpoint",
};

function describeNetworkError(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code && NETWORK_ERRORS[code]) return NETWORK_ERRORS[code];
  if (code?.startsWith("ERR_TLS") || code?.includes("CERT") || code === "DEPTH_ZERO_SELF_SIGNED_CERT") return `TLS error (${code})`;
  return code ? `network error (${code})` : "network error";
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  // Kept-alive connections: a busy subscription does not pay a TCP (and TLS) handshake per event.
  // A reused connection goes to an address that was checked when it was opened.
  const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };

  async function send(rawUrl: string, request: SignedWebhookRequest, signal?: AbortSignal): Promise<AttemptResult> {
    const checked = checkWebhookUrl(rawUrl, options.policy);
    if (!checked.ok) return { kind: "refused", statusCode: null, error: `refused: ${checked.reason}` };
    const url = checked.value;
    const target = await resolveWebhookTarget(url, options.policy, options.resolver);
    if (!target.ok) return { kind: "refused", statusCode: null, error: `refused: ${target.reason}` };
    const secure = url.protocol === "https:";
    if (signal?.aborted) return { kind: "aborted", statusCode: null, error: "aborted: the relay stopped" };

    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const settle = (result: AttemptResult) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener("abort", onAbort);
        resolve(result);
      };
      const req = (secure ? https : http).request({
        protocol: url.protocol,
        hostname: bareHostname(url),
        port: url.port || (secure ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: "POST",
        headers: { ...request.headers, "content-length": String(Buffer.byteLength(request.body)) },
        agent: agents[secure ? "https:" : "http:"],
        lookup: pinnedLookup(target.value),
      });
      // Bounds the whole exchange: connecting, the answer, and reading (up to the cap) its body.
      const timer = setTimeout(() => {
        settle({ kind: "timeout", statusCode: null, error: `no answer within ${options.timeoutMs / 1000} s` });
        req.destroy();
      }, options.timeoutMs);
      req.on("close", () => clearTimeout(timer));
      const onAbort = () => {
        settle({ kind: "aborted", statusCode: null, error: "aborted: the relay stopped" });
        req.destroy();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      req.on("error", (error) => settle({ kind: "network_error", statusCode: null, error: describeNetworkError(error) }));
      req.on("response", (res) => {
        const statusCode = res.statusCode ?? 0;
        // The answer decides; its body is read (so the connection can be reused) but never kept,
        // and never more than maxResponseBytes of it, nor for longer than the timeout.
        let read = 0;
        res.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > options.maxResponseBytes) res.destroy();
        });
        res.on("error", () => undefined);
        res.on("close", () => clearTimeout(timer));
        if (statusCode >= 200 && statusCode < 300) settle({ kind: "delivered", statusCode });
        else if (statusCode >= 300 && statusCode < 400) settle({ kind: "http_error", statusCode, error: `HTTP ${statusCode}: redirects are not followed` });
        else settle({ kind: "http_error", statusCode, error: `HTTP ${statusCode}` });
      });
      req.end(request.body);
    });
  }

  return {
    send,
    close() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}
