import { compactVerify, jwtVerify, SignJWT, errors as joseErrors } from "jose";
import type { Role } from "@hub/shared";

const ALGORITHM = "HS256";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISSUER = "automation-hub";
const AUDIENCE = "automation-hub-api";
/**
 * Seconds of clock skew allowed between the API processes that issue and verify tokens, on `exp`
 * and on an `iat` slightly in the future. Small against any lifetime the hub allows (≥ 60 s).
 */
const CLOCK_TOLERANCE_SECONDS = 5;

export interface AccessTokenClaims {
  userId: string;
  role: Role;
  /**
   * The user's credential generation when the token was issued (claim `gen`; a token without one
   * counts as 0): a token of an older generation than the user's is refused (CONTRACT §6.11).
   */
  generation: number;
}

/**
 * Signs and verifies the hub's access tokens (HS256). Verification pins the algorithm, issuer and
 * audience, and requires `exp` and `iat` with a lifetime (`exp − iat`) of at most `ttlSeconds`:
 * a correctly signed token that never expires, or that was minted to live longer than the hub
 * allows, is refused (CONTRACT §6.1).
 */
export class TokenService {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    readonly ttlSeconds: number,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  async issue(claims: AccessTokenClaims): Promise<string> {
    // One reading of the clock for both claims: jose reads it again for each, and a second that
    // ticked between the two made `exp − iat` one more than the TTL, a token `verify` refuses.
    const issuedAt = Math.floor(Date.now() / 1000);
    return new SignJWT({ role: claims.role, gen: claims.generation })
      .setProtectedHeader({ alg: ALGORITHM, typ: "JWT" })
      .setSubject(claims.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + this.ttlSeconds)
      .sign(this.key);
  }

  /** The token's claims, or null when it is malformed, forged, expired, too long-lived or not ours. */
  async verify(token: string): Promise<AccessTokenClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: [ALGORITHM],
        issuer: ISSUER,
        audience: AUDIENCE,
        requiredClaims: ["exp", "iat"],
        // Also refuses an `iat` in the future, which would stretch the lifetime past the TTL.
        maxTokenAge: this.ttlSeconds,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      });
      // jose checked both are numeric dates; the lifetime the issuer chose must be within the TTL.
      if (payload.exp === undefined || payload.iat === undefined || payload.exp - payload.iat > this.ttlSeconds) return null;
      if (typeof payload.sub !== "string" || !UUID.test(payload.sub)) return null;
      if (payload.role !== "admin" && payload.role !== "employee") return null;
      const generation = payload.gen ?? 0;
      if (typeof generation !== "number" || !Number.isSafeInteger(generation) || generation < 0) return null;
      return { userId: payload.sub, role: payload.role, generation };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null;
      throw error;
    }
  }

  /**
   * Whether a token {@link verify} refused is one of ours whose only fault is its age: the
   * signature holds and `exp` (or `iat` + the hub's lifetime) has passed. Asked only on the way to
   * a 401, so a script can tell "sign in again" from "wrong secret" (CONTRACT §6.11).
   */
  async hasExpired(token: string): Promise<boolean> {
    try {
      const { payload } = await compactVerify(token, this.key, { algorithms: [ALGORITHM] });
      const claims = JSON.parse(new TextDecoder().decode(payload)) as { iss?: unknown; aud?: unknown; exp?: unknown; iat?: unknown };
      if (claims.iss !== ISSUER || claims.aud !== AUDIENCE || typeof claims.exp !== "number" || typeof claims.iat !== "number") return false;
      const nowSeconds = Date.now() / 1000;
      return nowSeconds > Math.min(claims.exp, claims.iat + this.ttlSeconds);
    } catch (error) {
      if (error instanceof joseErrors.JOSEError || error instanceof TypeError || error instanceof SyntaxError) return false;
      throw error;
    }
  }
}
