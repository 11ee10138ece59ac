/** The scale mode's measurements on the seeded database: table sizes, plans, the context index's cost, create→claim. */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { EVERYWHERE, openDatabase, type Database, jobs } from "@hub/db";
import { HISTORY_CUSTOMERS } from "@hub/testing";
import type { HubHttpTarget } from "../hub/hub-target";
import { summarize, type LatencySummary } from "../lib/stats";

export interface TableSize {
  rows: number;
  bytes: number;
  bytesPerRow: number;
}

export interface PlanCheck {
  name: string;
  indexes: string[];
  sequentialScans: string[];
  ok: boolean;
  plan: string;
}

export async function tableSize(pool: pg.Pool, table: "jobs" | "events"): Promise<TableSize> {
  const { rows } = await pool.query<{ rows: number; bytes: number }>(
    `select (select count(*) from ${table})::int8 as rows, pg_total_relation_size('${table}')::int8 as bytes`,
  );
  const { rows: count, bytes } = rows[0]!;
  return { rows: count, bytes, bytesPerRow: count > 0 ? bytes / count : 0 };
}

/** EXPLAIN ANALYZE of whatever `run` sends on one connection, through auto_explain (the list statements are built at run time). */
export async function explainRun(databaseUrl: string, name: string, run: (db: Database) => Promise<unknown>): Promise<PlanCheck> {
  const database = openDatabase(databaseUrl, { max: 1, applicationName: "bench-scale-explain" });
  const notices: string[] = [];
  try {
    database.pool.on("connect", (client) => client.on("notice", (notice) => notices.push(notice.message ?? "")));
    await database.pool.query("load 'auto_explain'");
    await database.pool.query("set auto_explain.log_min_duration = 0");
    await database.pool.query("set auto_explain.log_analyze = on");
    await database.pool.query("set auto_explain.log_level = 'notice'");
    notices.length = 0;
    await run(database);
  } finally {
    await database.close();
  }
  const plan = notices.filter((notice) => notice.includes("Query Text")).join("\n");
  const indexes = [
    ...new Set([...plan.matchAll(/Index (?:Only )?Scan(?: Backward)? using (\w+)|Bitmap Index Scan on (\w+)/g)].map((match) => (match[1] ?? match[2])!)),
  ];
  const sequentialScans = [...new Set([...plan.matchAll(/Seq Scan on (\w+)/g)].map((match) => match[1]!))];
  // The large tables; the seeded hub has no webhook deliveries, so a plan may read that empty table as it likes.
  const ok = !sequentialScans.some((table) => ["jobs", "events"].includes(table));
  return { name, indexes, sequentialScans, ok, plan };
}

/** Rounds of the insert-cost comparison, and jobs inserted per variant in each. */
export const INSERT_COST_ROUNDS = 5;
export const INSERT_COST_JOBS = 5000;

export interface ContextIndexCost {
  /** job_context_values with its index. */
  bytes: number;
  bytesPerJob: number;
  /** Median per round of the mean time of one job insert, with and without the table's trigger (µs). */
  withIndexUs: number;
  withoutIndexUs: number;
  /** Inserts per second with the trigger ÷ without it, in this run. */
  ratio: number;
}

/**
 * The size of GET /jobs's context index (`job_context_values` and its index, migration 0018) and
 * what it costs each insert: {@link INSERT_COST_JOBS} jobs made by the statement of POST /jobs/batch
 * (@hub/db jobs.insertBatch, {@link jobs.MAX_JOBS_PER_BATCH} a call, so the round trips of one-job requests
 * do not drown the index's share) in a transaction that is rolled back, with the trigger that fills
 * the table and with it dropped inside the transaction (so nothing else ever sees it gone),
 * alternating over {@link INSERT_COST_ROUNDS} rounds. Run while no hub process is up (the drop
 * locks the table).
 */
