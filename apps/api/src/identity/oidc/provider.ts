/**
 * The OpenID provider as the hub knows it: its discovery document, read in the background and
 * retried until it answers, so the hub starts (and serves passwords) while the provider is down.
 * The protocol itself (discovery, the authorization URL, the code exchange, and every check of
 * the ID token: its signature by the issuer's JWKS, iss, aud, azp, exp, iat, nonce) is
 * openid-client's; this file only decides when to retry and what a refusal is called.
 */
import * as client from "openid-client";
import type { Logger } from "@hub/shared";
import type { OidcSettings } from "./env";

/** The provider once discovered: what openid-client needs for every later call. */
export type DiscoveredProvider = client.Configuration;

/** Seconds a 503 of GET /identity/oidc/login asks the browser to wait. */
export const DISCOVERY_RETRY_AFTER_SECONDS = 5;
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;
/** Every request to the provider (discovery, token, JWKS) gives up after this long. */
const REQUEST_TIMEOUT_SECONDS = 5;

/** Why a code exchange gave no claims: the provider's fault or refusal, or an ID token that does not hold. */
export type ExchangeRefusal = "invalid_request" | "invalid_token";

export interface AuthorizationRequest {
  state: string;
  nonce: string;
  verifier: string;
}

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

  /** The discovered provider, or undefined while discovery has not succeeded yet. */
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
    const { issuer, clientId, clientSecret } = this.settings;
    // The environment admits an http:// issuer only with HUB_OIDC_ALLOW_INSECURE=true; with an
    // https:// one, openid-client refuses any endpoint of the provider that is not https.
    const insecure = new URL(issuer).protocol === "http:";
    // Discovery checks that the document names the issuer it was read from (Discovery §4.3).
    const configuration = await client.discovery(new URL(issuer), clientId, undefined, client.ClientSecretBasic(clientSecret), {
      timeout: REQUEST_TIMEOUT_SECONDS,
      execute: insecure ? [client.allowInsecureRequests] : [],
    });
    // The ID token comes straight from the token endpoint, but its signature is checked all the
    // same, by the issuer's JWKS (CONTRACT §6.22), not taken on the word of the channel.
    client.enableNonRepudiationChecks(configuration);
    return configuration;
  }

  /** A new authorization request: its one-time values and the URL sending the browser to the provider. */
  async authorizationUrl(provider: DiscoveredProvider): Promise<{ url: URL; request: AuthorizationRequest }> {
    const request = { state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier() };
    const url = client.buildAuthorizationUrl(provider, {
      response_type: "code",
      redirect_uri: this.settings.redirectUri,
      scope: "openid email",
      state: request.state,
      nonce: request.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(request.verifier),
      code_challenge_method: "S256",
    });
    return { url, request };
  }

  /**
   * Trades the callback's code (with its PKCE verifier) for the ID token and answers its claims
   * once every check holds, or why not. `callback` is every parameter the provider sent back.
   */
  async exchangeCode(
    provider: DiscoveredProvider,
    callback: Record<string, string | undefined>,
    expected: AuthorizationRequest,
  ): Promise<{ claims: client.IDToken } | { refusal: ExchangeRefusal }> {
    const currentUrl = new URL(this.settings.redirectUri);
    for (const [name, value] of Object.entries(callback)) if (value !== undefined) currentUrl.searchParams.set(name, value);
    try {
      const tokens = await client.authorizationCodeGrant(provider, currentUrl, {
        pkceCodeVerifier: expected.verifier,
        expectedState: expected.state,
        expectedNonce: expected.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      return claims ? { claims } : { refusal: "invalid_token" };
    } catch (error) {
      const refusal = refusalOf(error);
      this.logger.warn({ err: error, reason: refusal }, refusal === "invalid_token" ? "ID token refused" : "OpenID provider refused the authorization code");
      return { refusal };
    }
  }
}

/**
 * What a failed exchange is called. The provider's own answers (an OAuth error from its token
 * endpoint, an unexpected status, no answer at all) and an authorization response that does not
 * hold (its `iss` parameter) are `invalid_request`; anything else openid-client refused is the
 * ID token's fault (a bad signature, issuer, audience, nonce, an expired or malformed token).
 */
function refusalOf(error: unknown): ExchangeRefusal {
  if (error instanceof client.ResponseBodyError || error instanceof client.AuthorizationResponseError) return "invalid_request";
  if (error instanceof client.WWWAuthenticateChallengeError) return "invalid_request";
  // fetch's own failure (refused, reset, DNS).
  if (error instanceof TypeError) return "invalid_request";
  if (!(error instanceof client.ClientError)) return "invalid_token";
  if (["OAUTH_TIMEOUT", "OAUTH_ABORT", "OAUTH_RESPONSE_IS_NOT_CONFORM", "OAUTH_RESPONSE_IS_NOT_JSON"].includes(error.code ?? "")) return "invalid_request";
  // The authorization response's checks carry the response's parameters as their cause.
  const cause = error.cause as { cause?: { parameters?: unknown } } | undefined;
  return cause?.cause?.parameters instanceof URLSearchParams ? "invalid_request" : "invalid_token";
}
