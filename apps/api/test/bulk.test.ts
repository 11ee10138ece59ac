/**
 * Bulk actions (CONTRACT §6.5): POST /jobs/bulk-cancel and /jobs/bulk-retry through the API, with
 * a dispatcher running in-process so freed slots and new retries reach workers.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createAutomation, createSector, eventsOf } from "./automation-fixtures";
import type { TestUser } from "./harness";
import { claim, createAutomationWithWorker, createJob, eventTypesOf, readJob, useHubWithDispatcher, type AutomationWithWorker } from "./job-fixtures";

const hub = useHubWithDispatcher();
let employee: TestUser;

beforeAll(async () => {
  employee = await hub.createUser("employee");
});

const asAdmin = () => ({ token: hub.adminToken });

/** Creates a job and claims it (the dispatcher offers it); returns its id. */
async function claimedJob(subject: AutomationWithWorker): Promise<string> {
  const id = await createJob(hub, subject.automationId);
  const claimed = await claim(hub, subject.workerKey, 10);
  if (claimed.status !== 200 || claimed.body.id !== id) throw new Error(`could not claim ${id}: ${claimed.status}`);
  return id;
}

async function failedJob(subject: AutomationWithWorker): Promise<string> {
  const id = await claimedJob(subject);
  const failed = await hub.client.post(`/jobs/${id}/fail`, { error: "broken", retryable: false }, { workerKey: subject.workerKey });
  if (failed.status !== 200) throw new Error(`could not fail ${id}: ${failed.status}`);
  return id;
}

async function statusesOf(ids: string[]): Promise<string[]> {
  return Promise.all(ids.map(async (id) => (await readJob(hub, id)).status as string));
}

describe("POST /jobs/bulk-cancel", () => {
  it("when run as a dry run, then it reports the matching jobs and changes nothing", async () => {
    const subject = await createAutomationWithWorker(hub);
    const ids = [await createJob(hub, subject.automationId), await createJob(hub, subject.automationId)];

    const result = await hub.client.post("/jobs/bulk-cancel", { automation_id: subject.automationId, dry_run: true }, asAdmin());

    expect(result.status).toBe(200);
    expect(result.body).toEqual({ matched: 2, affected: 0, job_ids: ids });
    expect(await statusesOf(ids)).toEqual(["queued", "queued"]);
    for (const id of ids) expect(await eventTypesOf(hub, id)).not.toContain("job.cancelled");
  });

  it("when an automation's queued and running jobs are cancelled, then each gets one job.cancelled event and the freed slot serves a new job", async () => {
    const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 1 });
    const running = await claimedJob(subject);
    const queued = [await createJob(hub, subject.automationId), await createJob(hub, subject.automationId)];
    const other = await createAutomationWithWorker(hub);
    const untouched = await createJob(hub, other.automationId);

    const result = await hub.client.post("/jobs/bulk-cancel", { automation_id: subject.automationId }, asAdmin());

    expect(result.status).toBe(200);
    expect(result.body.matched).toBe(3);
    expect(result.body.affected).toBe(3);
    expect(result.body.job_ids).toEqual([running, ...queued]);
    expect(await statusesOf([running, ...queued, untouched])).toEqual(["cancelled", "cancelled", "cancelled", "queued"]);
    for (const id of [running, ...queued]) {
      const cancelled = (await eventsOf(hub, id)).filter((event) => event.eventType === "job.cancelled");
      expect(cancelled).toHaveLength(1);
      expect(cancelled[0]!.payload).toMatchObject({ automation_id: subject.automationId, reason: "cancelled_by_user" });
    }
    // The running job's worker is told on its next call; the slot it held is free again.
    const late = await hub.client.post(`/jobs/${running}/complete`, { result: {} }, { workerKey: subject.workerKey });
    expect(late.status).toBe(409);
    const next = await createJob(hub, subject.automationId);
    const claimed = await claim(hub, subject.workerKey, 10);
    expect(claimed.status).toBe(200);
    expect(claimed.body.id).toBe(next);
  });

  it("when a status filter is given, then only jobs in those statuses are cancelled", async () => {
    const subject = await createAutomationWithWorker(hub);
    const running = await claimedJob(subject);
    const queued = await createJob(hub, subject.automationId);

    const result = await hub.client.post("/jobs/bulk-cancel", { automation_id: subject.automationId, status: ["queued"] }, asAdmin());

    expect(result.body).toEqual({ matched: 1, affected: 1, job_ids: [queued] });
    expect(await statusesOf([running, queued])).toEqual(["running", "cancelled"]);
  });

  it("when 10,000 jobs are cancelled at once, then every one ends cancelled with exactly one job.cancelled event", async () => {
    const sector = await createSector(hub);
    const automationId = await createAutomation(hub, { sector_id: sector.id });
    await hub.api.ctx.database.pool.query("insert into jobs (automation_id, context) select $1, '{}'::jsonb from generate_series(1, 10000)", [automationId]);

    const result = await hub.client.post("/jobs/bulk-cancel", { automation_id: automationId, limit: 10_000 }, asAdmin());

    expect(result.status).toBe(200);
    expect(result.body.matched).toBe(10_000);
    expect(result.body.affected).toBe(10_000);
    expect(result.body.job_ids).toHaveLength(1000);
    const { rows } = await hub.api.ctx.database.pool.query<{ jobs: number; cancelled: number; events: number; distinct_jobs: number }>(
      `select
         (select count(*)::int from jobs where automation_id = $1) as jobs,
         (select count(*)::int from jobs where automation_id = $1 and status = 'cancelled') as cancelled,
         count(*)::int as events,
         count(distinct e.aggregate_id)::int as distinct_jobs
       from events e join jobs j on j.id = e.aggregate_id
       where j.automation_id = $1 and e.event_type = 'job.cancelled'`,
      [automationId],
    );
    expect(rows[0]).toEqual({ jobs: 10_000, cancelled: 10_000, events: 10_000, distinct_jobs: 10_000 });
  }, 120_000);
});

