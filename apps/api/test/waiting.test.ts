/**
 * Why a job waits and how deep each queue is (CONTRACT §6.3, §6.8): `waiting_reason` and
 * `queue_position` on job records, GET /automations/{id}/stats, worker `last_seen_at`, and the
 * per-automation Prometheus gauges. Delays, back-off and running jobs are arranged with SQL, as the
 * endpoints that set them belong to other sections.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createAutomation, createSector } from "./automation-fixtures";
import { useTestHub, type TestUser } from "./harness";
import { createAutomationWithWorker, createJob, readJob, waitFor, type AutomationWithWorker } from "./job-fixtures";

const hub = useTestHub();
let employee: TestUser;

beforeAll(async () => {
  employee = await hub.createUser("employee");
});

/** A worker call marks the worker seen, so its status becomes `running` (CONTRACT §3). */
async function bringWorkerOnline(worker: AutomationWithWorker): Promise<void> {
  const answered = await hub.client.post("/jobs/claim", { wait_seconds: 0 }, { workerKey: worker.workerKey });
  expect([200, 204]).toContain(answered.status);
}

/** An automation whose worker is online, with `max_concurrent_jobs` slots. */
async function onlineAutomation(maxConcurrentJobs = 1): Promise<AutomationWithWorker> {
  const worker = await createAutomationWithWorker(hub, { max_concurrent_jobs: maxConcurrentJobs });
  await bringWorkerOnline(worker);
  return worker;
}

/** Marks a queued job running under the automation's worker, as a claim would. */
async function markRunning(jobId: string, workerId: string): Promise<void> {
  await hub.api.ctx.database.db.execute(sql`
    update jobs set status = 'running', attempts = attempts + 1, worker_id = ${workerId}, started_at = now(),
      lease_expires_at = now() + interval '1 hour' where id = ${jobId}`);
}

async function setJob(jobId: string, assignments: ReturnType<typeof sql>): Promise<void> {
  await hub.api.ctx.database.db.execute(sql`update jobs set ${assignments} where id = ${jobId}`);
}

describe("waiting_reason, in the contract's order", () => {
  it("when the automation is in development mode, then its queued job waits for development_mode", async () => {
    const { automationId } = await onlineAutomation();
    await hub.client.post(`/automations/${automationId}/development-mode`, undefined, { token: hub.adminToken });
    const job = await readJob(hub, await createJob(hub, automationId));
    expect(job).toMatchObject({ status: "queued", waiting_reason: "development_mode", queue_position: 1 });
  });

  it("when no worker is registered, then no_worker", async () => {
    const sector = await createSector(hub);
    const automationId = await createAutomation(hub, { sector_id: sector.id });
    const job = await readJob(hub, await createJob(hub, automationId));
    expect(job).toMatchObject({ waiting_reason: "no_worker", queue_position: 1 });
  });

  it("when the worker is registered but has not been seen, then worker_offline", async () => {
    const { automationId } = await createAutomationWithWorker(hub);
    const job = await readJob(hub, await createJob(hub, automationId));
    expect(job.waiting_reason).toBe("worker_offline");
  });

  it("when the job's available_at is ahead and it was never attempted, then scheduled, with no queue position", async () => {
    const { automationId } = await onlineAutomation();
    const jobId = await createJob(hub, automationId);
    await setJob(jobId, sql`available_at = now() + interval '10 minutes'`);
    expect(await readJob(hub, jobId)).toMatchObject({ waiting_reason: "scheduled", queue_position: null });
  });

  it("when the job's available_at is ahead after an attempt (back-off), then scheduled_retry", async () => {
    const { automationId } = await onlineAutomation();
    const jobId = await createJob(hub, automationId);
    await setJob(jobId, sql`attempts = 1, available_at = now() + interval '30 seconds'`);
    expect(await readJob(hub, jobId)).toMatchObject({ waiting_reason: "scheduled_retry", queue_position: null });
  });

  it("when every slot is taken by running jobs, then concurrency_limit", async () => {
    const { automationId, workerId } = await onlineAutomation(1);
    const running = await createJob(hub, automationId);
    await markRunning(running, workerId);
    const job = await readJob(hub, await createJob(hub, automationId));
    expect(job).toMatchObject({ waiting_reason: "concurrency_limit", queue_position: 1 });
    expect((await readJob(hub, running)).waiting_reason).toBeNull();
  });

  it("when slots are free, then the jobs the free slots take are next_in_line and those behind them wait for the limit", async () => {
    const { automationId, workerId } = await onlineAutomation(3);
    const running = await createJob(hub, automationId);
    await markRunning(running, workerId);
    // 2 free slots: the first two queued jobs go to the next claims; the third waits behind them.
    const queued = [await createJob(hub, automationId), await createJob(hub, automationId), await createJob(hub, automationId)];
    const records = await Promise.all(queued.map((id) => readJob(hub, id)));
    expect(records.map((job) => [job.waiting_reason, job.queue_position])).toEqual([
      ["next_in_line", 1],
      ["next_in_line", 2],
      ["concurrency_limit", 3],
    ]);
  });

  it("when a job is due next month, then it says scheduled whatever its worker's state; in back-off, scheduled_retry", async () => {
    const offline = await createAutomationWithWorker(hub);
    const sector = await createSector(hub);
    const withoutWorker = await createAutomation(hub, { sector_id: sector.id });
    const [nextMonthOffline, nextMonthNoWorker, backOffOffline] = [
      await createJob(hub, offline.automationId),
      await createJob(hub, withoutWorker),
      await createJob(hub, offline.automationId),
    ];
    await setJob(nextMonthOffline, sql`available_at = now() + interval '30 days'`);
    await setJob(nextMonthNoWorker, sql`available_at = now() + interval '30 days'`);
    await setJob(backOffOffline, sql`attempts = 1, available_at = now() + interval '30 seconds'`);

    expect((await readJob(hub, nextMonthOffline)).waiting_reason).toBe("scheduled");
    expect((await readJob(hub, nextMonthNoWorker)).waiting_reason).toBe("scheduled");
    expect((await readJob(hub, backOffOffline)).waiting_reason).toBe("scheduled_retry");
    const listed = await hub.client.get(`/jobs?automation_id=${offline.automationId}&status=queued`, { token: hub.adminToken });
    expect(new Map(listed.body.map((job: { id: string; waiting_reason: string }) => [job.id, job.waiting_reason]))).toEqual(
      new Map([
        [nextMonthOffline, "scheduled"],
        [backOffOffline, "scheduled_retry"],
      ]),
    );
  });

  it("when a scheduled job's automation is in development mode, then development_mode comes first", async () => {
    const { automationId } = await onlineAutomation();
    await hub.client.post(`/automations/${automationId}/development-mode`, undefined, { token: hub.adminToken });
    const jobId = await createJob(hub, automationId);
    await setJob(jobId, sql`available_at = now() + interval '30 days'`);
    expect((await readJob(hub, jobId)).waiting_reason).toBe("development_mode");
  });

  it("when a job is not queued, then both waiting fields are null", async () => {
    const { automationId } = await onlineAutomation();
    const jobId = await createJob(hub, automationId);
    await hub.client.post(`/jobs/${jobId}/cancel`, undefined, { token: hub.adminToken });
    expect(await readJob(hub, jobId)).toMatchObject({ status: "cancelled", waiting_reason: null, queue_position: null });
  });
});

