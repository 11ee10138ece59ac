/**
 * Who is calling. Bearer routes take `Authorization: Bearer <jwt>` of an active user or
 * `Bearer hub_…`, a user's api key (CONTRACT §6.10); worker routes take only `X-Worker-Api-Key`
 * of a registered worker. Anything else is 401. Users behind tokens, api keys and workers behind
 * keys are remembered by CredentialCaches that PostgreSQL empties on every change, so revocation,
 * deactivation and unregistration still take effect from the next request.
 */
import { timingSafeEqual } from "node:crypto";
import type { Request } from "express";
import { type CredentialChangeHandlers, type Reach, type User, type Worker, apiKeys, auth, reachOf, workers, type Executor } from "@hub/db";
import type { Role } from "@hub/shared";
import { ForbiddenError, InvalidBearerTokenError, UnauthorizedError } from "./http-errors";
import type { AccessTokenClaims, TokenService } from "../identity/tokens";
import { CredentialCache } from "./credential-cache";
import { addRequestLogFields } from "./request-log";
import { hashApiKey, isUserApiKeyCredential, isWellFormedUserApiKey, WORKER_API_KEY_PREFIX } from "../identity/secret-keys";

/**
 * Who may call a route. `user` and `admin` take a login token or an api key;
 * `user-login-token` is any signed-in user and `admin-login-token` an admin, with a login token
 * only (an api key → 403): managing users and credentials (CONTRACT §6.15). `worker` takes a worker
 * key and marks the worker seen, as every worker call does (§3); `worker-unseen` takes the same key
 * without marking it (POST /workers/me/offline, and the checks of an open signals stream, §6.12).
 */
export type AuthRequirement = "none" | "user" | "admin" | "user-login-token" | "admin-login-token" | "worker" | "worker-unseen";

export type AuthenticatedUser = Pick<User, "id" | "email" | "role" | "isActive" | "createdAt" | "sectorIds">;
/**
 * A worker, and which of its keys the call came with (CONTRACT §6.21): `sole` when no rotation's
 * overlap is under way, else `current` (the new key) or `previous` (the one whose overlap runs).
 * The jobs a call claims or heartbeats are held by that key (../workers/key-holds.service.ts).
 */
export type AuthenticatedWorker = Pick<Worker, "id" | "automationId" | "cloudInstanceId" | "status" | "lastSeenAt"> & {
  key: "sole" | "current" | "previous";
};

/**
 * A signed-in user, and the api key it authenticated with (undefined for a login token). `user.role`
 * is the role the caller acts with: an admin's key made with `role: "employee"` acts as an employee.
 */
export interface UserCaller {
  user: AuthenticatedUser;
  apiKeyId?: string | undefined;
  /** The key's `read_only` scope (CONTRACT §6.22). */
  readOnly?: boolean | undefined;
  /**
   * What the caller reaches, derived here once per request from the user's role and sectors and the
   * key's automations; every statement about automations and what is under them takes it.
   */
  reach: Reach;
  worker?: undefined;
}

const READ_ONLY_KEY = "This api key is read-only";

/**
 * A read-only key may send GET (streams included) and DELETE of itself only (CONTRACT §6.22).
 * Express has matched the route when authentication runs, so the path's id is already known.
 */
function readOnlyKeyAllows(req: Request, apiKeyId: string): boolean {
  if (req.method === "GET" || req.method === "HEAD") return true;
  return (
    req.method === "DELETE" &&
    req.route?.path === "/identity/api-keys/:api_key_id" &&
    String(req.params.api_key_id ?? "").toLowerCase() === apiKeyId.toLowerCase()
  );
}

export type Caller<A extends AuthRequirement> = A extends "user" | "admin" | "user-login-token" | "admin-login-token"
  ? UserCaller
  : A extends "worker" | "worker-unseen"
    ? { user?: undefined; worker: AuthenticatedWorker }
    : { user?: undefined; worker?: undefined };

type ApiKeyLookupRow = Awaited<ReturnType<apiKeys.ApiKeyLookup["execute"]>>[number];

export const WORKER_KEY_HEADER = "x-worker-api-key";

/** A worker key sent to a bearer endpoint: say what to send instead (CONTRACT §6.11). */
const WORKER_KEY_ON_BEARER_ENDPOINT = "Worker api keys are for worker endpoints: bearer endpoints take Authorization: Bearer <token or api key>";

