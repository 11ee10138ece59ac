/**
 * Every way a job is made honours approvals (CONTRACT §6.17): a batch, a schedule's fire (and its
 * `overlap: "skip"`), a retry (single, bulk, with a context), and a job with dependencies, which
 * waits for both its dependencies and its approval. Deactivation withdraws pending approvals. The
 * API and a dispatcher run in-process on a real PostgreSQL and Redis.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { TestUser } from "./harness";
import { eventsOf } from "./automation-fixtures";
import { claim, createAutomationWithWorker, createJob, eventTypesOf, readJob, useHubWithDispatcher, waitFor } from "./job-fixtures";

// Schedules that fire every second (six-field cron), as test/schedules-firing.test.ts runs them.
const hub = useHubWithDispatcher({ HUB_SCHEDULES_ALLOW_SECONDS: "true" });
let approver: TestUser;
let creator: TestUser;

beforeAll(async () => {
  approver = await hub.createUser("employee");
  creator = await hub.createUser("employee");
});

const approve = (jobId: string) => hub.client.post(`/jobs/${jobId}/approve`, {}, { token: approver.token });
const approvalAutomation = () => createAutomationWithWorker(hub, { requires_approval: true, approver_ids: [approver.id] });

/** Runs the claimed job to its end with the worker's key. */
async function finish(workerKey: string, jobId: string, outcome: "complete" | "fail"): Promise<void> {
  const claimed = await claim(hub, workerKey, 5);
  expect(claimed.body.id).toBe(jobId);
  const body = outcome === "complete" ? { result: {} } : { error: "broken", retryable: false };
  expect((await hub.client.post(`/jobs/${jobId}/${outcome}`, body, { workerKey })).status).toBe(200);
}

