/**
 * Retention against the real database: what a batch removes (finished jobs older than the period
 * with their events, the events the hub repeats by itself, finished webhook deliveries) and what it
 * never removes (recent or unfinished jobs, events not yet published or with a delivery pending,
 * the events people's actions wrote), references to removed jobs left dangling, batches bounded,
 * and one sweeper at a time.
 */
import { EVERYWHERE } from "../../reach";
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { stageAutomation, useTestDatabase } from "../../test-kit";
import { jobs, retention } from "../../index";

const hub = useTestDatabase();

const PERIOD = { retentionDays: 30, batchSize: 1000 };

interface StagedJob {
  status: "queued" | "running" | "completed" | "failed" | "cancelled";
  /** When it finished (or, unfinished, was created), in days ago. */
  daysAgo: number;
  /** Its events are published unless told otherwise. */
  undispatchedEvent?: boolean;
  retryOf?: string;
}

/** A job with its events as the hub writes them (created, started, its outcome), all at the job's age. */
async function stageJob(automationId: string, job: StagedJob): Promise<string> {
  const id = randomUUID();
  const finished = ["completed", "failed", "cancelled"].includes(job.status);
  await hub().db.execute(sql`
    insert into jobs (id, automation_id, status, attempts, created_at, available_at, started_at, finished_at, retry_of)
    values (${id}, ${automationId}, ${job.status}, 1, now() - make_interval(days => ${job.daysAgo}) - interval '1 minute',
            now() - make_interval(days => ${job.daysAgo}) - interval '1 minute',
            case when ${job.status} <> 'queued' then now() - make_interval(days => ${job.daysAgo}) - interval '30 seconds' end,
            case when ${finished} then now() - make_interval(days => ${job.daysAgo}) end, ${job.retryOf ?? null})`);
  const types = ["job.created", ...(job.status === "queued" ? [] : ["job.started"]), ...(finished ? [`job.${job.status}`] : [])];
  for (const [index, type] of types.entries()) {
    const last = index === types.length - 1;
    await hub().db.execute(sql`
      insert into events (aggregate_id, event_type, payload, created_at, dispatched_at)
      values (${id}, ${type}, ${JSON.stringify({ automation_id: automationId })}::jsonb, now() - make_interval(days => ${job.daysAgo}),
              case when ${last && job.undispatchedEvent === true} then null else now() - make_interval(days => ${job.daysAgo}) end)`);
  }
  return id;
}

/** An event of `type` about `aggregateId`, `daysAgo` old, published unless told otherwise. */
async function stageEvent(aggregateId: string, type: string, daysAgo: number, dispatched = true): Promise<string> {
  const id = randomUUID();
  await hub().db.execute(sql`
    insert into events (id, aggregate_id, event_type, payload, created_at, dispatched_at)
    values (${id}, ${aggregateId}, ${type}, '{}'::jsonb, now() - make_interval(days => ${daysAgo}),
            case when ${dispatched} then now() - make_interval(days => ${daysAgo}) end)`);
  return id;
}

async function stageWebhook(): Promise<string> {
  const id = randomUUID();
  await hub().db.execute(
    sql`insert into webhooks (id, url, event_types, secret_ciphertext) values (${id}, 'https://hooks.example.com/hub', '{*}', 'not-a-secret')`,
  );
  return id;
}

/** A delivery of `eventId` to `webhookId`, created `daysAgo`. */
async function stageDelivery(webhookId: string, eventId: string, status: "pending" | "delivered" | "failed", daysAgo: number): Promise<string> {
  const id = randomUUID();
  await hub().db.execute(sql`
    insert into webhook_deliveries (id, webhook_id, event_id, aggregate_id, event_position, status, created_at, next_attempt_at)
    select ${id}, ${webhookId}, e.id, e.aggregate_id, e.position, ${status}, now() - make_interval(days => ${daysAgo}),
           case when ${status} = 'pending' then now() end
      from events e where e.id = ${eventId}`);
  return id;
}

