/**
 * The OpenID provider as the hub knows it: its discovery document, read in the background and
 * retried until it answers, so the hub starts (and serves passwords) while the provider is down.
 * Protocol checks that matter for security (the ID token's signature, iss, aud, exp) are jose's.
 */
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from "jose";
import type { Logger } from "@hub/shared";
import type { OidcSettings } from "./env";

export interface DiscoveredProvider {
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwks: ReturnType<typeof createRemoteJWKSet>;
}

/** Seconds a 503 of GET /identity/oidc/login asks the browser to wait. */
export const DISCOVERY_RETRY_AFTER_SECONDS = 5;
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;
const FETCH_TIMEOUT_MS = 5_000;

export class OidcProvider {
  private discovered: DiscoveredProvider | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    readonly settings: OidcSettings,
    private readonly logger: Logger,
  ) {}

  /** Starts discovery; it is retried with backoff (0.5 s doubling to 30 s) until it succeeds. */
  start(): void {
    void this.attempt(RETRY_MIN_MS);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** The provider's endpoints, or undefined while discovery has not succeeded yet. */
  get current(): DiscoveredProvider | undefined {
    return this.discovered;
  }

  private async attempt(nextDelayMs: number): Promise<void> {
    try {
      this.discovered = await this.discover();
      this.logger.info({ issuer: this.settings.issuer }, "OpenID provider discovered");
    } catch (error) {
      if (this.stopped) return;
      this.logger.warn({ issuer: this.settings.issuer, err: error, retry_in_ms: nextDelayMs }, "OpenID provider discovery failed; retrying");
      this.timer = setTimeout(() => void this.attempt(Math.min(nextDelayMs * 2, RETRY_MAX_MS)), nextDelayMs);
      this.timer.unref();
    }
  }

  private async discover(): Promise<DiscoveredProvider> {
    const url = `${this.settings.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
    const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: "error" });
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    const metadata = (await response.json()) as Record<string, unknown>;
    // OpenID Connect Discovery §4.3: the document must name exactly the issuer it was read from.
    if (metadata.issuer !== this.settings.issuer) throw new Error(`${url} names issuer ${String(metadata.issuer)}, not ${this.settings.issuer}`);
    const endpoint = (name: string) => {
      const value = metadata[name];
      if (typeof value !== "string" || !URL.canParse(value)) throw new Error(`${url} has no ${name}`);
      return value;
    };
    return {
      authorizationEndpoint: endpoint("authorization_endpoint"),
      tokenEndpoint: endpoint("token_endpoint"),
      jwks: createRemoteJWKSet(new URL(endpoint("jwks_uri")), { timeoutDuration: FETCH_TIMEOUT_MS }),
    };
  }

  /** Trades an authorization code (and its PKCE verifier) for the provider's ID token; undefined when refused. */
  async exchangeCode(provider: DiscoveredProvider, code: string, verifier: string): Promise<string | undefined> {
    const { clientId, clientSecret, redirectUri } = this.settings;
    // client_secret_basic (RFC 6749 §2.3.1): both parts form-encoded before base64.
    const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString("base64");
    const response = await fetch(provider.tokenEndpoint, {
      method: "POST",
      headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: verifier }),
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      redirect: "error",
    });
    if (!response.ok) {
      this.logger.warn({ status: response.status }, "OpenID provider refused the authorization code");
      return undefined;
    }
    const body = (await response.json()) as { id_token?: unknown };
    return typeof body.id_token === "string" ? body.id_token : "";
  }

  /** The ID token's claims when its signature (the issuer's JWKS), iss, aud, exp and nonce hold; else undefined. */
  async verifyIdToken(provider: DiscoveredProvider, idToken: string, nonce: string): Promise<JWTPayload | undefined> {
    try {
      const { payload } = await jwtVerify(idToken, provider.jwks, {
        issuer: this.settings.issuer,
        audience: this.settings.clientId,
        requiredClaims: ["exp", "iat", "sub", "nonce"],
      });
      if (payload.nonce !== nonce) return undefined;
      // OpenID Connect Core §3.1.3.7: with several audiences, the token must have been issued to this client.
      if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== this.settings.clientId) return undefined;
      return payload;
    } catch (error) {
      this.logger.warn({ err: error }, "ID token refused");
      return undefined;
    }
  }
}
