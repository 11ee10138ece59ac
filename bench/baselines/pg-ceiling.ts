/**
 * Baseline (a), the PostgreSQL ceiling: the transactions one job needs in the hub, with the same
 * statements (see packages/db/src/sql/jobs/dispatch-scan.ts and outbox.ts), run directly with `pg` as named
 * prepared statements on a fresh, migrated database, with no HTTP, no Redis and no ORM.
 *
 * - create: insert the job and its `job.created` event.
 * - claim: lock the automation row FOR NO KEY UPDATE, count its running jobs, pick the oldest
 *   queued candidates (the hub reads them from Redis; here an index scan stands in), mark one
 *   running, read it back, insert `job.started`.
 * - heartbeat: fence the lease (row lock), read the job, extend the lease.
 * - complete: fence the lease, read the job, mark it completed, insert `job.completed`.
 * - relay: select the oldest undispatched events and stamp them, in a loop (10 ms idle poll, as
 *   the relay's default), without publishing anywhere.
 *
 * A claim that finds nothing waits for an in-process wake-up (a job created, a slot freed), the
 * stand-in for the hub's Redis pub/sub; each event wakes one waiting claim.
 */
import { randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { setTimeout as sleep } from "node:timers/promises";
import { withTransaction } from "@hub/db";
import type { ClaimedJob, PullTarget } from "../lib/load";
import type { AutomationPlan } from "../lib/plan";

const CANDIDATES = 10;
const RELAY_BATCH = 500;
const RELAY_IDLE_POLL_MS = 10;

type Waiter = () => void;

export interface PgSeed {
  /** Automation uuid of each plan index. */
  automationIds: string[];
  workerIds: string[];
  userId: string;
}

export class PgCeilingTarget implements PullTarget {
  readonly pool: pg.Pool;
  private readonly waiters = new Map<number, Set<Waiter>>();
  private seed: PgSeed | undefined;
  private relayStopped = false;
  private relayLoop: Promise<void> | undefined;

  constructor(
    databaseUrl: string,
    private readonly options: { connections: number; leaseSeconds: number },
  ) {
    this.pool = new pg.Pool({ connectionString: databaseUrl, max: options.connections, application_name: "bench-pg-ceiling" });
  }

  /** A user, a sector, the automations with their limits, one worker each. */
  async seedWorkload(automations: readonly AutomationPlan[]): Promise<PgSeed> {
    const user = await this.pool.query<{ id: string }>("insert into users (email, password_hash, role) values ($1, 'not-a-hash', 'admin') returning id", [
      `bench-${randomUUID()}@hub.local`,
    ]);
    const sector = await this.pool.query<{ id: string }>("insert into sectors (name, color) values ($1, '#336699') returning id", [`bench-${randomUUID()}`]);
    const automationIds: string[] = [];
    const workerIds: string[] = [];
    for (const automation of automations) {
      const row = await this.pool.query<{ id: string }>(
        "insert into automations (name, slug, sector_id, max_concurrent_jobs) values ($1, $1, $2, $3) returning id",
        [automation.slug, sector.rows[0]!.id, automation.limit],
      );
      automationIds.push(row.rows[0]!.id);
      const worker = await this.pool.query<{ id: string }>(
        "insert into workers (automation_id, cloud_instance_id, api_key_hash) values ($1, $2, $3) returning id",
        [row.rows[0]!.id, `bench-${automation.index}`, randomBytes(32).toString("hex")],
      );
      workerIds.push(worker.rows[0]!.id);
    }
    this.seed = { automationIds, workerIds, userId: user.rows[0]!.id };
    return this.seed;
  }

  /** Starts the relay loop on a connection of its own, as the relay app has its own pool. */
  async startRelay(databaseUrl: string): Promise<void> {
    const client = new pg.Client({ connectionString: databaseUrl, application_name: "bench-pg-ceiling-relay" });
    await client.connect();
    this.relayLoop = this.relay(client).finally(() => client.end());
  }

  async close(): Promise<void> {
    this.relayStopped = true;
    await this.relayLoop;
    for (const waiting of this.waiters.values()) for (const wake of waiting) wake();
    await this.pool.end();
  }

  private get seeded(): PgSeed {
    if (!this.seed) throw new Error("seedWorkload() first");
    return this.seed;
  }

  private transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    // On a pool, withTransaction hands `work` a client checked out of it.
    return withTransaction(this.pool, (client) => work(client as pg.PoolClient));
  }

  /**
   * Wakes one waiting claim of the automation: each job created or slot freed lets at most one
   * claim succeed, so this is the ideal the hub's wake-ups are measured against.
   */
  private wake(automation: number): void {
    const waiting = this.waiters.get(automation);
    const first = waiting?.values().next();
    if (!waiting || !first || first.done) return;
    waiting.delete(first.value);
    first.value();
  }

  async createJob(automation: number, context: Record<string, unknown>): Promise<string> {
    const { automationIds, userId } = this.seeded;
    const id = await this.transaction(async (client) => {
      const job = await client.query<{ id: string; automation_id: string; context: unknown }>({
        name: "bench-insert-job",
        text: "insert into jobs (automation_id, context, created_by) values ($1, $2, $3) returning *",
        values: [automationIds[automation], context, userId],
      });
      const row = job.rows[0]!;
      await client.query({
        name: "bench-insert-event",
        text: "insert into events (event_type, aggregate_id, actor_id, payload) values ($1, $2, $3, $4)",
        values: ["job.created", row.id, userId, { automation_id: row.automation_id, context: row.context }],
      });
      return row.id;
    });
    this.wake(automation);
    return id;
  }

  async claimJob(automation: number, waitSeconds: number, signal: AbortSignal): Promise<ClaimedJob | null> {
    const deadline = Date.now() + waitSeconds * 1000;
    for (;;) {
      // Registered before looking, so a wake-up between the look and the wait is not lost.
      let woken: Waiter = () => undefined;
      const wokenUp = new Promise<void>((resolve) => (woken = resolve));
      let waiting = this.waiters.get(automation);
      if (!waiting) this.waiters.set(automation, (waiting = new Set()));
      waiting.add(woken);
      const job = await this.tryClaim(automation);
      const remaining = deadline - Date.now();
      if (job || remaining <= 0 || signal.aborted) {
        this.waiters.get(automation)?.delete(woken);
        return job;
      }
      const waitEnded = new AbortController();
      const aborted = new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true, signal: waitEnded.signal }));
      await Promise.race([wokenUp, sleep(remaining, undefined, { signal: waitEnded.signal }).catch(() => undefined), aborted]);
      waitEnded.abort();
      this.waiters.get(automation)?.delete(woken);
    }
  }

  private async tryClaim(automation: number): Promise<ClaimedJob | null> {
    const { automationIds, workerIds } = this.seeded;
    const automationId = automationIds[automation]!;
    const workerId = workerIds[automation]!;
    return this.transaction(async (client) => {
      const locked = await client.query<{ max_concurrent_jobs: number; is_active: boolean; is_development: boolean }>({
        name: "bench-lock-automation",
        text: "select max_concurrent_jobs, is_active, is_development from automations where id = $1 for no key update",
        values: [automationId],
      });
      const row = locked.rows[0];
      if (!row || !row.is_active || row.is_development) return null;
      const running = await client.query<{ running: number }>({
        name: "bench-count-running",
        text: "select count(*)::int as running from jobs where automation_id = $1 and status = 'running'",
        values: [automationId],
      });
      if ((running.rows[0]?.running ?? 0) >= row.max_concurrent_jobs) return null;
      const candidates = await client.query<{ id: string }>({
        name: "bench-candidates",
        text: "select id from jobs where automation_id = $1 and status = 'queued' order by created_at, id limit $2",
        values: [automationId, CANDIDATES],
      });
      if (candidates.rows.length === 0) return null;
      const claimed = await client.query<{ id: string }>({
        name: "bench-claim",
        text: `update jobs set status = 'running', attempts = attempts + 1, worker_id = $2,
                 started_at = now(), lease_expires_at = now() + make_interval(secs => $3)
               where id = (select id from jobs where id = any($1::uuid[]) and status = 'queued'
                           order by created_at, id limit 1 for update skip locked)
               returning id`,
        values: [candidates.rows.map((candidate) => candidate.id), workerId, this.options.leaseSeconds],
      });
      const claimedId = claimed.rows[0]?.id;
      if (!claimedId) return null;
      const job = await client.query<{ id: string; automation_id: string; attempts: number; context: Record<string, unknown> }>({
        name: "bench-find-job",
        text: "select * from jobs where id = $1",
        values: [claimedId],
      });
      const claimedJob = job.rows[0]!;
      await client.query({
        name: "bench-insert-event",
        text: "insert into events (event_type, aggregate_id, actor_id, payload) values ($1, $2, $3, $4)",
        values: ["job.started", claimedId, null, { automation_id: automationId, worker_id: workerId, attempt: claimedJob.attempts }],
      });
      return { id: claimedId, context: claimedJob.context };
    });
  }

  private async fenceLease(client: pg.PoolClient, automation: number, jobId: string): Promise<void> {
    const { automationIds, workerIds } = this.seeded;
    const fenced = await client.query<{ automation_id: string; leased: boolean }>({
      name: "bench-fence-lease",
      text: `select automation_id, (status = 'running' and worker_id = $2 and lease_expires_at > now()) as leased
               from jobs where id = $1 for update`,
      values: [jobId, workerIds[automation]],
    });
    const row = fenced.rows[0];
    if (!row || row.automation_id !== automationIds[automation] || !row.leased) throw new Error(`job ${jobId} is not leased to its worker`);
    await client.query({ name: "bench-find-job", text: "select * from jobs where id = $1", values: [jobId] });
  }

  async heartbeat(automation: number, jobId: string): Promise<void> {
    await this.transaction(async (client) => {
      await this.fenceLease(client, automation, jobId);
      await client.query({
        name: "bench-extend-lease",
        text: "update jobs set lease_expires_at = now() + make_interval(secs => $2) where id = $1 returning lease_expires_at",
        values: [jobId, this.options.leaseSeconds],
      });
    });
  }

  async completeJob(automation: number, jobId: string, result: Record<string, unknown>): Promise<void> {
    const { automationIds, workerIds } = this.seeded;
    await this.transaction(async (client) => {
      await this.fenceLease(client, automation, jobId);
      await client.query({
        name: "bench-complete",
        text: "update jobs set status = 'completed', result = $2, finished_at = now(), lease_expires_at = null where id = $1 returning *",
        values: [jobId, result],
      });
      await client.query({
        name: "bench-insert-event",
        text: "insert into events (event_type, aggregate_id, actor_id, payload) values ($1, $2, $3, $4)",
        values: ["job.completed", jobId, null, { automation_id: automationIds[automation], worker_id: workerIds[automation], result }],
      });
    });
    this.wake(automation);
  }

  private async relay(client: pg.Client): Promise<void> {
    while (!this.relayStopped) {
      const batch = await client.query<{ id: string }>({
        name: "bench-relay-select",
        text: "select * from events where dispatched_at is null order by position limit $1",
        values: [RELAY_BATCH],
      });
      if (batch.rows.length === 0) {
        await sleep(RELAY_IDLE_POLL_MS);
        continue;
      }
      await client.query({
        name: "bench-relay-stamp",
        text: "update events set dispatched_at = clock_timestamp() where id = any($1::uuid[]) and dispatched_at is null",
        values: [batch.rows.map((row) => row.id)],
      });
    }
  }
}
