/**
 * The API as a value: `createApp` builds the Express app from a context (tests boot it in-process
 * on port 0), `startApi` wires real PostgreSQL and Redis, and `stop` closes everything.
 */
import express, { type Express } from "express";
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pinoHttp } from "pino-http";
import { openDatabase, prepareDatabase } from "@hub/db";
import { assertRedisReachable, createLogger, createRedis, redisKeys, type Logger } from "@hub/shared";
import { DispatchQueue, ReadyJobs, WakeListener } from "@hub/shared/dispatch";
import type { AppContext } from "./context";
import type { ApiEnv } from "./env";
import { Authenticator } from "./http/auth";
import { bodyParsers } from "./http/body";
import { errorHandler, notFoundHandler } from "./http/errors";
import { mountRoutes, type AnyRoute } from "./http/route";
import { ensureFirstAdmin } from "./identity/bootstrap";
import { TokenService } from "./identity/tokens";
import { createMetrics } from "./metrics";
import { mountDocs } from "./openapi/docs.routes";
import { allRoutes } from "./routes";

export function createApp(ctx: AppContext, routes: AnyRoute[] = allRoutes): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");

  app.use(
    pinoHttp({
      logger: ctx.logger,
      genReqId: (req, res) => {
        const incoming = req.headers["x-request-id"];
        const id = typeof incoming === "string" && /^[\w.-]{1,128}$/.test(incoming) ? incoming : randomUUID();
        res.setHeader("X-Request-Id", id);
        return id;
      },
      // Method, path and status only: never headers (credentials) or bodies (passwords, results).
      serializers: {
        req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url.split("?")[0] }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      autoLogging: { ignore: (req) => req.url === "/healthz" || req.url === "/metrics" },
    }),
  );
  app.use((req, res, next) => {
    const end = ctx.metrics.httpRequestDuration.startTimer();
    res.on("finish", () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? "unmatched";
      end({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  });

  app.get("/metrics", async (_req, res) => {
    res.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics());
  });
  mountDocs(app, routes);

  app.use(...bodyParsers());
  const router = express.Router();
  mountRoutes(router, routes, ctx);
  app.use(router);
  app.use(notFoundHandler(routes));
  app.use(errorHandler);
  return app;
}

export interface RunningApi {
  ctx: AppContext;
  port: number;
  url: string;
  stop(): Promise<void>;
}

/** Connects, migrates, bootstraps the first admin and listens on `env.PORT` (0 = any free port). */
export async function startApi(env: ApiEnv, logger: Logger = createLogger("api", env.LOG_LEVEL)): Promise<RunningApi> {
  await prepareDatabase(env.DATABASE_URL);
  // Every hot request is one statement now, and the claims of one automation take turns in the
  // process: sampling pg_stat_activity under `pnpm bench` (N=1500) showed 0 statements running at
  // p50, 2 at p90, 8 at p99 (20 at p99 before, 10–17 of them waiting on the automation row lock).
  // Beyond ~8 busy backends two cores only contend; requests beyond that wait in the pool, in
  // this process, which costs less than a PostgreSQL backend waiting.
  const database = openDatabase(env.DATABASE_URL, { max: 10, applicationName: "hub-api" });
  const redis = createRedis(env.REDIS_URL, "hub-api");
  try {
    await assertRedisReachable(redis, env.REDIS_URL);
  } catch (error) {
    redis.disconnect();
    await database.close();
    throw error;
  }
  const tokens = new TokenService(env.HUB_JWT_SECRET, env.HUB_ACCESS_TOKEN_TTL_SECONDS);
  const keys = redisKeys(env.HUB_REDIS_PREFIX);
  const subscriber = createRedis(env.REDIS_URL, "hub-api-wake");
  const dispatch = { queue: new DispatchQueue(redis, keys), ready: new ReadyJobs(redis, keys), wakes: new WakeListener(subscriber, keys) };
  await dispatch.wakes.start();
  const ctx: AppContext = {
    env,
    database,
    db: database.db,
    redis,
    keys,
    logger,
    tokens,
    auth: new Authenticator(database.db, tokens),
    metrics: createMetrics(),
    dispatch,
  };
  await ensureFirstAdmin(ctx.db, env.HUB_ADMIN_EMAIL, env.HUB_ADMIN_PASSWORD, logger);

  const app = createApp(ctx);
  const server = app.listen(env.PORT);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  // Long-polling claims hold requests open for up to 30 s; keep-alive must outlast them.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const port = (server.address() as AddressInfo).port;
  logger.info({ port }, "api listening");

  // Requests in flight, so that shutdown can end every kept-alive connection once they are answered.
  let stopping = false;
  let inFlight = 0;
  let onDrained: (() => void) | undefined;
  server.on("request", (_req, res: ServerResponse) => {
    inFlight += 1;
    if (stopping) res.setHeader("connection", "close");
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
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Long-polling claims return 204 at once instead of holding shutdown for up to 30 s.
      await dispatch.wakes.stop();
      // A client's idle keep-alive connections (a worker's pool, a connection opened but not yet
      // used) would hold close() open until they time out, 65 s: once every request in flight is
      // answered, end them all.
      if (inFlight > 0) await new Promise<void>((resolve) => (onDrained = resolve));
      server.closeAllConnections();
      await closed;
      await dispatch.queue.close();
      redis.disconnect();
      await database.close();
    },
  };
}