describe("queue_position follows claim order", () => {
  it("when jobs differ in priority and available_at, then positions count only due jobs ahead in claim order", async () => {
    const { automationId } = await onlineAutomation(1);
    const [oldLow, high, earlierAvailable, future, plain] = [
      await createJob(hub, automationId),
      await createJob(hub, automationId),
      await createJob(hub, automationId),
      await createJob(hub, automationId),
      await createJob(hub, automationId),
    ];
    await setJob(oldLow!, sql`priority = -5`);
    await setJob(high!, sql`priority = 10`);
    await setJob(earlierAvailable!, sql`available_at = now() - interval '1 hour'`);
    // Ahead in priority, but not due: it counts for nobody, and has no position itself.
    await setJob(future!, sql`priority = 50, available_at = now() + interval '1 day'`);
    const positions = Object.fromEntries(
      await Promise.all(
        Object.entries({ oldLow, high, earlierAvailable, future, plain }).map(async ([name, id]) => [name, (await readJob(hub, id!)).queue_position]),
      ),
    );
    expect(positions).toEqual({ high: 1, earlierAvailable: 2, plain: 3, oldLow: 4, future: null });
  });

  it("when jobs are listed, then queued ones carry their waiting_reason and no position", async () => {
    const { automationId, workerId } = await onlineAutomation(1);
    const running = await createJob(hub, automationId);
    await markRunning(running, workerId);
    const queued = await createJob(hub, automationId);
    const listed = await hub.client.get<Array<{ id: string; waiting_reason: string | null; queue_position: number | null }>>(
      `/jobs?automation_id=${automationId}`,
      { token: hub.adminToken },
    );
    expect(listed.status).toBe(200);
    const byId = new Map(listed.body.map((job) => [job.id, job]));
    expect(byId.get(queued)).toMatchObject({ waiting_reason: "concurrency_limit", queue_position: null });
    expect(byId.get(running)).toMatchObject({ waiting_reason: null, queue_position: null });
  });
});

