/**
 * Approvals under contention (CONTRACT §6.17): two approvers deciding one job at the same moment,
 * the expiry racing an approval, expiry exactly once across dispatchers, and approvers changed
 * while a job waits. A real PostgreSQL, Redis, API and dispatchers.
 */
import { sql } from "drizzle-orm";
import { createDispatcher } from "@hub/dispatcher";
import { jobs, openDatabase } from "@hub/db";
import { createLogger, createRedis } from "@hub/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestUser } from "./harness";
import { eventsOf } from "./automation-fixtures";
import { createAutomationWithWorker, createJob, readJob, sleep, useHubWithDispatcher, waitFor } from "./job-fixtures";

const hub = useHubWithDispatcher();
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let creator: TestUser;
const second = { stop: async () => undefined as void };

beforeAll(async () => {
  [alice, bob, carol, creator] = [
    await hub.createUser("employee"),
    await hub.createUser("employee"),
    await hub.createUser("employee"),
    await hub.createUser("employee"),
  ];
  // A second dispatcher on the same database and Redis, as a second replica would be.
  const database = openDatabase(hub.env.DATABASE_URL, { max: 3, applicationName: "hub-dispatcher-second" });
  const redis = createRedis(hub.env.REDIS_URL, "hub-dispatcher-second");
  const dispatcher = createDispatcher({
    database,
    redis,
    keys: hub.api.ctx.keys,
    logger: createLogger("dispatcher-second", hub.env.LOG_LEVEL),
    config: { maxAttempts: hub.env.HUB_JOB_MAX_ATTEMPTS, workerTtlSeconds: hub.env.HUB_WORKER_TTL_SECONDS },
  });
  await dispatcher.start();
  second.stop = async () => {
    await dispatcher.stop();
    redis.disconnect();
    await database.close();
  };
});

afterAll(() => second.stop());

const db = () => hub.api.ctx.database.db;
const approve = (jobId: string, token: string) => hub.client.post(`/jobs/${jobId}/approve`, {}, { token });

/** Sets a pending job's expiry `ms` from now (the API's smallest timeout is a minute). */
async function expireIn(jobId: string, ms: number): Promise<void> {
  await db().execute(sql`update jobs set approval_expires_at = now() + ${`${ms} milliseconds`}::interval where id = ${jobId}`);
}