export async function contextIndexCost(databaseUrl: string, automationIds: readonly string[], jobCount: number): Promise<ContextIndexCost> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "bench-scale-insert-cost" });
  await client.connect();
  try {
    const bytes = Number((await client.query<{ bytes: string }>("select pg_total_relation_size('job_context_values') as bytes")).rows[0]!.bytes);
    const userId = (
      await client.query<{ id: string }>("insert into users (email, password_hash, role) values ($1, 'not a hash', 'admin') returning id", [
        `insert-cost-${randomBytes(4).toString("hex")}@bench.test`,
      ])
    ).rows[0]!.id;
    const perInsert = { with: [] as number[], without: [] as number[] };
    for (let round = 0; round < INSERT_COST_ROUNDS; round += 1) {
      const order: Array<"with" | "without"> = round % 2 === 0 ? ["with", "without"] : ["without", "with"];
      for (const variant of order) {
        await client.query("begin");
        try {
          if (variant === "without") await client.query("drop trigger jobs_record_context_values on jobs");
          const started = performance.now();
          for (let first = 0; first < INSERT_COST_JOBS; first += jobs.MAX_JOBS_PER_BATCH) {
            const batch = Array.from({ length: Math.min(jobs.MAX_JOBS_PER_BATCH, INSERT_COST_JOBS - first) }, (_, offset) => {
              const k = first + offset;
              return {
                automationId: automationIds[k % automationIds.length]!,
                context: { invoice_id: `cost-${round}-${k}`, customer_id: `cust-${k % HISTORY_CUSTOMERS}` },
              };
            });
            const created = await jobs.insertBatch(client, EVERYWHERE, userId, batch);
            if (created.kind !== "created") throw new Error(`insert-cost jobs not created: ${created.kind}`);
          }
          perInsert[variant].push(((performance.now() - started) * 1000) / INSERT_COST_JOBS);
        } finally {
          await client.query("rollback");
        }
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const withIndexUs = median(perInsert.with);
    const withoutIndexUs = median(perInsert.without);
    return { bytes, bytesPerJob: bytes / jobCount, withIndexUs, withoutIndexUs, ratio: withoutIndexUs / withIndexUs };
  } finally {
    await client.end();
  }
}

export async function time(times: number[], call: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await call();
  times.push(performance.now() - started);
}

/** create→claim (started_at − created_at, PostgreSQL's clock) of the jobs of `automationIds` created in [from, to). */
export async function createToClaim(pool: pg.Pool, automationIds: string[], from: Date, to: Date): Promise<LatencySummary> {
  const { rows } = await pool.query<{ ms: number }>(
    `select (extract(epoch from started_at - created_at) * 1000)::float8 as ms from jobs
      where automation_id = any($1::uuid[]) and created_at >= $2 and created_at < $3 and started_at is not null`,
    [automationIds, from, to],
  );
  return summarize(rows.map((row) => row.ms));
}

/** Jobs created at `rate` per second over the automations (round robin) until `stop` aborts. */
export async function createPaced(target: HubHttpTarget, automations: number, rate: number, stop: AbortSignal): Promise<number> {
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  let created = 0;
  for (let i = 0; !stop.aborted; i += 1) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    while (inFlight.size >= 16) await Promise.race(inFlight);
    const call: Promise<void> = target.createJob(i % automations, { invoice_id: `scale-${i}` }).then(() => {
      created += 1;
      inFlight.delete(call);
    });
    inFlight.add(call);
  }
  await Promise.all(inFlight);
  return created;
}

/** One claim loop per automation (one job at a time, completed at once) until `stop` aborts. */
export function startWorkers(target: HubHttpTarget, automations: number, stop: AbortSignal): Promise<void[]> {
  const loop = async (automation: number) => {
    while (!stop.aborted) {
      let job;
      try {
        job = await target.claimJob(automation, 2, stop);
      } catch (error) {
        if (stop.aborted) return;
        throw error;
      }
      if (job) await target.completeJob(automation, job.id, { ok: true });
    }
  };
  return Promise.all(Array.from({ length: automations }, (_, automation) => [loop(automation), loop(automation)]).flat());
}
