/**
 * Peer: pg-boss 10 on its own database (schema `pgboss`, created on start), as pg-boss is meant
 * to be used: each creator `send()`s one job (one insert), and `BENCH_PGBOSS_WORKERS` `work()`
 * loops each fetch up to `BENCH_PGBOSS_BATCH` jobs per poll (every 0.5 s, pg-boss's minimum),
 * process them as no-ops and complete them in one statement. pg-boss polls; it is not woken by
 * new jobs, so its create→claim is about half a polling interval.
 *
 * "Claimed" and "completed" are both when the handler runs (pg-boss completes the batch after
 * the handler returns, without waiting for it). Maintenance and the scheduler are off: only the
 * queue's own path is measured.
 */
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import PgBoss from "pg-boss";
import type { AuditCheck } from "../lib/audit";
import type { JobTarget, PhaseTracker } from "../lib/load";

const QUEUE = "bench-noop";
const POLLING_INTERVAL_SECONDS = 0.5;

export class PgBossTarget implements JobTarget {
  private constructor(private readonly boss: PgBoss) {}

  static async start(databaseUrl: string, tracker: PhaseTracker, options: { creators: number; workers: number; batchSize: number }): Promise<PgBossTarget> {
    const boss = new PgBoss({ connectionString: databaseUrl, max: options.creators, supervise: false, schedule: false, application_name: "bench-pgboss" });
    boss.on("error", (error) => tracker.current?.error("pg-boss", error));
    await boss.start();
    await boss.createQueue(QUEUE);
    for (let worker = 0; worker < options.workers; worker++) {
      await boss.work<unknown>(QUEUE, { batchSize: options.batchSize, pollingIntervalSeconds: POLLING_INTERVAL_SECONDS }, async (jobs) => {
        const recorder = tracker.current;
        const now = performance.now();
        for (const job of jobs) {
          recorder?.claimed(job.id, now);
          recorder?.completed(job.id, now);
        }
      });
    }
    return new PgBossTarget(boss);
  }

  async createJob(automation: number, context: Record<string, unknown>): Promise<string> {
    const id = await this.boss.send(QUEUE, { automation, context });
    if (!id) throw new Error("pg-boss send returned no id");
    return id;
  }

  /** Every job of the run is `completed` in pg-boss's table (its completions are written a moment after the handler). */
  async audit(expected: number): Promise<AuditCheck[]> {
    const db = this.boss.getDb();
    let states: Record<string, number> = {};
    for (let attempt = 0; attempt < 50; attempt++) {
      const { rows } = (await db.executeSql("select state::text as state, count(*)::int as count from pgboss.job where name = $1 group by state", [QUEUE])) as {
        rows: { state: string; count: number }[];
      };
      states = Object.fromEntries(rows.map((row) => [row.state, row.count]));
      if ((states.completed ?? 0) >= expected) break;
      await sleep(100);
    }
    return [
      { name: "every job completed in pgboss.job", ok: states.completed === expected && Object.keys(states).length === 1, detail: JSON.stringify(states) },
    ];
  }

  async close(): Promise<void> {
    await this.boss.stop({ graceful: true, wait: true, timeout: 10_000 });
  }
}
