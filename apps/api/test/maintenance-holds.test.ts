/**
 * CONTRACT §6.18, what a window does: no claim hands out a job of its scope while it is in effect
 * (PostgreSQL's clock, checked inside the claim), running jobs go on, overlapping windows of
 * different scopes, drain, the held jobs' waiting_reason / resumes_at and the stats, a delete
 * ending a window at once, and at the end the held jobs start within 1 s in claim order under the
 * concurrency limit. The dispatcher runs in-process (it offers jobs and writes .started/.ended).
 */
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { createSector } from "./automation-fixtures";
import { claim, createAutomationWithWorker, createJob, readJob, sleep, useHubWithDispatcher, waitFor } from "./job-fixtures";

const hub = useHubWithDispatcher();
const asAdmin = () => ({ token: hub.adminToken });

const created: string[] = [];
afterEach(async () => {
  // Hub-wide windows hold every automation of the file: none outlives its test.
  for (const id of created.splice(0)) await hub.client.delete(`/maintenance-windows/${id}`, asAdmin());
});

async function createWindow(body: Record<string, unknown>): Promise<string> {
  const answer = await hub.client.post<{ id: string }>("/maintenance-windows", body, asAdmin());
  if (answer.status !== 201) throw new Error(`window not created: ${answer.status} ${JSON.stringify(answer.body)}`);
  created.push(answer.body.id);
  return answer.body.id;
}

/** PostgreSQL's now(), as the claim reads it. */
async function pgNow(): Promise<Date> {
  const result = await hub.api.ctx.database.db.execute<{ now: string }>(sql`select now() as now`);
  return new Date(result.rows[0]!.now);
}

const at = (base: Date, offsetMs: number) => new Date(base.getTime() + offsetMs).toISOString();

/** The job.started events of an automation's jobs: when (the claim's now()) and which job, in order. */
async function startsOf(automationId: string): Promise<Array<{ jobId: string; at: Date }>> {
  const result = await hub.api.ctx.database.db.execute<{ aggregate_id: string; created_at: string }>(sql`
    select aggregate_id, created_at from events where event_type = 'job.started' and payload->>'automation_id' = ${automationId} order by created_at, id`);
  return result.rows.map((row) => ({ jobId: row.aggregate_id, at: new Date(row.created_at) }));
}