/** The user behind a login token as this process keeps it: with the generation its tokens must carry. */
type TokenUser = AuthenticatedUser & { credentialGeneration: number };

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

/**
 * Authenticates requests. The user behind a token and the worker behind a key are read through
 * {@link CredentialCache}s that PostgreSQL empties on every credential change (see there), so a
 * steady stream of requests costs no PostgreSQL transaction for authentication.
 */
export class Authenticator {
  private readonly lookups: auth.AuthLookups;
  private readonly apiKeyLookup: apiKeys.ApiKeyLookup;
  /** Keys whose `last_used_at` this process is writing now: concurrent requests leave it to that one write. */
  private readonly apiKeyTouchesInFlight = new Set<string>();
  /** Seen-at writes on their way, by worker: the worker's other calls meanwhile wait for that one. */
  private readonly workerSeenWritesInFlight = new Map<string, Promise<void>>();
  private readonly verifiedTokens: VerifiedTokens;
  private readonly usersById = new CredentialCache<TokenUser>();
  private readonly workersByKeyHash = new CredentialCache<WorkerKeyRow>();
  private readonly apiKeysByDigest = new CredentialCache<ApiKeyLookupRow>();

  /**
   * @param onEventsWritten called after a worker call recorded an event on its own (the worker came
   *   back to `running`): the relays are told at once, not when the call, perhaps a long-poll, ends.
   */
  constructor(
    private readonly db: Executor,
    private readonly tokens: TokenService,
    private readonly onEventsWritten: () => void = () => undefined,
  ) {
    this.lookups = auth.prepareLookups(db);
    this.apiKeyLookup = apiKeys.prepareLookup(db);
    this.verifiedTokens = new VerifiedTokens(tokens);
  }

  /** Told after the caches forgot what they held because a credential may have changed. */
  private readonly changeListeners = new Set<() => void>();

  /** Wire to @hub/db `listenForHubNotifications` (its credentials subscription): the caches hold entries only while it listens. */
  readonly credentialChanges: CredentialChangeHandlers = {
    onListening: () => {
      this.eachCache((cache) => cache.startTrusting());
      // Changes made while nobody listened went unheard: as good as one now.
      this.notifyChange();
    },
    onLost: () => this.eachCache((cache) => cache.stopTrusting()),
    onChange: () => this.forgetCredentials(),
  };

  /**
   * Forgets every cached credential. The notification does this in every process; a request that
   * deactivated or unregistered someone also calls it before answering, so this process refuses
   * the credential from the very next request whatever order the sockets are read in.
   */
  forgetCredentials(): void {
    this.eachCache((cache) => cache.forgetAll());
    this.notifyChange();
  }

