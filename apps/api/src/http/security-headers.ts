/**
 * Response headers that keep browsers from misusing what the hub serves (CONTRACT §6.15).
 */
import type { RequestHandler } from "express";

/** Every response: a browser never guesses a type other than the one sent (a JSON body run as a script). */
export const noSniff: RequestHandler = (_req, res, next) => {
  res.set("X-Content-Type-Options", "nosniff");
  next();
};

/**
 * A Content-Security-Policy for a page of this origin: everything from the origin only, no
 * plugins, no framing by anyone; `extra` widens one directive (`{ "style-src": ["'unsafe-inline'"] }`).
 */
export function sameOriginContentSecurityPolicy(extra: Record<string, string[]> = {}): string {
  const directives: Record<string, string[]> = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
  };
  for (const [name, sources] of Object.entries(extra)) directives[name] = [...(directives[name] ?? []), ...sources];
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(" ")}`)
    .join("; ");
}

/**
 * The pages a browser shows (the console, /docs): a Content-Security-Policy (which includes
 * `frame-ancestors 'none'`, and X-Frame-Options: DENY for browsers that predate it, so no other
 * site frames the page to trick a click) and no Referer sent from it.
 */
export function pageSecurityHeaders(contentSecurityPolicy: string): RequestHandler {
  return (_req, res, next) => {
    res.set({
      "Content-Security-Policy": contentSecurityPolicy,
      "X-Content-Type-Options": "nosniff",
      "X-Frame-Options": "DENY",
      "Referrer-Policy": "no-referrer",
    });
    next();
  };
}

/** What a response carries that no cache may keep: a login token, or a key or secret shown once. */
export type SecretInResponse = "token" | "key";

/** `Cache-Control: no-store` for a response that carries a secret; a token response also `Pragma: no-cache` (RFC 6749 §5.1). */
export function noStoreHeaders(secret: SecretInResponse): Record<string, string> {
  return secret === "token" ? { "Cache-Control": "no-store", Pragma: "no-cache" } : { "Cache-Control": "no-store" };
}
