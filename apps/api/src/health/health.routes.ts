/**
 * Liveness and readiness (CONTRACT §5, §6.1). `/healthz` says only that the process serves HTTP:
 * it stays 200 while a dependency is down, so an orchestrator does not restart a process that
 * would reconnect on its own. `/readyz` probes PostgreSQL and Redis in parallel, each bounded, so
 * it answers within about a second and names whichever is down.
 */
import { z } from "zod";
import { pingDatabase } from "@hub/db";
import { settleWithin } from "@hub/shared";
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from "../http/http-errors";
import { defineRoute } from "../http/route";

/** Each probe's bound: both run at once, so /readyz answers within this (plus a little). */
const PROBE_TIMEOUT_MS = 1000;

const dependencyState = z.enum(["ok", "down"]);
const healthResponse = z.object({ status: z.string() }).meta({ id: "Health" });
const checks = z.object({ database: dependencyState, redis: dependencyState });
const readyResponse = z.object({ status: z.literal("ok"), checks }).meta({ id: "Readiness" });
const notReadyResponse = z
  .object({
    detail: z.string().describe('"Service temporarily unavailable"'),
    status: z.literal("unavailable"),
    checks: checks.describe("Which dependency is down"),
  })
  .meta({ id: "NotReady" });

async function probe(attempt: () => Promise<unknown>): Promise<"ok" | "down"> {
  try {
    await settleWithin(attempt(), PROBE_TIMEOUT_MS);
    return "ok";
  } catch {
    return "down";
  }
}

export const healthRoutes = [
  defineRoute({
    method: "get",
    path: "/healthz",
    operationId: "checkLiveness",
    summary: "Liveness",
    description:
      "200 while the process serves HTTP, also while PostgreSQL or Redis is down (the process reconnects by itself): restart the process only when this fails. No credentials.",
    servedWithoutDependencies: true,
    tag: "operations",
    auth: "none",
    responses: { 200: { description: "The process is alive", schema: healthResponse } },
    handler: async () => ({ status: 200, body: { status: "ok" } }),
  }),
  defineRoute({
    method: "get",
    path: "/readyz",
    operationId: "checkReadiness",
    summary: "Readiness: PostgreSQL and Redis reachable",
    description:
      "Probes PostgreSQL and Redis at once, each bounded to a second: 200 when both answer, else 503 naming the one that is down. Take the process out of a load balancer while it fails. No credentials.",
    tag: "operations",
    auth: "none",
    responses: {
      200: { description: "Ready", schema: readyResponse },
      503: { description: "PostgreSQL or Redis is down (named in `checks`); Retry-After is set", schema: notReadyResponse },
    },
    handler: async ({ ctx }) => {
      const [database, redis] = await Promise.all([probe(() => pingDatabase(ctx.database.pool)), probe(() => ctx.redis.ping())]);
      if (database === "ok" && redis === "ok") return { status: 200, body: { status: "ok" as const, checks: { database, redis } } };
      return {
        status: 503,
        headers: { "Retry-After": String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
        body: { detail: "Service temporarily unavailable", status: "unavailable" as const, checks: { database, redis } },
      };
    },
  }),
];
