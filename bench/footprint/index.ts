/**
 * `pnpm bench footprint` — what jobs cost in storage, for sizing a deployment (docs/CAPACITY.md):
 * BENCH_FOOTPRINT_JOBS jobs (default 20,000) created through `POST /jobs/batch` on a fresh hub
 * (API, dispatcher, event relay as processes), first held queued — Redis bytes per queued job, from
 * `MEMORY USAGE` of every key under the run's prefix — then claimed and completed with a result,
 * and every event relayed — PostgreSQL bytes per job and per event (heap, TOAST and indexes, after
 * VACUUM) and Redis bytes per entry of the events stream. The context and result are small JSON
 * objects (about 60 and 90 bytes): bigger payloads add their own size (compressed above ~2 kB).
 * Before completing, each job sends BENCH_FOOTPRINT_LOG_LINES log lines (default 20, messages of
 * about 60 characters) in one POST /jobs/{id}/logs: PostgreSQL bytes per stored log line.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { openDatabase } from "@hub/db";
import { onFreshHub } from "../hub";
import { HubBatchTarget, seedHub } from "../hub/hub-target";
import type { BenchConfig } from "../lib/config";
import { JsonClient } from "../lib/http";
import { CONTEXT_PARAMETER, planWorkload } from "../lib/plan";
import { busyWarning, describeMachine, writeReport, type MachineInfo } from "../lib/report";

const AUTOMATIONS = 8;
const PER_REQUEST = 500;
/** Longest wait for the dispatcher to offer every job, or for workers and relay to finish. */
const SETTLE_TIMEOUT_MS = 300_000;

interface TableFootprint {
  table: string;
  rows: number;
  /** Heap (with TOAST) and indexes, bytes. */
  heapBytes: number;
  indexBytes: number;
}

export interface FootprintReport {
  mode: "footprint";
  startedAt: string;
  machine: MachineInfo;
  jobs: number;
  redis: {
    /** Every key under the run's prefix while all jobs were queued, minus before they were created. */
    queuedBytes: number;
    perQueuedJob: number;
    /** The events stream once every job completed, per entry (the relay trims it to HUB_EVENTS_STREAM_MAXLEN). */
    streamBytes: number;
    streamEntries: number;
  };
  tables: TableFootprint[];
  eventsPerJob: number;
  perJob: { jobs: number; events: number; total: number };
  perEvent: number;
  /** job_logs (heap, TOAST and indexes) per stored line, and the lines' average message bytes. */
  logs: { lines: number; perLine: number; messageBytes: number };
}

/** Bytes of every key under `prefix` (Redis' own estimate, all samples for collections). */
async function redisBytes(redis: Redis, prefix: string): Promise<Record<string, number>> {
  const bytes: Record<string, number> = {};
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `*${prefix}*`, "COUNT", 1000);
    cursor = next;
    for (const key of keys) bytes[key] = Number(await redis.call("MEMORY", "USAGE", key, "SAMPLES", "0")) || 0;
  } while (cursor !== "0");
  return bytes;
}

const sum = (values: Record<string, number>) => Object.values(values).reduce((total, value) => total + value, 0);

async function until(description: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`footprint: gave up waiting for ${description}`);
    await sleep(250);
  }
}

function render(report: FootprintReport): string {
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
  return [
    `Automation Hub benchmark (footprint) — ${report.jobs} jobs over ${AUTOMATIONS} automations · ${report.machine.cpus} cores`,
    ...(busyWarning(report.machine) ? [busyWarning(report.machine)!] : []),
    "",
    `Redis, all ${report.jobs} jobs queued: ${kib(report.redis.queuedBytes)} under the prefix = ${report.redis.perQueuedJob.toFixed(0)} bytes per queued job`,
    `Redis, events stream: ${report.redis.streamEntries} entries, ${kib(report.redis.streamBytes)} = ${(report.redis.streamBytes / Math.max(1, report.redis.streamEntries)).toFixed(0)} bytes per entry`,
    "",
    "PostgreSQL after every job completed and every event relayed (VACUUM ANALYZE first):",
    "  table                rows      heap+toast     indexes   bytes/row",
    ...report.tables.map(
      (table) =>
        `  ${table.table.padEnd(18)} ${String(table.rows).padStart(8)} ${kib(table.heapBytes).padStart(14)} ${kib(table.indexBytes).padStart(11)} ${(table.rows > 0 ? (table.heapBytes + table.indexBytes) / table.rows : 0).toFixed(0).padStart(11)}`,
    ),
    `  per job: ${report.perJob.jobs.toFixed(0)} bytes of jobs + ${report.eventsPerJob.toFixed(2)} events × ${report.perEvent.toFixed(0)} bytes = ${report.perJob.total.toFixed(0)} bytes`,
    `  per log line: ${report.logs.perLine.toFixed(0)} bytes of job_logs (heap+toast+index) for ${report.logs.messageBytes.toFixed(0)}-byte messages, over ${report.logs.lines} lines`,
  ].join("\n");
}

