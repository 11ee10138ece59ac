import type { Database } from "@hub/db";
import type { Logger, RedisConnection, RedisKeys } from "@hub/shared";
import type { HostResolver } from "@hub/shared/webhooks";
import type { DispatchQueue, ReadyJobs, WakeListener } from "@hub/shared/dispatch";
import type { ApiEnv } from "./env";
import type { LiveEventFeed } from "./events/live-event-feed";
import type { Authenticator } from "./http/auth";
import type { OpenStreams } from "./http/open-streams";
import type { StreamSlots } from "./http/stream-slots";
import type { TokenService } from "./identity/tokens";
import type { JobLogFeed } from "./jobs/job-log-feed";
import type { WorkerSignalStreams } from "./workers/worker-signals";
import type { Metrics } from "./metrics";
import type { OidcProvider } from "./identity/oidc/provider";

/** Everything a route handler may use, built once in ./app.ts. */
export interface AppContext {
  env: ApiEnv;
  /** Its `pool` is the one executor every service passes to statements and `withTransaction`. */
  database: Database;
  redis: RedisConnection;
  keys: RedisKeys;
  logger: Logger;
  tokens: TokenService;
  auth: Authenticator;
  /** Open streams, whose credentials are checked again on every credential change. */
  streams: OpenStreams;
  /** Caps on open streams per user and worker key, over every API process. */
  streamSlots: StreamSlots;
  metrics: Metrics;
  /** The events stream read once per process and fanned out to GET /events/stream clients. */
  liveEvents: LiveEventFeed;
  /** "A job's log or progress changed", over every API process, for the job log streams. */
  jobLogs: JobLogFeed;
  /** This process's GET /workers/me/signals streams, fed by PostgreSQL's hub_worker_signals notifications. */
  workerSignals: WorkerSignalStreams;
  /** Resolves webhook hosts for the SSRF check at creation (the system resolver; tests inject one). */
  webhookResolver: HostResolver;
  /** The OpenID provider of single sign-on, when HUB_OIDC_* configure one. */
  oidc?: OidcProvider | undefined;
  /** Redis side of dispatch: BullMQ producer, per-automation ready sets, long-poll wake-ups. */
  dispatch: {
    queue: DispatchQueue;
    ready: ReadyJobs;
    wakes: WakeListener;
  };
}