async function existingJobs(ids: string[]): Promise<string[]> {
  const { rows } = await hub().pool.query<{ id: string }>("select id from jobs where id = any($1::uuid[])", [ids]);
  return rows.map((row) => row.id).sort();
}

async function eventTypesOf(aggregateId: string): Promise<string[]> {
  const { rows } = await hub().pool.query<{ event_type: string }>("select event_type from events where aggregate_id = $1 order by position", [aggregateId]);
  return rows.map((row) => row.event_type);
}

async function existingDeliveries(ids: string[]): Promise<string[]> {
  const { rows } = await hub().pool.query<{ id: string }>("select id from webhook_deliveries where id = any($1::uuid[])", [ids]);
  return rows.map((row) => row.id).sort();
}

/** Sweeps every kind, batch after batch, until nothing more is due. */
async function sweepAll(options = PERIOD): Promise<void> {
  for (const batch of [
    () => retention.removeExpiredWebhookDeliveries(hub().pool, options),
    () => retention.removeExpiredAlertHistory(hub().pool, options),
    () => retention.removeExpiredJobs(hub().pool, options),
    () => retention.removeExpiredEventsOfType(hub().pool, "schedule.skipped", options),
    () => retention.removeExpiredEventsOfType(hub().pool, "worker.status_changed", options),
  ]) {
    for (;;) {
      const outcome = await batch();
      if (!outcome || outcome.picked < options.batchSize) break;
    }
  }
}