  /**
   * Calls `listener` whenever a credential may have changed, after the caches forgot it: what
   * holds a credential beyond its request (an open stream) checks it again then. Returns the unsubscribe.
   */
  onCredentialsChanged(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private notifyChange(): void {
    for (const listener of [...this.changeListeners]) listener();
  }

  async authenticate<A extends AuthRequirement>(req: Request, requirement: A): Promise<Caller<A>> {
    switch (requirement) {
      case "none":
        return {} as Caller<A>;
      case "user":
      case "admin":
      case "user-login-token":
      case "admin-login-token": {
        const caller = await this.bearerCaller(req);
        // Logged before the role check, so a 403 names who was refused.
        addRequestLogFields(req, caller.apiKeyId ? { user_id: caller.user.id, api_key_id: caller.apiKeyId } : { user_id: caller.user.id });
        if (caller.readOnly && caller.apiKeyId && !readOnlyKeyAllows(req, caller.apiKeyId)) throw new ForbiddenError(READ_ONLY_KEY);
        if ((requirement === "admin" || requirement === "admin-login-token") && caller.user.role !== "admin") throw new ForbiddenError();
        if ((requirement === "user-login-token" || requirement === "admin-login-token") && caller.apiKeyId) {
          throw new ForbiddenError("Not allowed with an api key: sign in with a login token (POST /identity/token)");
        }
        return caller as Caller<A>;
      }
      case "worker":
      case "worker-unseen": {
        const worker = await this.worker(req, requirement === "worker");
        addRequestLogFields(req, { worker_id: worker.id, automation_id: worker.automationId });
        return { worker } as Caller<A>;
      }
      default: {
        const exhaustive: never = requirement;
        throw new Error(`unknown auth requirement ${String(exhaustive)}`);
      }
    }
  }

  /**
   * The worker behind this request's key was just stopped (POST /workers/me/offline): what this
   * process remembers of it says so, and its next call marks it seen again however soon it comes.
   */
  noteWorkerStopped(req: Request): void {
    const apiKey = req.headers[WORKER_KEY_HEADER];
    if (typeof apiKey !== "string" || apiKey.length === 0) return;
    const keyHash = hashApiKey(apiKey);
    const cached = this.workersByKeyHash.get(keyHash);
    if (cached) this.workersByKeyHash.update(keyHash, { ...cached, status: "stopped" });
  }

  private eachCache(action: (cache: CredentialCache<unknown>) => void): void {
    action(this.usersById as CredentialCache<unknown>);
    action(this.workersByKeyHash as CredentialCache<unknown>);
    action(this.apiKeysByDigest as CredentialCache<unknown>);
  }

  private async bearerCaller(req: Request): Promise<UserCaller> {
    const header = req.headers.authorization;
    if (header === undefined && req.headers[WORKER_KEY_HEADER] !== undefined) throw new UnauthorizedError(WORKER_KEY_ON_BEARER_ENDPOINT);
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1]) throw new UnauthorizedError("Not authenticated");
    if (match[1].startsWith(WORKER_API_KEY_PREFIX)) throw new UnauthorizedError(WORKER_KEY_ON_BEARER_ENDPOINT);
    if (isUserApiKeyCredential(match[1])) return this.apiKeyCaller(match[1]);
    const user = await this.tokenUser(match[1]);
    return { user, reach: reachOf(user) };
  }

  /**
   * The token's user, if it is active and the token is of its current credential generation (a
   * password change or reset, a role change or a deactivation starts a new one). The generation is
   * read with the user, through the same cache: no query of its own.
   */
  private async tokenUser(token: string): Promise<AuthenticatedUser> {
    const claims = await this.verifiedTokens.verify(token);
    if (!claims) {
      if (await this.tokens.hasExpired(token)) throw new InvalidBearerTokenError("Token expired", "The access token expired");
      throw new InvalidBearerTokenError();
    }
    const user = await this.usersById.read(claims.userId, async () => {
      const [row] = await this.lookups.userById.execute({ id: claims.userId });
      return row && row.isActive ? { ...row, role: row.role as Role } : null;
    });
    if (!user || user.credentialGeneration !== claims.generation) throw new InvalidBearerTokenError();
    // The role is read from the database, not the token: a changed role applies at once.
    return user;
  }

  /**
   * The key's user, read through a CredentialCache by the key's digest: one indexed lookup on a
   * miss (see apiKeys.prepareLookup), none while the key stays cached. A revocation or deactivation
   * empties the cache (migration 0010's trigger, and this process's own request before it
   * answers); expiry is checked here against the kept `expires_at`, by this host's clock. The
   * digest is compared by the index, not in constant time: timing could at most reveal digest
   * bytes, and a SHA-256 digest gives no way back to a key.
   */
  private async apiKeyCaller(key: string): Promise<UserCaller> {
    if (!isWellFormedUserApiKey(key)) throw new InvalidBearerTokenError();
    const digest = hashApiKey(key);
    const found = await this.apiKeysByDigest.read(digest, async () => {
      const [row] = await this.apiKeyLookup.execute({ digest });
      return row ?? null;
    });
    if (!found) throw new InvalidBearerTokenError();
    if (Date.now() >= found.expiresAt.getTime()) throw new InvalidBearerTokenError("Api key expired", "The api key expired");
    const { apiKeyId, expiresAt: _expiresAt, lastUsedAt, keyAutomationIds, readOnly, actsAsRole, ...user } = found;
    if (lastUsedAt === null || Date.now() - lastUsedAt.getTime() >= apiKeys.API_KEY_LAST_USED_RESOLUTION_SECONDS * 1000) {
      await this.touchApiKey(apiKeyId);
      this.apiKeysByDigest.update(digest, { ...found, lastUsedAt: new Date() });
    }
    // An admin's key made to act as an employee does so everywhere, /identity/me included.
    const role: Role = actsAsRole ?? (user.role as Role);
    return { user: { ...user, role }, apiKeyId, readOnly, reach: reachOf({ role, sectorIds: user.sectorIds, keyAutomationIds }) };
  }

  /**
   * At most one write per key a minute: one request per process issues it, and the statement's own
   * condition (PostgreSQL's clock) lets one process of many write.
   */
  private async touchApiKey(apiKeyId: string): Promise<void> {
    if (this.apiKeyTouchesInFlight.has(apiKeyId)) return;
    this.apiKeyTouchesInFlight.add(apiKeyId);
    try {
      await apiKeys.touchLastUsed(this.db, apiKeyId);
    } finally {
      this.apiKeyTouchesInFlight.delete(apiKeyId);
    }
  }

  private async worker(req: Request, markSeen: boolean): Promise<AuthenticatedWorker> {
    if (req.headers.authorization) throw new UnauthorizedError("Worker endpoints take X-Worker-Api-Key, not a bearer token", "WorkerApiKey");
    const apiKey = req.headers[WORKER_KEY_HEADER];
    if (typeof apiKey !== "string" || apiKey.length === 0) throw new UnauthorizedError("Missing X-Worker-Api-Key", "WorkerApiKey");
    const keyHash = hashApiKey(apiKey);
    const worker = await this.workersByKeyHash.read(keyHash, async () => {
      const [row] = await this.lookups.workerByKeyHash.execute({ keyHash });
      return row ?? null;
    });
    // The index lookup already matched; the constant-time comparison keeps that true for any future lookup scheme.
    if (!worker || !workerKeyAccepted(worker, keyHash)) {
      throw new UnauthorizedError("Invalid worker api key", "WorkerApiKey");
    }
    if (!markSeen) return publicWorker(worker, keyHash);
    // Any worker call marks the worker seen (and `running`); see workers.markSeen. What it wrote is
    // remembered, so the next calls within the write interval cost nothing; calls arriving while
    // the write is on its way wait for it rather than write too (a worker's many claim loops start
    // at once, and each write would otherwise queue on the worker row to flip it `running`).
    const inFlight = this.workerSeenWritesInFlight.get(worker.id);
    if (inFlight) {
      await inFlight;
    } else {
      const write = (async () => {
        const wrote = await workers.markSeen(this.db, worker);
        if (wrote) this.workersByKeyHash.update(keyHash, { ...worker, status: "running", lastSeenAt: new Date() });
        if (wrote === "started") this.onEventsWritten();
      })();
      this.workerSeenWritesInFlight.set(worker.id, write);
      try {
        await write;
      } finally {
        this.workerSeenWritesInFlight.delete(worker.id);
      }
    }
    return publicWorker(worker, keyHash);
  }
}