describe("a maintenance window in effect", () => {
  it("when a window begins while claims are in flight, then no job starts between its start and its end, and held jobs start within 1 s of the end", async () => {
    const worker = await createAutomationWithWorker(hub, { max_concurrent_jobs: 1 });
    for (let index = 0; index < 40; index += 1) await createJob(hub, worker.automationId);
    await hub.dispatcher.reconcileNow();
    const base = await pgNow();
    const startsAt = new Date(at(base, 1500));
    const endsAt = new Date(at(base, 3500));
    await createWindow({ automation_id: worker.automationId, starts_at: startsAt.toISOString(), ends_at: endsAt.toISOString() });

    // A busy worker: claim (long-poll), complete at once, again, from before the start to after the end.
    // Each completion is replaced by a new job, so jobs wait at every moment however fast the machine
    // drains them (40 jobs alone were all done before the window began on a quiet machine).
    while ((await pgNow()).getTime() < endsAt.getTime() + 1500) {
      const claimed = await claim(hub, worker.workerKey, 1);
      if (claimed.status === 200) {
        await hub.client.post(`/jobs/${claimed.body.id}/complete`, { result: {} }, { workerKey: worker.workerKey });
        await createJob(hub, worker.automationId);
      }
    }

    const starts = await startsOf(worker.automationId);
    expect(starts.filter((start) => start.at < startsAt).length).toBeGreaterThan(0);
    expect(starts.filter((start) => start.at >= startsAt && start.at < endsAt)).toEqual([]);
    const firstAfter = starts.find((start) => start.at >= endsAt);
    expect(firstAfter).toBeDefined();
    expect(firstAfter!.at.getTime() - endsAt.getTime()).toBeLessThan(1000);
  });

  it("when a running job's window begins, then it goes on and completes; new jobs are accepted and wait with maintenance_window", async () => {
    const worker = await createAutomationWithWorker(hub);
    await createJob(hub, worker.automationId);
    await hub.dispatcher.reconcileNow();
    const running = await claim(hub, worker.workerKey, 5);
    expect(running.status).toBe(200);
    const base = await pgNow();
    const endsAt = at(base, 3_600_000);
    await createWindow({ automation_id: worker.automationId, starts_at: at(base, -1000), ends_at: endsAt });

    const waiting = await createJob(hub, worker.automationId);
    expect((await hub.client.post(`/jobs/${running.body.id}/complete`, { result: {} }, { workerKey: worker.workerKey })).status).toBe(200);
    expect((await claim(hub, worker.workerKey, 1)).status).toBe(204);
    expect(await readJob(hub, waiting)).toMatchObject({ status: "queued", waiting_reason: "maintenance_window", resumes_at: endsAt });
    const stats = await hub.client.get(`/automations/${worker.automationId}/stats`, asAdmin());
    expect(stats.body.maintenance_until).toBe(endsAt);
    const listed = await hub.client.get(`/jobs?automation_id=${worker.automationId}&status=queued`, asAdmin());
    expect(listed.body[0]).toMatchObject({ id: waiting, waiting_reason: "maintenance_window", resumes_at: null });
    const { slug } = (await hub.client.get(`/automations/${worker.automationId}`, asAdmin())).body;
    const gauge = new RegExp(`^hub_maintenance_active\\{automation="${slug}"[^}]*\\} 1$`, "m");
    await waitFor(async () => gauge.test(String((await hub.client.get("/metrics")).body)));
  });

  it("when windows of different scopes overlap, then each automation is held until the last end of the windows holding it", async () => {
    const sector = await createSector(hub);
    const inSector = await createAutomationWithWorker(hub);
    // Its own sector for the one held by the sector window.
    const held = await createAutomationWithWorker(hub);
    const heldAutomation = (await hub.client.get(`/automations/${held.automationId}`, asAdmin())).body;
    const base = await pgNow();
    const hubEnd = at(base, 3_600_000);
    const sectorEnd = at(base, 2 * 3_600_000);
    const hubWide = await createWindow({ starts_at: at(base, -60_000), ends_at: hubEnd });
    await createWindow({ sector_id: heldAutomation.sector.id, starts_at: at(base, 1_800_000), ends_at: sectorEnd });
    await createWindow({ sector_id: sector.id, starts_at: at(base, 5 * 3_600_000), ends_at: at(base, 6 * 3_600_000) });
    const heldJob = await createJob(hub, held.automationId);
    const otherJob = await createJob(hub, inSector.automationId);
    await hub.dispatcher.reconcileNow();

    expect(await readJob(hub, heldJob)).toMatchObject({ waiting_reason: "maintenance_window", resumes_at: sectorEnd });
    expect(await readJob(hub, otherJob)).toMatchObject({ waiting_reason: "maintenance_window", resumes_at: hubEnd });
    expect((await claim(hub, held.workerKey)).status).toBe(204);
    expect((await claim(hub, inSector.workerKey)).status).toBe(204);

    // The hub-wide window goes: the other automation runs again; the sector window has not begun.
    expect((await hub.client.delete(`/maintenance-windows/${hubWide}`, asAdmin())).status).toBe(204);
    expect((await claim(hub, inSector.workerKey, 2)).body.id).toBe(otherJob);
    expect((await claim(hub, held.workerKey, 2)).body.id).toBe(heldJob);
  });

  it("when a drain window begins within the automation's timeout_seconds, then no job starts; without timeout_seconds, or without drain, jobs start", async () => {
    const timed = await createAutomationWithWorker(hub, { timeout_seconds: 3600 });
    const untimed = await createAutomationWithWorker(hub);
    const notDraining = await createAutomationWithWorker(hub, { timeout_seconds: 3600 });
    const base = await pgNow();
    const endsAt = at(base, 3 * 3_600_000);
    for (const automationId of [timed.automationId, untimed.automationId]) {
      await createWindow({ automation_id: automationId, starts_at: at(base, 1_800_000), ends_at: endsAt, drain: true });
    }
    await createWindow({ automation_id: notDraining.automationId, starts_at: at(base, 1_800_000), ends_at: endsAt });
    const jobs = {
      timed: await createJob(hub, timed.automationId),
      untimed: await createJob(hub, untimed.automationId),
      notDraining: await createJob(hub, notDraining.automationId),
    };
    await hub.dispatcher.reconcileNow();

    expect(await readJob(hub, jobs.timed)).toMatchObject({ waiting_reason: "maintenance_window", resumes_at: endsAt });
    expect((await claim(hub, timed.workerKey)).status).toBe(204);
    expect((await claim(hub, untimed.workerKey, 2)).body.id).toBe(jobs.untimed);
    expect((await claim(hub, notDraining.workerKey, 2)).body.id).toBe(jobs.notDraining);
  });

  it("when a window in effect is deleted while a claim long-polls, then the claim gets its job within 1 s", async () => {
    const worker = await createAutomationWithWorker(hub);
    const base = await pgNow();
    const id = await createWindow({ automation_id: worker.automationId, starts_at: at(base, -1000), ends_at: at(base, 3_600_000) });
    const jobId = await createJob(hub, worker.automationId);
    await hub.dispatcher.reconcileNow();

    const polling = claim(hub, worker.workerKey, 10);
    await sleep(500);
    const deletedAt = Date.now();
    expect((await hub.client.delete(`/maintenance-windows/${id}`, asAdmin())).status).toBe(204);
    const claimed = await polling;
    expect(claimed.status).toBe(200);
    expect(claimed.body.id).toBe(jobId);
    expect(Date.now() - deletedAt).toBeLessThan(1000);
  });

  it("when a window ends, then the held jobs start within 1 s in claim order, never beyond max_concurrent_jobs", async () => {
    const worker = await createAutomationWithWorker(hub, { max_concurrent_jobs: 2 });
    const base = await pgNow();
    const endsAt = new Date(at(base, 3000));
    await createWindow({ automation_id: worker.automationId, starts_at: at(base, -1000), ends_at: endsAt.toISOString() });
    const ids: Record<string, string> = {};
    for (const [name, priority] of [
      ["first", 0],
      ["urgent", 10],
      ["second", 0],
      ["soon", 5],
    ] as const) {
      const answer = await hub.client.post("/jobs", { automation_id: worker.automationId, priority }, asAdmin());
      ids[name] = answer.body.id;
    }
    await hub.dispatcher.reconcileNow();

    // Asked before the end, answered at it: the two free slots, in claim order.
    const batch = await hub.client.post("/jobs/claim-batch", { max_jobs: 4, wait_seconds: 10 }, { workerKey: worker.workerKey });
    expect(batch.status).toBe(200);
    expect(batch.body.jobs.map((job: { id: string }) => job.id)).toEqual([ids.urgent, ids.soon]);
    for (const job of batch.body.jobs) {
      const startedAt = new Date(job.started_at).getTime();
      expect(startedAt).toBeGreaterThanOrEqual(endsAt.getTime());
      expect(startedAt - endsAt.getTime()).toBeLessThan(1000);
    }
    for (const job of batch.body.jobs) await hub.client.post(`/jobs/${job.id}/complete`, { result: {} }, { workerKey: worker.workerKey });
    const rest = await hub.client.post("/jobs/claim-batch", { max_jobs: 4, wait_seconds: 2 }, { workerKey: worker.workerKey });
    expect(rest.body.jobs.map((job: { id: string }) => job.id)).toEqual([ids.first, ids.second]);
  });

  it("when a recurring window holds claims and a PUT moves its end before now, then it ends at once and the held job starts", async () => {
    const worker = await createAutomationWithWorker(hub);
    const id = await createWindow({ automation_id: worker.automationId, cron: "* * * * *", duration_seconds: 3600 });
    const jobId = await createJob(hub, worker.automationId);
    await hub.dispatcher.reconcileNow();
    expect((await hub.client.get(`/maintenance-windows/${id}`, asAdmin())).body.active).toBe(true);
    expect((await claim(hub, worker.workerKey)).status).toBe(204);

    // Once a year, 60 s long: the occurrence in effect is not one of the new settings.
    const replaced = await hub.client.put(
      `/maintenance-windows/${id}`,
      { automation_id: worker.automationId, cron: "0 0 1 1 *", duration_seconds: 60 },
      asAdmin(),
    );
    expect(replaced.status).toBe(200);
    expect(replaced.body.active).toBe(false);
    expect((await claim(hub, worker.workerKey, 2)).body.id).toBe(jobId);
    const ended = (await hub.client.get(`/events?aggregate_id=${id}&event_type=maintenance_window.ended`, asAdmin())).body;
    expect(ended).toHaveLength(1);
  });
});

