/**
 * The API as a value: `createApp` builds the Express app from a context (tests boot it in-process
 * on port 0), `startApi` wires real PostgreSQL and Redis, and `stop` closes everything.
 */
import express, { type Express } from "express";
import { existsSync } from "node:fs";
import path from "node:path";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { listenForHubNotifications, openDatabase, prepareDatabase, alerts, automations, workers } from "@hub/db";
import { assertRedisReachable, connectRedis, createLogger, OutboxNudger, redisSetup, type Logger } from "@hub/shared";
import { DispatchQueue, ReadyJobs, WakeListener } from "@hub/shared/dispatch";
import { systemResolver, type HostResolver } from "@hub/shared/webhooks";
import type { AppContext } from "./context";
import type { ApiEnv } from "./env";
import { Authenticator } from "./http/auth";
import { KeyOverlapSweeper } from "./workers/key-holds.service";
import { OpenStreams } from "./http/open-streams";
import { mayHaveWrittenEvents } from "./http/outbox-writes";
import { StreamSlots } from "./http/stream-slots";
import { errorHandler, notFoundHandler } from "./http/errors";
import { requestLogger } from "./http/request-log";
import { noSniff } from "./http/security-headers";
import { mountRoutes, type AnyRoute } from "./http/route";
import { ensureFirstAdmin } from "./identity/bootstrap";
import { TokenService } from "./identity/tokens";
import { configurePasswordHashing } from "./identity/passwords";
import { configurePayloadLimits } from "./http/payload-limits";
import { assertMetricsAuthorized, createMetrics } from "./metrics";
import { mountConsole, resolveConsoleDir } from "./console/console.routes";
import { mountDocs } from "./openapi/docs.routes";
import { routesFor } from "./routes";
import { reportLostEnqueues } from "./dispatch/signals";
import { LiveEventFeed } from "./events/live-event-feed";
import { JobLogFeed } from "./jobs/job-log-feed";
import { WorkerSignalStreams } from "./workers/worker-signals";
import { oidcSettings } from "./identity/oidc/env";
import { OidcProvider } from "./identity/oidc/provider";

/** How long shutdown waits for buffered dispatch hand-offs to reach Redis. */
const DISPATCH_FLUSH_TIMEOUT_MS = 2000;