type WorkerKeyRow = Omit<AuthenticatedWorker, "key"> & { apiKeyHash: string; previousApiKeyHash: string | null; previousApiKeyExpiresAt: Date | null };

function sameHash(stored: string | null, presented: string): boolean {
  return stored !== null && stored.length === presented.length && timingSafeEqual(Buffer.from(stored), Buffer.from(presented));
}

/**
 * The worker's current key, or its previous key while the overlap of the last rotation lasts
 * (CONTRACT §6.12), by this host's clock — as an api key's `expires_at` is. Checked on every use,
 * cached or not: an open stream's check every 0.5 s ends it once the overlap is over.
 */
function workerKeyAccepted(worker: WorkerKeyRow, keyHash: string): boolean {
  if (sameHash(worker.apiKeyHash, keyHash)) return true;
  return sameHash(worker.previousApiKeyHash, keyHash) && worker.previousApiKeyExpiresAt !== null && worker.previousApiKeyExpiresAt.getTime() > Date.now();
}

function publicWorker(worker: WorkerKeyRow, keyHash: string): AuthenticatedWorker {
  const { apiKeyHash, previousApiKeyHash: _previousKey, previousApiKeyExpiresAt, ...rest } = worker;
  const overlapping = previousApiKeyExpiresAt !== null && previousApiKeyExpiresAt.getTime() > Date.now();
  const key = !sameHash(apiKeyHash, keyHash) ? "previous" : overlapping ? "current" : "sole";
  return { ...rest, key };
}