describe("retention of jobs", () => {
  it("when jobs finished before the period, then they go with their events; recent, queued and running jobs stay with theirs", async () => {
    const { automationId } = await stageAutomation(hub());
    const old = await Promise.all((["completed", "failed", "cancelled"] as const).map((status) => stageJob(automationId, { status, daysAgo: 31 })));
    const recent = await stageJob(automationId, { status: "completed", daysAgo: 29 });
    const queued = await stageJob(automationId, { status: "queued", daysAgo: 40 });
    const running = await stageJob(automationId, { status: "running", daysAgo: 40 });

    const batch = await retention.removeExpiredJobs(hub().pool, PERIOD);

    expect(batch).toEqual({ picked: 3, removed: { jobs: 3, events: 9, webhookDeliveries: 0, alertHistory: 0 } });
    expect(await existingJobs([...old, recent, queued, running])).toEqual([recent, queued, running].sort());
    for (const id of old) expect(await eventTypesOf(id)).toEqual([]);
    expect(await eventTypesOf(recent)).toEqual(["job.created", "job.started", "job.completed"]);
    expect(await eventTypesOf(queued)).toEqual(["job.created"]);
    expect(await eventTypesOf(running)).toEqual(["job.created", "job.started"]);
  });

  it("when a job goes, then its log lines go with it; a job that stays keeps its lines", async () => {
    const { automationId } = await stageAutomation(hub());
    const old = await stageJob(automationId, { status: "completed", daysAgo: 31 });
    const recent = await stageJob(automationId, { status: "completed", daysAgo: 29 });
    for (const id of [old, recent]) {
      await hub().db.execute(sql`
        insert into job_logs (job_id, seq, ts, attempt, level, message)
        select ${id}, n, now(), 1, 30, 'line ' || n from generate_series(1, 3) as n`);
    }

    await retention.removeExpiredJobs(hub().pool, PERIOD);

    const { rows } = await hub().pool.query<{ job_id: string; lines: number }>(
      "select job_id, count(*) as lines from job_logs where job_id = any($1::uuid[]) group by job_id",
      [[old, recent]],
    );
    expect(rows).toEqual([{ job_id: recent, lines: 3 }]);
  });

  it("when an old job has an event not yet published, or one whose webhook delivery is pending, then the job and all its events stay until both are done", async () => {
    const { automationId } = await stageAutomation(hub());
    const unpublished = await stageJob(automationId, { status: "completed", daysAgo: 45, undispatchedEvent: true });
    const delivering = await stageJob(automationId, { status: "failed", daysAgo: 45 });
    const webhookId = await stageWebhook();
    const [failedEvent] = (await hub().pool.query<{ id: string }>("select id from events where aggregate_id = $1 and event_type = 'job.failed'", [delivering]))
      .rows;
    // Created when the job failed, 45 days ago, and redelivered since: pending again.
    const delivery = await stageDelivery(webhookId, failedEvent!.id, "pending", 45);

    await sweepAll();

    expect(await existingJobs([unpublished, delivering])).toEqual([unpublished, delivering].sort());
    expect(await eventTypesOf(unpublished)).toEqual(["job.created", "job.started", "job.completed"]);
    expect(await eventTypesOf(delivering)).toEqual(["job.created", "job.started", "job.failed"]);
    expect(await existingDeliveries([delivery])).toEqual([delivery]);

    await hub().db.execute(sql`update events set dispatched_at = now() where aggregate_id = ${unpublished}`);
    await hub().db.execute(sql`update webhook_deliveries set status = 'delivered', next_attempt_at = null, delivered_at = now() where id = ${delivery}`);
    await sweepAll();

    expect(await existingJobs([unpublished, delivering])).toEqual([]);
    expect(await eventTypesOf(delivering)).toEqual([]);
    expect(await existingDeliveries([delivery])).toEqual([]);
  });

  it("when a removed job is named by a retry's retry_of and a schedule's last_job_id, then both still read and the removed job is not found", async () => {
    const { automationId } = await stageAutomation(hub());
    const original = await stageJob(automationId, { status: "failed", daysAgo: 60 });
    const retry = await stageJob(automationId, { status: "completed", daysAgo: 1, retryOf: original });
    const scheduleId = randomUUID();
    await hub().db.execute(sql`
      insert into schedules (id, automation_id, cron, timezone, last_run_at, last_job_id)
      values (${scheduleId}, ${automationId}, '0 6 * * *', 'UTC', now() - interval '60 days', ${original})`);

    await sweepAll();

    expect(await jobs.find(hub().pool, EVERYWHERE, original)).toBeUndefined();
    expect(await jobs.find(hub().pool, EVERYWHERE, retry)).toMatchObject({ id: retry, retryOf: original, status: "completed" });
    const { rows } = await hub().pool.query<{ last_job_id: string }>("select last_job_id from schedules where id = $1", [scheduleId]);
    expect(rows).toEqual([{ last_job_id: original }]);
  });

  it("when more jobs are due than one batch holds, then each batch takes at most its size, oldest first", async () => {
    const { automationId } = await stageAutomation(hub());
    const jobs = [];
    for (const daysAgo of [35, 34, 33, 32, 31]) jobs.push(await stageJob(automationId, { status: "completed", daysAgo: daysAgo + 300 }));

    const first = await retention.removeExpiredJobs(hub().pool, { retentionDays: 300, batchSize: 2 });

    expect(first?.picked).toBe(2);
    expect(await existingJobs(jobs)).toEqual(jobs.slice(2).sort());
    const second = await retention.removeExpiredJobs(hub().pool, { retentionDays: 300, batchSize: 2 });
    const third = await retention.removeExpiredJobs(hub().pool, { retentionDays: 300, batchSize: 2 });
    expect([second?.picked, third?.picked]).toEqual([2, 1]);
    expect(await existingJobs(jobs)).toEqual([]);
  });

  it("when another session holds the retention lock, then a batch removes nothing and says so", async () => {
    const { automationId } = await stageAutomation(hub());
    const old = await stageJob(automationId, { status: "completed", daysAgo: 90 });
    const holder = await hub().pool.connect();
    try {
      await holder.query("begin");
      await holder.query("select pg_advisory_xact_lock(727004, 0)");

      expect(await retention.removeExpiredJobs(hub().pool, PERIOD)).toBeNull();
      expect(await retention.removeExpiredEventsOfType(hub().pool, "schedule.skipped", PERIOD)).toBeNull();
      expect(await retention.removeExpiredWebhookDeliveries(hub().pool, PERIOD)).toBeNull();
      expect(await existingJobs([old])).toEqual([old]);
    } finally {
      await holder.query("rollback");
      holder.release();
    }
    expect((await retention.removeExpiredJobs(hub().pool, PERIOD))?.removed.jobs).toBeGreaterThanOrEqual(1);
    expect(await existingJobs([old])).toEqual([]);
  });
});