describe("maintenance_window.started and .ended", () => {
  it("when three dispatchers run, then each occurrence's .started and .ended is written once, within 5 s of its time", async () => {
    const { createDispatcher } = await import("@hub/dispatcher");
    const { openDatabase } = await import("@hub/db");
    const { createLogger, createRedis } = await import("@hub/shared");
    const extra = [1, 2].map((n) => {
      const database = openDatabase(hub.env.DATABASE_URL, { max: 3, applicationName: `hub-dispatcher-test-${n}` });
      const redis = createRedis(hub.env.REDIS_URL, `hub-dispatcher-test-${n}`);
      const dispatcher = createDispatcher({
        database,
        redis,
        keys: hub.api.ctx.keys,
        logger: createLogger("dispatcher-test", "silent"),
        config: { maxAttempts: hub.env.HUB_JOB_MAX_ATTEMPTS, workerTtlSeconds: hub.env.HUB_WORKER_TTL_SECONDS },
      });
      return { database, redis, dispatcher };
    });
    for (const { dispatcher } of extra) await dispatcher.start();
    try {
      const sector = await createSector(hub);
      const base = await pgNow();
      const windows = [];
      for (let index = 0; index < 3; index += 1) {
        const startsAt = at(base, 1000 + index * 400);
        const endsAt = at(base, 2500 + index * 400);
        windows.push({ id: await createWindow({ sector_id: sector.id, starts_at: startsAt, ends_at: endsAt }), startsAt, endsAt });
      }
      await waitFor(async () => (await pgNow()).getTime() > base.getTime() + 5000, { timeoutMs: 10_000 });
      await sleep(1500);
      for (const window of windows) {
        const events = (await hub.client.get(`/events?aggregate_id=${window.id}`, asAdmin())).body as Array<{
          event_type: string;
          payload: unknown;
          created_at: string;
        }>;
        const started = events.filter((event) => event.event_type === "maintenance_window.started");
        const ended = events.filter((event) => event.event_type === "maintenance_window.ended");
        expect(started.map((event) => event.payload)).toEqual([{ starts_at: window.startsAt, ends_at: window.endsAt }]);
        expect(ended.map((event) => event.payload)).toEqual([{ starts_at: window.startsAt, ends_at: window.endsAt }]);
        expect(new Date(started[0]!.created_at).getTime() - new Date(window.startsAt).getTime()).toBeLessThan(5000);
        expect(new Date(ended[0]!.created_at).getTime() - new Date(window.endsAt).getTime()).toBeLessThan(5000);
      }
    } finally {
      for (const { database, redis, dispatcher } of extra) {
        await dispatcher.stop();
        redis.disconnect();
        await database.close();
      }
    }
  });
});