/** Connections of this database waiting for a row lock. */
async function lockWaiters(): Promise<number> {
  const { rows } = await db().execute<{ waiting: number }>(
    sql`select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
  );
  return rows[0]!.waiting;
}

describe("approvals racing", () => {
  it("when two approvers decide the same job at the same moment, then exactly one wins and the other gets 409", async () => {
    const subject = await createAutomationWithWorker(hub, { requires_approval: true, approver_ids: [alice.id, bob.id] });
    const id = await createJob(hub, subject.automationId, creator.token);
    // Hold the job's row so both decisions are in flight together, then let them go at once.
    const holder = openDatabase(hub.env.DATABASE_URL, { max: 1, applicationName: "row-holder" });
    const client = await holder.pool.connect();
    await client.query("begin");
    await client.query("select 1 from jobs where id = $1 for update", [id]);
    try {
      const decisions = [approve(id, alice.token), hub.client.post(`/jobs/${id}/reject`, { comment: "no" }, { token: bob.token })];
      await waitFor(async () => (await lockWaiters()) >= 2);
      await client.query("commit");
      const statuses = (await Promise.all(decisions)).map((result) => result.status).sort();

      expect(statuses).toEqual([200, 409]);
    } finally {
      client.release();
      await holder.close();
    }
    const decided = (await eventsOf(hub, id)).filter((event) => event.eventType === "job.approved" || event.eventType === "job.rejected");
    expect(decided).toHaveLength(1);
  });

  it("when a decision arrives after expires_at before any sweep, then 409 and the job is expired once, never approved", async () => {
    const subject = await createAutomationWithWorker(hub, { requires_approval: true, approver_ids: [alice.id] });
    const id = await createJob(hub, subject.automationId, creator.token);
    await db().execute(sql`update jobs set approval_expires_at = now() - interval '1 second' where id = ${id}`);

    const late = await approve(id, alice.token);

    expect(late.status).toBe(409);
    expect(late.body.detail).toMatch(/expired/);
    expect(await readJob(hub, id)).toMatchObject({ status: "cancelled", approval: { status: "expired", decided_by: null } });
    expect(await jobs.expireDue(hub.api.ctx.database.pool, 10, [id])).toEqual([]);
    const cancels = (await eventsOf(hub, id)).filter((event) => event.eventType === "job.cancelled");
    expect(cancels.map((event) => [event.actorId, event.payload])).toEqual([[null, { automation_id: subject.automationId, reason: "approval_expired" }]]);
  });

  it("when an approval and the expiry land at the same instant, then exactly one of them happens", async () => {
    const subject = await createAutomationWithWorker(hub, { requires_approval: true, approver_ids: [alice.id] });
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) ids.push(await createJob(hub, subject.automationId, creator.token));
    for (const [index, id] of ids.entries()) await expireIn(id, 1500 + index * 400);
    await sleep(1500);

    const answers = [];
    for (const id of ids) {
      answers.push((await approve(id, alice.token)).status);
      await sleep(300);
    }
    await waitFor(async () => (await readJob(hub, ids.at(-1)!)).approval.status !== "pending");

    for (const [index, id] of ids.entries()) {
      const job = await readJob(hub, id);
      const types = (await eventsOf(hub, id)).map((event) => event.eventType);
      if (answers[index] === 200) {
        expect(job.approval.status).toBe("approved");
        expect(types.filter((type) => type === "job.cancelled")).toEqual([]);
      } else {
        expect(answers[index]).toBe(409);
        expect(job).toMatchObject({ status: "cancelled", approval: { status: "expired" } });
        expect(types.filter((type) => type === "job.cancelled" || type === "job.approved")).toEqual(["job.cancelled"]);
      }
    }
  });

  it("when a request's time is up and two dispatchers sweep, then the job is cancelled approval_expired within 5 s, once", async () => {
    const subject = await createAutomationWithWorker(hub, { requires_approval: true, approval_timeout_seconds: 60 });
    const id = await createJob(hub, subject.automationId, creator.token);
    expect((await readJob(hub, id)).approval.expires_at).not.toBeNull();
    await expireIn(id, 0);
    const expiredAt = Date.now();

    await waitFor(async () => (await readJob(hub, id)).status === "cancelled", { timeoutMs: 5_000 });

    expect(Date.now() - expiredAt).toBeLessThan(5_000);
    await sleep(2_500); // both dispatchers have swept again since
    const cancels = (await eventsOf(hub, id)).filter((event) => event.eventType === "job.cancelled");
    expect(cancels.map((event) => event.payload)).toEqual([{ automation_id: subject.automationId, reason: "approval_expired" }]);
    expect((await readJob(hub, id)).approval).toMatchObject({ status: "expired", decided_at: null });
  });

  it("when the automation's approvers change while a job waits, then the ones removed may no longer decide and the ones added may", async () => {
    const subject = await createAutomationWithWorker(hub, { requires_approval: true, approver_ids: [alice.id] });
    const id = await createJob(hub, subject.automationId, creator.token);
    const automation = (await hub.client.get(`/automations/${subject.automationId}`, { token: hub.adminToken })).body;
    const listed = async (user: TestUser) =>
      (await hub.client.get<Array<{ id: string }>>("/approvals?limit=1000", { token: user.token })).body.some((job) => job.id === id);
    expect(await listed(alice)).toBe(true);

    const changed = await hub.client.put(
      `/automations/${subject.automationId}`,
      { name: automation.name, description: "", sector_id: automation.sector.id, max_concurrent_jobs: 1, parameters: [], approver_ids: [carol.id] },
      { token: hub.adminToken },
    );

    expect(changed.status).toBe(200);
    expect([await listed(alice), await listed(carol)]).toEqual([false, true]);
    expect((await approve(id, alice.token)).status).toBe(403);
    const approved = await approve(id, carol.token);
    expect(approved.status).toBe(200);
    expect(approved.body.approval.decided_by).toBe(carol.id);
  });
});