describe("GET /automations/{id}/stats", () => {
  it("when jobs are due, scheduled, running and finished, then each is counted where it belongs", async () => {
    const worker = await onlineAutomation(2);
    const { automationId, workerId } = worker;
    const ids = [];
    for (let i = 0; i < 7; i += 1) ids.push(await createJob(hub, automationId));
    // ids[1] stays as created: due now.
    const [dueOld, , scheduled, runningJob, completed, failed, completedLongAgo] = ids as [string, string, string, string, string, string, string];
    await setJob(dueOld, sql`available_at = now() - interval '5 minutes'`);
    await setJob(scheduled, sql`available_at = now() + interval '1 hour'`);
    await markRunning(runningJob, workerId);
    await setJob(completed, sql`status = 'completed', result = '{}', finished_at = now() - interval '10 minutes'`);
    await setJob(failed, sql`status = 'failed', error = 'boom', finished_at = now() - interval '59 minutes'`);
    await setJob(completedLongAgo, sql`status = 'completed', result = '{}', finished_at = now() - interval '61 minutes'`);
    const [{ available_at: oldestAvailable }] = (
      await hub.api.ctx.database.db.execute<{ available_at: string }>(sql`select available_at from jobs where id = ${dueOld}`)
    ).rows as [{ available_at: string }];

    const stats = await hub.client.get(`/automations/${automationId}/stats`, { token: employee.token });
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({
      automation_id: automationId,
      queued: 2,
      running: 1,
      scheduled: 1,
      max_concurrent_jobs: 2,
      oldest_queued_at: new Date(oldestAvailable).toISOString(),
      completed_last_hour: 1,
      failed_last_hour: 1,
      worker_status: "running",
    });
    expect(Date.parse(stats.body.worker_last_seen_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("when there is no worker and no job, then zero counts and null worker fields", async () => {
    const sector = await createSector(hub);
    const automationId = await createAutomation(hub, { sector_id: sector.id });
    const stats = await hub.client.get(`/automations/${automationId}/stats`, { token: hub.adminToken });
    expect(stats.body).toEqual({
      automation_id: automationId,
      queued: 0,
      running: 0,
      scheduled: 0,
      max_concurrent_jobs: 1,
      oldest_queued_at: null,
      completed_last_hour: 0,
      failed_last_hour: 0,
      worker_status: null,
      worker_last_seen_at: null,
      by_key: [],
      rate_limit_remaining: null,
      blocked: 0,
      maintenance_until: null,
      awaiting_approval: 0,
    });
  });

  it("when the automation does not exist, then 404", async () => {
    const stats = await hub.client.get("/automations/00000000-0000-4000-8000-000000000000/stats", { token: hub.adminToken });
    expect(stats.status).toBe(404);
  });

  it("when the worker has called the hub, then the automation's worker object shows last_seen_at", async () => {
    const worker = await createAutomationWithWorker(hub);
    const before = await hub.client.get(`/automations/${worker.automationId}`, { token: hub.adminToken });
    expect(before.body.worker).toMatchObject({ status: "stopped", last_seen_at: null });
    await bringWorkerOnline(worker);
    const after = await hub.client.get(`/automations/${worker.automationId}`, { token: hub.adminToken });
    expect(after.body.worker.status).toBe("running");
    expect(Date.parse(after.body.worker.last_seen_at)).toBeGreaterThan(Date.now() - 60_000);
  });
});

describe("per-automation gauges on /metrics", () => {
  /** The value of `name` for the automation `slug` in a /metrics text, or undefined when absent. */
  function gaugeValue(text: string, name: string, slug: string): number | undefined {
    const line = text.split("\n").find((candidate) => candidate.startsWith(`${name}{`) && candidate.includes(`automation="${slug}"`));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
  }

  it("when an automation has due, scheduled and running jobs, then its series say so, and they go when it is deactivated", async () => {
    const worker = await onlineAutomation(2);
    const { automationId, workerId } = worker;
    const { body: automation } = await hub.client.get(`/automations/${automationId}`, { token: hub.adminToken });
    const slug = automation.slug as string;
    const ids = [
      await createJob(hub, automationId),
      await createJob(hub, automationId),
      await createJob(hub, automationId),
      await createJob(hub, automationId),
    ];
    await setJob(ids[0]!, sql`available_at = now() - interval '2 minutes'`);
    await setJob(ids[2]!, sql`available_at = now() + interval '1 hour'`);
    await markRunning(ids[3]!, workerId);

    let text = "";
    await waitFor(async () => {
      text = (await hub.client.get<string>("/metrics")).body;
      return gaugeValue(text, "hub_jobs_running", slug) === 1;
    });
    expect(gaugeValue(text, "hub_jobs_queued", slug)).toBe(2);
    expect(gaugeValue(text, "hub_jobs_scheduled", slug)).toBe(1);
    expect(gaugeValue(text, "hub_worker_up", slug)).toBe(1);
    const age = gaugeValue(text, "hub_oldest_queued_job_age_seconds", slug)!;
    expect(age).toBeGreaterThanOrEqual(119);
    expect(age).toBeLessThan(3600);
    expect(text).toMatch(/# TYPE hub_jobs_queued gauge/);

    await hub.client.delete(`/automations/${automationId}`, { token: hub.adminToken });
    await waitFor(async () => gaugeValue((await hub.client.get<string>("/metrics")).body, "hub_jobs_queued", slug) === undefined, {
      timeoutMs: 20_000,
      intervalMs: 250,
    });
  });
});

describe("OpenAPI", () => {
  it("when the document is read, then the stats route and the waiting fields are described", async () => {
    const { body: document } = await hub.client.get("/openapi.json");
    expect(document.paths["/automations/{automation_id}/stats"].get).toBeDefined();
    const text = JSON.stringify(document);
    expect(text).toContain("next_in_line (a slot is free for it");
    expect(text).toContain("Queued jobs whose available_at is still ahead");
  });
});