export async function runFootprintMode(config: BenchConfig): Promise<boolean> {
  const startedAt = new Date();
  const machine = await describeMachine();
  const count = config.footprintJobs;
  const step = (message: string) => console.error(`bench: ${message}`);
  step("footprint: starting the API, a dispatcher and an event relay");
  return onFreshHub(config, { dispatchers: 1, relays: 1 }, async ({ processes: hub, databaseUrl }) => {
    const plan = planWorkload({ ...config, automations: AUTOMATIONS, limits: [100], slotsOverLimit: 0, slowJobs: 0 }, randomBytes(3).toString("hex"));
    const seed = await seedHub(hub.apiUrl, hub.admin, plan);
    const redis = new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: null });
    const database = openDatabase(databaseUrl, { max: 2, applicationName: "bench-footprint" });
    const http = new JsonClient(hub.apiUrl, 4);
    const target = new HubBatchTarget(hub.apiUrl, seed, 2, AUTOMATIONS + 2);
    const prefix = hub.env.HUB_REDIS_PREFIX!;
    const scalar = async (text: string): Promise<number> => Number((await database.pool.query<{ n: string }>(text)).rows[0]?.n ?? 0);
    try {
      const before = sum(await redisBytes(redis, prefix));
      step(`footprint: creating ${count} jobs with POST /jobs/batch`);
      for (let start = 0; start < count; start += PER_REQUEST) {
        const size = Math.min(PER_REQUEST, count - start);
        await http.send("POST", "/jobs/batch", {
          token: seed.creatorToken,
          body: {
            jobs: Array.from({ length: size }, (_, k) => ({
              automation_id: seed.automationIds[(start + k) % AUTOMATIONS],
              context: { [CONTEXT_PARAMETER]: `INV-2026-${String(start + k).padStart(8, "0")}-${randomBytes(8).toString("hex")}` },
            })),
          },
          expected: 201,
        });
      }
      // Every job offered: the ready sets hold them all (the dispatcher's hand-off is done).
      const offered = async () => {
        let total = 0;
        for (const key of Object.keys(await redisBytes(redis, prefix))) if (key.includes(":ready:")) total += await redis.zcard(key);
        return total;
      };
      await until("every job to be offered", async () => (await offered()) >= count);
      const queuedBytes = sum(await redisBytes(redis, prefix)) - before;

      step("footprint: claiming and completing every job");
      let completed = 0;
      await Promise.all(
        seed.automationIds.map(async (_, automation) => {
          const share = Math.floor(count / AUTOMATIONS) + (automation < count % AUTOMATIONS ? 1 : 0);
          let done = 0;
          while (done < share) {
            const claimed = await target.claimBatch(automation, 100, 5, new AbortController().signal);
            if (claimed.length === 0) continue;
            if (config.footprintLogLines > 0) {
              await Promise.all(
                claimed.map((job) =>
                  http.send("POST", `/jobs/${job.id}/logs`, {
                    headers: { "x-worker-api-key": seed.workerKeys[automation]! },
                    body: {
                      lines: Array.from({ length: config.footprintLogLines }, (_, line) => ({
                        message: `step ${line}: exported page ${line} of ${job.id.slice(0, 8)} (${randomBytes(8).toString("hex")})`,
                        level: line % 5 === 0 ? "debug" : "info",
                      })),
                    },
                    expected: 200,
                  }),
                ),
              );
            }
            await target.completeBatch(
              automation,
              claimed.map((job) => ({
                id: job.id,
                result: { status: "exported", document_id: `DOC-${job.id.slice(0, 8)}`, pages: 3, checksum: randomBytes(8).toString("hex") },
              })),
            );
            done += claimed.length;
            completed += claimed.length;
          }
        }),
      );
      await until("every event to be relayed", async () => (await scalar("select count(*) as n from events where dispatched_at is null")) === 0);
      const stream = `${prefix}:events`;
      const streamEntries = await redis.xlen(stream);
      const streamBytes = Number(await redis.call("MEMORY", "USAGE", stream, "SAMPLES", "0")) || 0;

      await database.pool.query("vacuum analyze");
      const { rows } = await database.pool.query<{ table: string; rows: string; heap: string; indexes: string }>(
        `select c.relname as table, c.reltuples::bigint as rows,
                pg_table_size(c.oid) as heap, pg_indexes_size(c.oid) as indexes
           from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = 'public' and c.relkind = 'r'
          order by pg_total_relation_size(c.oid) desc limit 9`,
      );
      const tables = rows.map((row) => ({
        table: row.table,
        rows: Math.max(0, Number(row.rows)),
        heapBytes: Number(row.heap),
        indexBytes: Number(row.indexes),
      }));
      const of = (name: string) => tables.find((table) => table.table === name) ?? { table: name, rows: 0, heapBytes: 0, indexBytes: 0 };
      const jobs = of("jobs");
      const events = of("events");
      const jobRows = await scalar("select count(*) as n from jobs");
      const eventRows = await scalar("select count(*) as n from events");
      const perJobRow = (jobs.heapBytes + jobs.indexBytes) / Math.max(1, jobRows);
      const perEvent = (events.heapBytes + events.indexBytes) / Math.max(1, eventRows);
      const eventsPerJob = eventRows / Math.max(1, jobRows);
      const jobLogs = of("job_logs");
      const logLines = await scalar("select count(*) as n from job_logs");
      const messageBytes = await scalar("select coalesce(avg(octet_length(message)), 0) as n from job_logs");
      const report: FootprintReport = {
        mode: "footprint",
        startedAt: startedAt.toISOString(),
        machine,
        jobs: count,
        redis: { queuedBytes, perQueuedJob: queuedBytes / count, streamBytes, streamEntries },
        tables,
        eventsPerJob,
        perJob: { jobs: perJobRow, events: eventsPerJob * perEvent, total: perJobRow + eventsPerJob * perEvent },
        perEvent,
        logs: { lines: logLines, perLine: (jobLogs.heapBytes + jobLogs.indexBytes) / Math.max(1, logLines), messageBytes },
      };
      console.log(render(report));
      console.log(`\nresults: ${writeReport(config.resultsDir, config.smoke ? "footprint-smoke" : "footprint", report, startedAt)}`);
      const passed = completed === count && jobRows === count;
      if (!passed) console.error(`bench: footprint: ${completed} of ${count} jobs completed, ${jobRows} rows`);
      return { value: passed, passed };
    } finally {
      await Promise.all([http.close(), target.close()]);
      await database.close();
      redis.disconnect();
    }
  });
}
