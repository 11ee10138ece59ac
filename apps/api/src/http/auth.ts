/**
 * Who is calling. Bearer routes take only `Authorization: Bearer <jwt>` of an active user (looked up
 * on every request, so deactivation takes effect at once); worker routes take only
 * `X-Worker-Api-Key` of a registered worker. Anything else is 401.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Request } from "express";
import { markWorkerSeen, prepareAuthLookups, type AuthLookups, type Db, type User, type Worker } from "@hub/db";
import { ForbiddenError, UnauthorizedError, type Role } from "@hub/shared";
import type { AccessTokenClaims, TokenService } from "../identity/tokens";
import { addRequestLogFields } from "./request-log";

export type AuthRequirement = "none" | "user" | "admin" | "worker";

export type AuthenticatedUser = Pick<User, "id" | "email" | "role" | "isActive" | "createdAt">;
export type AuthenticatedWorker = Pick<Worker, "id" | "automationId" | "cloudInstanceId" | "status" | "lastSeenAt">;

export type Caller<A extends AuthRequirement> = A extends "user" | "admin"
  ? { user: AuthenticatedUser; worker?: undefined }
  : A extends "worker"
    ? { user?: undefined; worker: AuthenticatedWorker }
    : { user?: undefined; worker?: undefined };

export const WORKER_KEY_HEADER = "x-worker-api-key";

/** SHA-256 of a worker api key: keys carry 256 random bits, so a fast hash is the right tool. */
export function hashApiKey(apiKey: string): string {
  return createHash("sha256").update(apiKey, "utf8").digest("hex");
}

/** Most verified tokens remembered per process; beyond, the oldest is forgotten. */
const VERIFIED_TOKENS_MAX = 10_000;

/**
 * Bearer tokens whose signature and claims this process already verified, until the token's own
 * expiry. Checking an HS256 signature through jose (WebCrypto) cost 0.1–0.4 ms of API CPU per
 * POST /jobs in the bench profiles (2–5 % of the API); a token that verified once
 * verifies again until it expires, with the same secret, so only the expiry needs re-checking.
 * What may change meanwhile — the user deactivated, the role changed — is not cached: every
 * request still reads the user row (CONTRACT §2: refused from the moment of deactivation).
 */
export class VerifiedTokens {
  private readonly verified = new Map<string, { claims: AccessTokenClaims; validUntilMs: number }>();

  constructor(
    private readonly tokens: TokenService,
    private readonly maxEntries = VERIFIED_TOKENS_MAX,
  ) {}

  /** The token's claims, or null (see TokenService.verify). */
  async verify(token: string, nowMs = Date.now()): Promise<AccessTokenClaims | null> {
    const known = this.verified.get(token);
    if (known) {
      if (nowMs < known.validUntilMs) return known.claims;
      this.verified.delete(token);
    }
    const claims = await this.tokens.verify(token);
    if (!claims) return null;
    const validUntilMs = this.validUntilMs(token);
    if (validUntilMs !== null && nowMs < validUntilMs) {
      if (this.verified.size >= this.maxEntries) {
        const oldest = this.verified.keys().next();
        if (!oldest.done) this.verified.delete(oldest.value);
      }
      this.verified.set(token, { claims, validUntilMs });
    }
    return claims;
  }

  /**
   * When a verified token stops being accepted, without the clock tolerance jose grants (so the
   * cache forgets it first and jose decides at the edge): its `exp`, or `iat` + the hub's token
   * lifetime if sooner. Null (not cached) when the payload cannot be read.
   */
  private validUntilMs(token: string): number | null {
    try {
      const payload = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as { exp?: unknown; iat?: unknown };
      if (typeof payload.exp !== "number" || typeof payload.iat !== "number") return null;
      return Math.min(payload.exp, payload.iat + this.tokens.ttlSeconds) * 1000;
    } catch {
      return null;
    }
  }
}

export class Authenticator {
  private readonly lookups: AuthLookups;
  private readonly verifiedTokens: VerifiedTokens;

  constructor(
    private readonly db: Db,
    tokens: TokenService,
  ) {
    this.lookups = prepareAuthLookups(db);
    this.verifiedTokens = new VerifiedTokens(tokens);
  }

  async authenticate<A extends AuthRequirement>(req: Request, requirement: A): Promise<Caller<A>> {
    switch (requirement) {
      case "none":
        return {} as Caller<A>;
      case "user":
      case "admin": {
        const user = await this.bearerUser(req);
        // Logged before the role check, so a 403 names who was refused.
        addRequestLogFields(req, { user_id: user.id });
        if (requirement === "admin" && user.role !== "admin") throw new ForbiddenError();
        return { user } as Caller<A>;
      }
      case "worker": {
        const worker = await this.worker(req);
        addRequestLogFields(req, { worker_id: worker.id, automation_id: worker.automationId });
        return { worker } as Caller<A>;
      }
      default: {
        const exhaustive: never = requirement;
        throw new Error(`unknown auth requirement ${String(exhaustive)}`);
      }
    }
  }

  private async bearerUser(req: Request): Promise<AuthenticatedUser> {
    const header = req.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1]) throw new UnauthorizedError("Not authenticated");
    const claims = await this.verifiedTokens.verify(match[1]);
    if (!claims) throw new UnauthorizedError("Could not validate credentials");
    const [user] = await this.lookups.userById.execute({ id: claims.userId });
    if (!user || !user.isActive) throw new UnauthorizedError("Could not validate credentials");
    // The role is read from the database, not the token: a changed role applies at once.
    return { ...user, role: user.role as Role };
  }

  private async worker(req: Request): Promise<AuthenticatedWorker> {
    if (req.headers.authorization) throw new UnauthorizedError("Worker endpoints take X-Worker-Api-Key, not a bearer token", "WorkerApiKey");
    const apiKey = req.headers[WORKER_KEY_HEADER];
    if (typeof apiKey !== "string" || apiKey.length === 0) throw new UnauthorizedError("Missing X-Worker-Api-Key", "WorkerApiKey");
    const keyHash = hashApiKey(apiKey);
    const [worker] = await this.lookups.workerByKeyHash.execute({ keyHash });
    // The index lookup already matched; the constant-time comparison keeps that true for any future lookup scheme.
    if (!worker || !timingSafeEqual(Buffer.from(worker.apiKeyHash), Buffer.from(keyHash))) {
      throw new UnauthorizedError("Invalid worker api key", "WorkerApiKey");
    }
    const { apiKeyHash: _omit, ...rest } = worker;
    // Any worker call marks the worker seen (and `running`); see markWorkerSeen.
    await markWorkerSeen(this.db, rest);
    return rest;
  }
}
