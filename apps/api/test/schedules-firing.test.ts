/**
 * CONTRACT §6.9, firing: the dispatcher (in-process here, beside the API) makes one job per fire as
 * POST /jobs would, skips overlapping fires and fires whose context no longer fits, makes only the
 * latest of the fires it missed, and a deleted schedule stops. Seconds fields are allowed so that
 * fires come every second. Several dispatcher processes, a SIGKILL mid-fire and PostgreSQL stopped
 * across fire times are in packages/system-tests/test/schedules*.test.ts.
 */
import { asc, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type Job, schema } from "@hub/db";
import { eventsOf } from "./automation-fixtures";
import { claim, createAutomationWithWorker, readJob, sleep, useHubWithDispatcher, waitFor } from "./job-fixtures";

const hub = useHubWithDispatcher({ HUB_SCHEDULES_ALLOW_SECONDS: "true" });

const asAdmin = () => ({ token: hub.adminToken });
const PARAMETERS = [{ name: "month", description: "YYYY-MM" }];

async function createSchedule(automationId: string, body: Record<string, unknown>): Promise<string> {
  const created = await hub.client.post<{ id: string }>(`/automations/${automationId}/schedules`, body, asAdmin());
  if (created.status !== 201) throw new Error(`schedule not created: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id;
}

/** The schedule's jobs in fire order, from the database. */
function jobsOf(scheduleId: string): Promise<Job[]> {
  return hub.api.ctx.database.db.select().from(schema.jobs).where(eq(schema.jobs.scheduleId, scheduleId)).orderBy(asc(schema.jobs.fireTime));
}

async function disable(scheduleId: string, body: Record<string, unknown>): Promise<void> {
  const answer = await hub.client.put(`/schedules/${scheduleId}`, { ...body, enabled: false }, asAdmin());
  expect(answer.status).toBe(200);
}

/** Seconds between consecutive fire times. */
const gapsOf = (times: Date[]) => times.slice(1).map((time, index) => (time.getTime() - times[index]!.getTime()) / 1000);

describe("a schedule's fires", () => {
  it("when a schedule fires every second, then each fire makes one job as POST /jobs would, and the worker can claim it", async () => {
    const worker = await createAutomationWithWorker(hub, { parameters: PARAMETERS, max_concurrent_jobs: 5 });
    const body = { cron: "* * * * * *", context: { month: "2026-11" }, priority: 5, overlap: "allow" };
    const scheduleId = await createSchedule(worker.automationId, body);

    await waitFor(async () => (await jobsOf(scheduleId)).length >= 3);
    await disable(scheduleId, body);

    const made = await jobsOf(scheduleId);
    const fireTimes = made.map((job) => job.fireTime!);
    expect(fireTimes.every((time) => time.getMilliseconds() === 0)).toBe(true);
    expect(gapsOf(fireTimes).every((gap) => gap === 1)).toBe(true);
    for (const job of made) {
      expect(job).toMatchObject({ automationId: worker.automationId, context: { month: "2026-11" }, priority: 5, createdBy: null, scheduleId });
      expect(job.availableAt.getTime()).toBe(job.createdAt.getTime());
      expect((await eventsOf(hub, job.id)).map((event) => [event.eventType, event.actorId, event.payload])).toEqual([
        [
          "job.created",
          null,
          { automation_id: worker.automationId, context: { month: "2026-11" }, schedule_id: scheduleId, fire_time: job.fireTime!.toISOString() },
        ],
      ]);
    }
    const record = (await hub.client.get(`/schedules/${scheduleId}`, asAdmin())).body;
    const last = made.at(-1)!;
    expect(record).toMatchObject({ last_run_at: last.fireTime!.toISOString(), last_job_id: last.id, enabled: false, next_run_at: null });
    expect(await readJob(hub, last.id)).toMatchObject({ schedule_id: scheduleId, fire_time: last.fireTime!.toISOString(), created_by: null });
    const claimed = await claim(hub, worker.workerKey, 10);
    expect(claimed.status).toBe(200);
    expect(claimed.body.id).toBe(made[0]!.id);
  });

  it("when overlap is skip and the worker holds the job, then later fires write schedule.skipped (overlap) until it completes", async () => {
    const worker = await createAutomationWithWorker(hub, { parameters: PARAMETERS });
    const body = { cron: "* * * * * *", context: { month: "2026-11" } };
    const scheduleId = await createSchedule(worker.automationId, body);

    // The slow worker: claims the first job and works on it for 3 s.
    const claimed = await claim(hub, worker.workerKey, 10);
    expect(claimed.status).toBe(200);
    await sleep(3000);
    expect(await jobsOf(scheduleId)).toHaveLength(1);
    await hub.client.post(`/jobs/${claimed.body.id}/complete`, { result: {} }, { workerKey: worker.workerKey });
    await waitFor(async () => (await jobsOf(scheduleId)).length >= 2);
    await disable(scheduleId, body);

    const made = await jobsOf(scheduleId);
    const skipped = (await eventsOf(hub, scheduleId)).filter((event) => event.eventType === "schedule.skipped");
    expect(skipped.every((event) => event.payload.reason === "overlap" && event.actorId === null)).toBe(true);
    const skippedTimes = skipped.map((event) => new Date(event.payload.fire_time as string));
    const madeTimes = made.map((job) => job.fireTime!);
    // Held for 3 s: the fires in between were skipped.
    expect(skippedTimes.filter((time) => time > madeTimes[0]! && time < madeTimes[1]!).length).toBeGreaterThanOrEqual(2);
    // Every second got exactly one outcome: a job, or a skip while a job was queued or running.
    const outcomes = [...madeTimes, ...skippedTimes].sort((a, b) => a.getTime() - b.getTime());
    expect(gapsOf(outcomes).every((gap) => gap === 1)).toBe(true);
  });

  it("when overlap is skip and the schedule's job is held (dependencies, approval), then it counts as queued and later fires are skipped", async () => {
    const worker = await createAutomationWithWorker(hub, { parameters: PARAMETERS });
    const body = { cron: "* * * * * *", context: { month: "2026-11" } };
    const scheduleId = await createSchedule(worker.automationId, body);
    await waitFor(async () => (await jobsOf(scheduleId)).length >= 1);
    const [first] = await jobsOf(scheduleId);
    await hub.api.ctx.database.db.execute(sql`update jobs set status = 'held' where id = ${first!.id}`);
    await sleep(2500);
    await disable(scheduleId, body);
    expect(await jobsOf(scheduleId)).toHaveLength(1);
    const skipped = (await eventsOf(hub, scheduleId)).filter((event) => event.eventType === "schedule.skipped");
    expect(skipped.length).toBeGreaterThanOrEqual(1);
    expect(await readJob(hub, first!.id)).toMatchObject({ status: "queued" });
  });

  it("when overlap is allow, then fires make jobs while earlier ones still wait", async () => {
    const worker = await createAutomationWithWorker(hub, { parameters: PARAMETERS });
    const body = { cron: "* * * * * *", context: { month: "2026-11" }, overlap: "allow" };
    const scheduleId = await createSchedule(worker.automationId, body);

    await waitFor(async () => (await jobsOf(scheduleId)).filter((job) => job.status === "queued").length >= 3);
    await disable(scheduleId, body);

    expect((await eventsOf(hub, scheduleId)).filter((event) => event.eventType === "schedule.skipped")).toEqual([]);
  });

  it("when the automation's parameters change so the context no longer fits, then fires write schedule.skipped (invalid_context) and make no job", async () => {
    const worker = await createAutomationWithWorker(hub, { parameters: PARAMETERS });
    const body = { cron: "* * * * * *", context: { month: "2026-11" }, overlap: "allow" };
    const scheduleId = await createSchedule(worker.automationId, body);
    await waitFor(async () => (await jobsOf(scheduleId)).length >= 1);
    const automation = (await hub.client.get(`/automations/${worker.automationId}`, asAdmin())).body;

    const replaced = await hub.client.put(
      `/automations/${worker.automationId}`,
      { name: automation.name, description: "", sector_id: automation.sector.id, max_concurrent_jobs: 1, parameters: [...PARAMETERS, { name: "city" }] },
      asAdmin(),
    );
    expect(replaced.status).toBe(200);
    const madeBefore = (await jobsOf(scheduleId)).length;
    await waitFor(async () => (await eventsOf(hub, scheduleId)).filter((event) => event.eventType === "schedule.skipped").length >= 2);
    await hub.client.put(`/schedules/${scheduleId}`, { ...body, enabled: false }, asAdmin());

    const skipped = (await eventsOf(hub, scheduleId)).filter((event) => event.eventType === "schedule.skipped");
    expect(skipped.every((event) => event.payload.reason === "invalid_context")).toBe(true);
    // A fire in flight while the PUT committed may still have made its job, never more.
    expect((await jobsOf(scheduleId)).length).toBeLessThanOrEqual(madeBefore + 1);
    const made = await jobsOf(scheduleId);
    expect(skipped.every((event) => new Date(event.payload.fire_time as string) > made.at(-1)!.fireTime!)).toBe(true);
  });

  it("when the dispatchers missed a schedule's fires for minutes, then only the latest missed fire is made, with its own fire time", async () => {
    const worker = await createAutomationWithWorker(hub, { parameters: PARAMETERS });
    const scheduleId = await createSchedule(worker.automationId, { cron: "0 * * * * *", context: { month: "x" }, enabled: false });

    // As after an outage: enabled, with its next fire three minutes in the past.
    await hub.api.ctx.database.db.execute(sql`
      update schedules set enabled = true, next_run_at = date_trunc('minute', now()) - interval '3 minutes' where id = ${scheduleId}`);
    await waitFor(async () => (await jobsOf(scheduleId)).length >= 1);

    const [caughtUp] = await jobsOf(scheduleId);
    const madeAt = caughtUp!.createdAt.getTime();
    const latestMissed = Math.floor((madeAt - 5000 - 1) / 60_000) * 60_000;
    expect(caughtUp!.fireTime!.getTime()).toBe(latestMissed);
    expect(madeAt - caughtUp!.fireTime!.getTime()).toBeGreaterThan(5000);
    const [schedule] = await hub.api.ctx.database.db.select().from(schema.schedules).where(eq(schema.schedules.id, scheduleId));
    expect(schedule!.nextRunAt!.getTime()).toBeGreaterThan(latestMissed);
    expect(schedule!.lastJobId).toBe(caughtUp!.id);
  });
});

describe("one job per fire, in the database itself", () => {
  it("when a second job for a fire that already has one is inserted, then the unique (schedule_id, fire_time) refuses it", async () => {
    const worker = await createAutomationWithWorker(hub, { parameters: PARAMETERS });
    const body = { cron: "* * * * * *", context: { month: "x" }, overlap: "allow" };
    const scheduleId = await createSchedule(worker.automationId, body);
    await waitFor(async () => (await jobsOf(scheduleId)).length >= 1);
    await disable(scheduleId, body);
    const [made] = await jobsOf(scheduleId);

    const second = hub.api.ctx.database.db.execute(sql`
      insert into jobs (automation_id, context, schedule_id, fire_time)
      values (${worker.automationId}, '{"month":"x"}', ${scheduleId}, ${made!.fireTime!.toISOString()})`);

    await expect(second).rejects.toMatchObject({ cause: { code: "23505", constraint: "jobs_schedule_fire_key" } });
  });
});

describe("what stops a schedule and what does not", () => {
  it("when a schedule is deleted, then it makes no more jobs and the jobs it made stay queued", async () => {
    const worker = await createAutomationWithWorker(hub, { parameters: PARAMETERS });
    const scheduleId = await createSchedule(worker.automationId, { cron: "* * * * * *", context: { month: "x" }, overlap: "allow" });
    await waitFor(async () => (await jobsOf(scheduleId)).length >= 2);

    expect((await hub.client.delete(`/schedules/${scheduleId}`, asAdmin())).status).toBe(204);
    const afterDelete = await jobsOf(scheduleId);
    await sleep(2500);

    expect(await jobsOf(scheduleId)).toEqual(afterDelete);
    expect(afterDelete.every((job) => job.status === "queued")).toBe(true);
  });

  it("when the automation is in development mode, then its schedule still makes jobs, which wait", async () => {
    const worker = await createAutomationWithWorker(hub, { parameters: PARAMETERS });
    await hub.client.post(`/automations/${worker.automationId}/development-mode`, undefined, asAdmin());
    const body = { cron: "* * * * * *", context: { month: "x" } };
    const scheduleId = await createSchedule(worker.automationId, body);

    await waitFor(async () => (await jobsOf(scheduleId)).length >= 1);
    await disable(scheduleId, body);

    const [job] = await jobsOf(scheduleId);
    expect(await readJob(hub, job!.id)).toMatchObject({ status: "queued", waiting_reason: "development_mode" });
  });
});
