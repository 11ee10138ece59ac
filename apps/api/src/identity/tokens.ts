import { jwtVerify, SignJWT, errors as joseErrors } from "jose";
import type { Role } from "@hub/shared";

const ALGORITHM = "HS256";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISSUER = "automation-hub";
const AUDIENCE = "automation-hub-api";

export interface AccessTokenClaims {
  userId: string;
  role: Role;
}

/** Signs and verifies the hub's access tokens (HS256, algorithm pinned on verify). */
export class TokenService {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    readonly ttlSeconds: number,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  async issue(claims: AccessTokenClaims): Promise<string> {
    return new SignJWT({ role: claims.role })
      .setProtectedHeader({ alg: ALGORITHM, typ: "JWT" })
      .setSubject(claims.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .sign(this.key);
  }

  /** The token's claims, or null when it is malformed, forged, expired or not ours. */
  async verify(token: string): Promise<AccessTokenClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: [ALGORITHM], issuer: ISSUER, audience: AUDIENCE });
      if (typeof payload.sub !== "string" || !UUID.test(payload.sub)) return null;
      if (payload.role !== "admin" && payload.role !== "employee") return null;
      return { userId: payload.sub, role: payload.role };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null;
      throw error;
    }
  }
}