describe("retention of other history", () => {
  it("when schedule.skipped and worker.status_changed events are older than the period, then they go; recent, unpublished and people's events stay", async () => {
    const { automationId } = await stageAutomation(hub());
    const scheduleId = randomUUID();
    const oldSkip = await stageEvent(scheduleId, "schedule.skipped", 31);
    const oldFlap = await stageEvent(automationId, "worker.status_changed", 31);
    const recentSkip = await stageEvent(scheduleId, "schedule.skipped", 29);
    const unpublishedFlap = await stageEvent(automationId, "worker.status_changed", 40, false);
    const setUp = await stageEvent(automationId, "automation.updated", 400);

    await sweepAll();

    const { rows } = await hub().pool.query<{ id: string }>("select id from events where id = any($1::uuid[])", [
      [oldSkip, oldFlap, recentSkip, unpublishedFlap, setUp],
    ]);
    expect(rows.map((row) => row.id).sort()).toEqual([recentSkip, unpublishedFlap, setUp].sort());
  });

  it("when webhook deliveries are older than the period, then delivered and failed ones go and pending ones stay, whatever their event", async () => {
    const { automationId } = await stageAutomation(hub());
    const webhookId = await stageWebhook();
    const kept = await stageEvent(automationId, "automation.updated", 100);
    const another = await stageEvent(automationId, "automation.updated", 100);
    const third = await stageEvent(automationId, "automation.updated", 100);
    const recentEvent = await stageEvent(automationId, "automation.updated", 2);
    const delivered = await stageDelivery(webhookId, kept, "delivered", 40);
    const failed = await stageDelivery(webhookId, another, "failed", 40);
    const pending = await stageDelivery(webhookId, third, "pending", 40);
    const recent = await stageDelivery(webhookId, recentEvent, "delivered", 2);

    const batch = await retention.removeExpiredWebhookDeliveries(hub().pool, PERIOD);

    expect(batch?.removed.webhookDeliveries).toBe(2);
    expect(await existingDeliveries([delivered, failed, pending, recent])).toEqual([pending, recent].sort());
    const { rows } = await hub().pool.query<{ n: number }>("select count(*)::int as n from events where id = any($1::uuid[])", [[kept, another, third]]);
    expect(rows[0]!.n).toBe(3);
  });

  it("when alerts were resolved before the period, then their history entries go, and those resolved since stay", async () => {
    const { automationId } = await stageAutomation(hub());
    const resolved = async (daysAgo: number) => {
      const { rows } = await hub().pool.query<{ id: string }>(
        `insert into alert_history (rule_id, automation_id, kind, value, threshold, message, since, resolved_at)
         values ($1, $2, 'queue_depth', 12, 10, 'queue depth 12 > 10', now() - make_interval(days => $3::int + 1), now() - make_interval(days => $3::int))
         returning id`,
        [randomUUID(), automationId, daysAgo],
      );
      return rows[0]!.id;
    };
    const old = [await resolved(31), await resolved(45)];
    const recent = await resolved(29);

    const batch = await retention.removeExpiredAlertHistory(hub().pool, PERIOD);

    expect(batch).toEqual({ picked: 2, removed: { jobs: 0, events: 0, webhookDeliveries: 0, alertHistory: 2 } });
    const { rows } = await hub().pool.query<{ id: string }>("select id from alert_history where id = any($1::uuid[])", [[...old, recent]]);
    expect(rows.map((row) => row.id)).toEqual([recent]);
  });
});