export function createApp(ctx: AppContext, routes: AnyRoute[] = routesFor(ctx.env.HUB_PASSWORD_MIN_LENGTH)): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");
  // Which X-Forwarded-For hop is the client (req.ip), for the login throttle; unset, the socket's.
  app.set("trust proxy", ctx.env.HUB_TRUST_PROXY);

  // One line per request naming the caller and the job/automation ids it touched (ids only),
  // with status and duration: an operator can follow a job by them.
  app.use(requestLogger(ctx.logger));
  app.use(noSniff);
  app.use((req, res, next) => {
    const end = ctx.metrics.httpRequestDuration.startTimer();
    res.on("finish", () => {
      // An event stream lasts as long as its client stays: not a request duration.
      if (String(res.getHeader("content-type") ?? "").startsWith("text/event-stream")) return;
      const route = (req.route as { path?: string } | undefined)?.path ?? "unmatched";
      end({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  });

  app.get("/metrics", async (req, res) => {
    assertMetricsAuthorized(req.headers.authorization, ctx.env.HUB_METRICS_TOKEN);
    res.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics());
  });
  mountDocs(app, routes);
  mountConsole(app, resolveConsoleDir(ctx.env.HUB_CONSOLE_DIR));

  // Each route reads its own body after authenticating the caller (./http/body.ts).
  const router = express.Router();
  mountRoutes(router, routes, ctx);
  app.use(router);
  app.use(notFoundHandler(routes));
  app.use(errorHandler);
  return app;
}

/** The OpenID provider when single sign-on is configured, its discovery started (and retried) in the background. */
function startOidc(env: ApiEnv, logger: Logger): OidcProvider | undefined {
  const settings = oidcSettings(env);
  if (!settings) return undefined;
  const provider = new OidcProvider(settings, logger);
  provider.start();
  return provider;
}

/** How long a request waits for a Redis reply before it answers 503. */
const REQUEST_REDIS_TIMEOUT_MS = 1000;

export interface RunningApi {
  ctx: AppContext;
  port: number;
  url: string;
  stop(): Promise<void>;
}

/** Connects, migrates, bootstraps the first admin and listens on `env.PORT` (0 = any free port). */
export interface StartApiOptions {
  /** Resolves webhook hosts (tests inject one). Default: the system resolver. */
  webhookResolver?: HostResolver;
}

export async function startApi(env: ApiEnv, logger: Logger = createLogger("api", env.LOG_LEVEL), options: StartApiOptions = {}): Promise<RunningApi> {
  await prepareDatabase(env.DATABASE_URL, { migrate: env.HUB_MIGRATE_ON_START, logger });
  // Every hot request is one statement, and the claims of one automation take turns in the
  // process, so few statements run at once (bench/HISTORY.md has the pg_stat_activity figures).
  // Beyond ~8 busy backends two cores only contend; requests beyond that wait in the pool, in
  // this process, which costs less than a PostgreSQL backend waiting.
  const database = openDatabase(env.DATABASE_URL, { max: 10, applicationName: "hub-api", logger });
  // Requests wait on this connection (login throttling, claims, readiness): a command with no
  // answer within a second fails, so a request that needs Redis answers 503 in time while Redis
  // is away (the long-poll claim and the dispatch signals have their own bounds and degrade instead).
  const { target: redisTarget, keys } = redisSetup(env);
  const redis = connectRedis(redisTarget, "hub-api", { logger, commandTimeoutMs: REQUEST_REDIS_TIMEOUT_MS });
  try {
    await assertRedisReachable(redis, redisTarget);
  } catch (error) {
    redis.disconnect();
    await database.close();
    throw error;
  }
  configurePasswordHashing(env.UV_THREADPOOL_SIZE);
  configurePayloadLimits(env);
  const tokens = new TokenService(env.HUB_JWT_SECRET, env.HUB_ACCESS_TOKEN_TTL_SECONDS);
  // ioredis subscribes again by itself after a reconnect; wake-ups lost meanwhile cost at most the
  // claims' 1 s re-check.
  const subscriber = connectRedis(redisTarget, "hub-api-wake", { logger });
  const metrics = createMetrics({
    queueDepth: { read: () => automations.readQueueDepths(database.pool), logger },
    limitDepth: { read: () => automations.readLimitDepths(database.pool), logger },
    alertsFiring: { read: () => alerts.countFiring(database.pool), logger },
  });
  const lostEnqueues = { logger, metrics };
  const queue = new DispatchQueue(redis, keys, {
    onSendFailure: (error, jobs) => reportLostEnqueues(lostEnqueues, jobs.length, "send_failed", error),
    onDrop: (count) => reportLostEnqueues(lostEnqueues, count, "buffer_full"),
  });
  // BullMQ re-emits its connection's errors on the queue; the connection already reports them.
  for (const shardQueue of queue.queues) shardQueue.on("error", () => undefined);
  const ready = new ReadyJobs(redis, keys);
  const dispatch = { queue, ready, wakes: new WakeListener(subscriber, keys, (automationIds) => ready.counts(automationIds)) };
  await dispatch.wakes.start();
  const liveEvents = new LiveEventFeed({
    redisTarget,
    // Named after the hub's prefix: in CLIENT LIST, whose reader it is when hubs share a Redis.
    connectionName: `hub-api-events-${env.HUB_REDIS_PREFIX}`,
    stream: keys.eventsStream,
    redis,
    logger,
    onClientCount: (count) => metrics.eventStreamClients.set(count),
  });
  const jobLogs = new JobLogFeed(connectRedis(redisTarget, "hub-api-job-logs", { logger }), redis, keys, logger);
  // Any request that may have changed something may have written events: tell the relays (at most
  // one nudge a second from this process; requests that were refused, and claims that found
  // nothing, wrote none).
  const outboxNudger = new OutboxNudger(redis, keys);
  const auth = new Authenticator(database.pool, tokens, () => outboxNudger.nudge());
  const ctx: AppContext = {
    env,
    database,
    redis,
    keys,
    logger,
    tokens,
    auth,
    streams: new OpenStreams(auth, metrics),
    streamSlots: new StreamSlots(redis, keys, metrics),
    metrics,
    liveEvents,
    jobLogs,
    workerSignals: new WorkerSignalStreams(metrics),
    dispatch,
    webhookResolver: options.webhookResolver ?? systemResolver,
    oidc: startOidc(env, logger),
  };
  await ensureFirstAdmin(ctx.database.pool, env.HUB_ADMIN_EMAIL, env.HUB_ADMIN_PASSWORD, logger, env.HUB_PASSWORD_MIN_LENGTH);
  // Until this session LISTENs, credentials are read from PostgreSQL on every request.
  // The same session carries the worker signals, in commit order with the credential changes.
  const notifications = listenForHubNotifications(env.DATABASE_URL, "hub-api-credentials", {
    credentials: ctx.auth.credentialChanges,
    workerSignals: {
      onSignal: (payload) => {
        ctx.workerSignals.onNotification(payload);
        // A job taken from its worker (timeout, lapsed lease, cancel, re-queue): its log streams look again.
        const signal = workers.parseSignal(payload);
        if (signal) ctx.jobLogs.changedHere(signal.jobId);
      },
      onLost: () => ctx.workerSignals.onSessionLost(),
    },
  });
  ctx.workerSignals.listenOn(() => notifications.listening);
  const keyOverlaps = new KeyOverlapSweeper(ctx);
  keyOverlaps.start();

  const app = createApp(ctx);
  const consoleDir = resolveConsoleDir(env.HUB_CONSOLE_DIR);
  const server = env.HOST === undefined ? app.listen(env.PORT) : app.listen(env.PORT, env.HOST);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  // Long-polling claims hold requests open for up to 30 s; keep-alive must outlast them.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const port = (server.address() as AddressInfo).port;
  logger.info({ port, console: consoleDir && existsSync(path.join(consoleDir, "index.html")) ? "/console" : "not built (pnpm build)" }, "api listening");

  // Requests in flight, so that shutdown can end every kept-alive connection once they are answered.
  let stopping = false;
  let inFlight = 0;
  let onDrained: (() => void) | undefined;
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    inFlight += 1;
    if (stopping) res.setHeader("connection", "close");
    if (req.method !== "GET" && req.method !== "HEAD" && req.method !== "OPTIONS") {
      res.once("finish", () => {
        if (res.statusCode < 400 && mayHaveWrittenEvents(res)) outboxNudger.nudge();
      });
    }
    res.once("close", () => {
      inFlight -= 1;
      if (inFlight === 0) onDrained?.();
    });
  });

  return {
    ctx,
    port,
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      stopping = true;
      keyOverlaps.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Long-polling claims return 204 at once instead of holding shutdown for up to 30 s, and
      // event streams end (their clients reconnect to another process, resuming by Last-Event-ID).
      ctx.streams.close();
      ctx.streamSlots.close();
      jobLogs.close();
      ctx.workerSignals.close();
      ctx.oidc?.stop();
      await Promise.all([dispatch.wakes.stop(), liveEvents.close()]);
      // A client's idle keep-alive connections (a worker's pool, a connection opened but not yet
      // used) would hold close() open until they time out, 65 s: once every request in flight is
      // answered, end them all.
      if (inFlight > 0) await new Promise<void>((resolve) => (onDrained = resolve));
      server.closeAllConnections();
      await closed;
      // Every request is answered: hand the jobs they committed to Redis before disconnecting
      // (bounded; whatever is left is offered by the dispatcher's reconciler).
      await dispatch.queue.close(DISPATCH_FLUSH_TIMEOUT_MS);
      redis.disconnect();
      await notifications.stop();
      await database.close();
    },
  };
}
