import { sql } from "drizzle-orm";
import { z } from "zod";
import { defineRoute } from "../http/route";

const healthResponse = z.object({ status: z.string() });
const readinessResponse = z.object({
  status: z.enum(["ok", "unavailable"]),
  checks: z.object({ database: z.enum(["ok", "down"]), redis: z.enum(["ok", "down"]) }),
});

async function check(probe: () => Promise<unknown>, timeoutMs = 2000): Promise<"ok" | "down"> {
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), timeoutMs).unref()),
    ]);
    return "ok";
  } catch {
    return "down";
  }
}

export const healthRoutes = [
  defineRoute({
    method: "get",
    path: "/healthz",
    summary: "Liveness",
    tag: "operations",
    auth: "none",
    responses: { 200: { description: "The process is alive", schema: healthResponse } },
    handler: async () => ({ status: 200, body: { status: "ok" } }),
  }),
  defineRoute({
    method: "get",
    path: "/readyz",
    summary: "Readiness: PostgreSQL and Redis reachable",
    tag: "operations",
    auth: "none",
    responses: {
      200: { description: "Ready", schema: readinessResponse },
      503: { description: "A dependency is down", schema: readinessResponse },
    },
    handler: async ({ ctx }) => {
      const [database, redis] = await Promise.all([check(() => ctx.db.execute(sql`select 1`)), check(() => ctx.redis.ping())]);
      const ready = database === "ok" && redis === "ok";
      return { status: ready ? 200 : 503, body: { status: ready ? "ok" : "unavailable", checks: { database, redis } } };
    },
  }),
];