describe("POST /jobs/bulk-retry", () => {
  it("when failed jobs are retried, then each gets a new queued job linked by retry_of, with its job.created event", async () => {
    const subject = await createAutomationWithWorker(hub);
    const failed = [await failedJob(subject), await failedJob(subject)];
    const stillQueued = await createJob(hub, subject.automationId);

    const result = await hub.client.post("/jobs/bulk-retry", { automation_id: subject.automationId, status: ["failed"] }, asAdmin());

    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ matched: 2, affected: 2 });
    expect(result.body.job_ids).toEqual(failed);
    const listed = await hub.client.get(`/jobs?automation_id=${subject.automationId}&status=queued`, asAdmin());
    const retries = listed.body.filter((job: { id: string }) => job.id !== stillQueued);
    expect(retries.map((job: { retry_of: string }) => job.retry_of).sort()).toEqual([...failed].sort());
    for (const retry of retries) {
      const created = (await eventsOf(hub, retry.id)).filter((event) => event.eventType === "job.created");
      expect(created).toHaveLength(1);
      expect(created[0]!.payload).toMatchObject({ automation_id: subject.automationId, retry_of: retry.retry_of });
    }
    // The retries are offered to the worker like any new job.
    const claimed = await claim(hub, subject.workerKey, 10);
    expect(claimed.status).toBe(200);
    expect([stillQueued, ...retries.map((job: { id: string }) => job.id)]).toContain(claimed.body.id);
  });

  it("when the automation is deactivated, then its jobs match but none is retried", async () => {
    const subject = await createAutomationWithWorker(hub);
    const failed = await failedJob(subject);
    const deactivated = await hub.client.delete(`/automations/${subject.automationId}`, asAdmin());
    expect(deactivated.status).toBe(204);

    const result = await hub.client.post("/jobs/bulk-retry", { automation_id: subject.automationId }, asAdmin());

    expect(result.body).toEqual({ matched: 1, affected: 0, job_ids: [] });
    const { rows } = await hub.api.ctx.database.pool.query("select id from jobs where retry_of = $1", [failed]);
    expect(rows).toEqual([]);
  });
});

describe("bulk action requests", () => {
  it("when an employee asks, then 403 and nothing changes", async () => {
    const subject = await createAutomationWithWorker(hub);
    const queued = await createJob(hub, subject.automationId);

    for (const path of ["/jobs/bulk-cancel", "/jobs/bulk-retry"]) {
      const result = await hub.client.post(path, { automation_id: subject.automationId }, { token: employee.token });
      expect(result.status).toBe(403);
    }
    expect(await statusesOf([queued])).toEqual(["queued"]);
  });

  it("when no filter is given, then 422 on the body", async () => {
    for (const path of ["/jobs/bulk-cancel", "/jobs/bulk-retry"]) {
      const result = await hub.client.post(path, { dry_run: true, limit: 10 }, asAdmin());
      expect(result.status).toBe(422);
      expect(result.body.detail).toEqual([{ loc: ["body"], msg: expect.any(String), type: "value_error" }]);
    }
  });

  it("when a status is outside the action's statuses or limit is out of range, then 422 at that place", async () => {
    const cancel = await hub.client.post("/jobs/bulk-cancel", { status: ["queued", "failed"] }, asAdmin());
    expect(cancel.status).toBe(422);
    expect(cancel.body.detail).toEqual([expect.objectContaining({ loc: ["body", "status", 1], type: "enum" })]);

    const retry = await hub.client.post("/jobs/bulk-retry", { status: ["running"], limit: 10_001 }, asAdmin());
    expect(retry.status).toBe(422);
    expect(retry.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ["body", "status", 0],
      ["body", "limit"],
    ]);
  });
});
