/**
 * Who is calling. Bearer routes take only `Authorization: Bearer <jwt>` of an active user (looked up
 * on every request, so deactivation takes effect at once); worker routes take only
 * `X-Worker-Api-Key` of a registered worker. Anything else is 401.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Request } from "express";
import { and, eq, isNull, sql } from "drizzle-orm";
import { markWorkerSeen, users, workers, type Db, type User, type Worker } from "@hub/db";
import { ForbiddenError, UnauthorizedError, type Role } from "@hub/shared";
import type { TokenService } from "../identity/tokens";
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

/**
 * The two lookups every authenticated request makes, as named prepared statements: built once,
 * parsed and planned once per connection instead of on every request.
 */
function prepareLookups(db: Db) {
  return {
    userById: db
      .select({ id: users.id, email: users.email, role: users.role, isActive: users.isActive, createdAt: users.createdAt })
      .from(users)
      .where(eq(users.id, sql.placeholder("id")))
      .prepare("auth_user_by_id"),
    workerByKeyHash: db
      .select({
        id: workers.id,
        automationId: workers.automationId,
        cloudInstanceId: workers.cloudInstanceId,
        status: workers.status,
        lastSeenAt: workers.lastSeenAt,
        apiKeyHash: workers.apiKeyHash,
      })
      .from(workers)
      .where(and(eq(workers.apiKeyHash, sql.placeholder("keyHash")), isNull(workers.unregisteredAt)))
      .prepare("auth_worker_by_key_hash"),
  };
}

export class Authenticator {
  private readonly lookups: ReturnType<typeof prepareLookups>;

  constructor(
    private readonly db: Db,
    private readonly tokens: TokenService,
  ) {
    this.lookups = prepareLookups(db);
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
    const claims = await this.tokens.verify(match[1]);
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