describe("approvals on every way a job is made", () => {
  it("when a batch mixes an automation that requires approval, a job that asks for one and a plain job, then only the plain one is handed out", async () => {
    const strict = await approvalAutomation();
    const plain = await createAutomationWithWorker(hub);

    const created = await hub.client.post<{ ids: string[] }>(
      "/jobs/batch",
      { jobs: [{ automation_id: strict.automationId }, { automation_id: plain.automationId, requires_approval: true }, { automation_id: plain.automationId }] },
      { token: creator.token },
    );

    expect(created.status).toBe(201);
    const [strictJob, asking, ordinary] = created.body.ids;
    expect((await readJob(hub, strictJob!)).approval.status).toBe("pending");
    expect((await readJob(hub, asking!)).approval.status).toBe("pending");
    expect((await readJob(hub, ordinary!)).approval).toBeNull();
    expect(await eventTypesOf(hub, asking!)).toEqual(["job.created", "job.approval_requested"]);
    expect((await claim(hub, plain.workerKey, 5)).body.id).toBe(ordinary);
    expect((await claim(hub, plain.workerKey, 0)).status).toBe(204);
  });

  it("when a schedule of an automation requiring approval fires, then its job awaits approval and, with overlap skip, later fires are skipped until it is decided", async () => {
    const subject = await approvalAutomation();
    const schedule = await hub.client.post<{ id: string }>(
      `/automations/${subject.automationId}/schedules`,
      { cron: "* * * * * *", overlap: "skip" },
      { token: hub.adminToken },
    );
    expect(schedule.status, JSON.stringify(schedule.body)).toBe(201);

    await waitFor(async () => (await eventsOf(hub, schedule.body.id)).some((event) => event.eventType === "schedule.skipped"));
    await hub.client.put(`/schedules/${schedule.body.id}`, { cron: "* * * * * *", enabled: false }, { token: hub.adminToken });

    const listed = await hub.client.get<Array<{ id: string; approval: { status: string } | null }>>(`/jobs?schedule_id=${schedule.body.id}`, {
      token: hub.adminToken,
    });
    expect(listed.body).toHaveLength(1);
    expect(listed.body[0]!.approval?.status).toBe("pending");
    expect(await eventTypesOf(hub, listed.body[0]!.id)).toEqual(["job.created", "job.approval_requested"]);
    expect((await claim(hub, subject.workerKey, 1)).status).toBe(204);
  });

  it("when a failed job that needed an approval is retried, alone, in bulk or with a new context, then each retry awaits approval again", async () => {
    const subject = await approvalAutomation();
    const original = await createJob(hub, subject.automationId, creator.token);
    await approve(original);
    await finish(subject.workerKey, original, "fail");

    const single = await hub.client.post<{ id: string }>(`/jobs/${original}/retry`, {}, { token: creator.token });
    const withContext = await hub.client.post<{ id: string }>(`/jobs/${original}/retry`, { context: { note: "again" } }, { token: creator.token });
    const bulk = await hub.client.post("/jobs/bulk-retry", { automation_id: subject.automationId, status: ["failed"] }, { token: hub.adminToken });

    expect([single.status, withContext.status, bulk.status]).toEqual([201, 201, 200]);
    const retries = await hub.client.get<Array<{ id: string; retry_of: string | null; approval: { status: string } | null }>>(
      `/jobs?automation_id=${subject.automationId}&status=queued`,
      { token: hub.adminToken },
    );
    expect(retries.body).toHaveLength(3);
    expect(retries.body.every((job) => job.retry_of === original && job.approval?.status === "pending")).toBe(true);
    expect((await claim(hub, subject.workerKey, 1)).status).toBe(204);
  });

  it("when a job of a plain automation asked for an approval and failed, then its retry asks again", async () => {
    const plain = await createAutomationWithWorker(hub, { approver_ids: [approver.id] });
    const asked = await hub.client.post<{ id: string }>("/jobs", { automation_id: plain.automationId, requires_approval: true }, { token: creator.token });
    await approve(asked.body.id);
    await finish(plain.workerKey, asked.body.id, "fail");

    const retry = await hub.client.post<{ id: string }>(`/jobs/${asked.body.id}/retry`, {}, { token: creator.token });

    expect((await readJob(hub, retry.body.id)).approval.status).toBe("pending");
  });

  it("when a job awaiting approval also depends on another, then it waits for both: approved first it waits for the dependency, and runs once that completes", async () => {
    const subject = await approvalAutomation();
    const dependency = await createJob(hub, subject.automationId, creator.token);
    const dependent = (
      await hub.client.post<{ id: string }>("/jobs", { automation_id: subject.automationId, depends_on: [dependency] }, { token: creator.token })
    ).body.id;
    expect(await readJob(hub, dependent)).toMatchObject({ waiting_reason: "dependencies", approval: { status: "pending" } });

    await approve(dependent);
    expect(await readJob(hub, dependent)).toMatchObject({ status: "queued", waiting_reason: "dependencies", approval: { status: "approved" } });
    await approve(dependency);
    await finish(subject.workerKey, dependency, "complete");

    const claimed = await claim(hub, subject.workerKey, 5);
    expect(claimed.body).toMatchObject({ id: dependent, status: "running", approval: { status: "approved", decided_by: approver.id } });
  });

  it("when a job's dependency completes while its approval is pending, then it stays held awaiting approval until approved", async () => {
    const subject = await approvalAutomation();
    const plain = await createAutomationWithWorker(hub);
    const dependency = await createJob(hub, plain.automationId, creator.token);
    const dependent = (
      await hub.client.post<{ id: string }>("/jobs", { automation_id: subject.automationId, depends_on: [dependency] }, { token: creator.token })
    ).body.id;

    await finish(plain.workerKey, dependency, "complete");

    expect(await readJob(hub, dependent)).toMatchObject({ status: "queued", waiting_reason: "awaiting_approval", pending_dependencies: 0 });
    expect((await claim(hub, subject.workerKey, 1)).status).toBe(204);
    const stats = await hub.client.get(`/automations/${subject.automationId}/stats`, { token: hub.adminToken });
    expect(stats.body).toMatchObject({ blocked: 0, awaiting_approval: 1, queued: 0 });
    await approve(dependent);
    expect((await claim(hub, subject.workerKey, 5)).body.id).toBe(dependent);
  });

  it("when a job's dependency fails while its approval is pending, then it is cancelled and its approval withdrawn", async () => {
    const subject = await approvalAutomation();
    const plain = await createAutomationWithWorker(hub);
    const dependency = await createJob(hub, plain.automationId, creator.token);
    const dependent = (
      await hub.client.post<{ id: string }>("/jobs", { automation_id: subject.automationId, depends_on: [dependency] }, { token: creator.token })
    ).body.id;

    await finish(plain.workerKey, dependency, "fail");

    expect(await readJob(hub, dependent)).toMatchObject({ status: "cancelled", approval: { status: "withdrawn" } });
    expect((await approve(dependent)).status).toBe(409);
  });

  it("when an automation with pending approvals is deactivated, then its waiting jobs are cancelled and their approvals withdrawn", async () => {
    const subject = await approvalAutomation();
    const id = await createJob(hub, subject.automationId, creator.token);

    expect((await hub.client.delete(`/automations/${subject.automationId}`, { token: hub.adminToken })).status).toBe(204);

    expect(await readJob(hub, id)).toMatchObject({ status: "cancelled", approval: { status: "withdrawn" } });
    const listed = await hub.client.get<Array<{ id: string }>>("/approvals?limit=1000", { token: approver.token });
    expect(listed.body.map((job) => job.id)).not.toContain(id);
  });
});
