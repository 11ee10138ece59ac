/**
 * Approvals (CONTRACT §6.17): a job that needs one waits, queued, until an admin or one of its
 * automation's approvers — never its creator — approves it (then it runs) or rejects it (then it
 * is cancelled). The answers' order is 404, 403, 422, 409. The API and a dispatcher run in-process
 * on a real PostgreSQL and Redis.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { TestUser } from "./harness";
import { eventsOf } from "./automation-fixtures";
import { claim, createAutomationWithWorker, createJob, eventTypesOf, readJob, useHubWithDispatcher, waitFor } from "./job-fixtures";

const UNKNOWN_JOB = "00000000-0000-4000-8000-000000000000";

const hub = useHubWithDispatcher();
let approver: TestUser;
let bystander: TestUser;
let creator: TestUser;

beforeAll(async () => {
  approver = await hub.createUser("employee");
  bystander = await hub.createUser("employee");
  creator = await hub.createUser("employee");
});

const approve = (jobId: string, token: string, body: unknown = {}) => hub.client.post(`/jobs/${jobId}/approve`, body, { token });
const reject = (jobId: string, token: string, body: unknown = { comment: "not now" }) => hub.client.post(`/jobs/${jobId}/reject`, body, { token });

/** An automation with a worker whose jobs need an approval, `approver` among its approvers. */
const approvalAutomation = (settings: Record<string, unknown> = {}) =>
  createAutomationWithWorker(hub, { requires_approval: true, approver_ids: [approver.id], ...settings });

describe("a job that needs an approval", () => {
  it("when it is created, then it is queued with a pending approval and awaiting_approval, job.approval_requested follows job.created, and no claim hands it out", async () => {
    const subject = await approvalAutomation({ approval_timeout_seconds: 3600 });
    const before = Date.now();

    const id = await createJob(hub, subject.automationId, creator.token);

    const job = await readJob(hub, id);
    expect(job).toMatchObject({ status: "queued", waiting_reason: "awaiting_approval", queue_position: null });
    expect(job.approval).toEqual({
      status: "pending",
      requested_at: job.created_at,
      expires_at: expect.any(String),
      decided_by: null,
      decided_at: null,
      comment: null,
    });
    expect(Date.parse(job.approval.expires_at) - Date.parse(job.created_at)).toBe(3_600_000);
    expect(Date.parse(job.created_at)).toBeGreaterThanOrEqual(before - 1000);
    const events = await eventsOf(hub, id);
    expect(events.map((event) => [event.eventType, event.actorId])).toEqual([
      ["job.created", creator.id],
      ["job.approval_requested", creator.id],
    ]);
    expect(events[1]!.payload).toEqual({ automation_id: subject.automationId, expires_at: job.approval.expires_at });
    expect(events[0]!.createdAt.getTime()).toBe(events[1]!.createdAt.getTime());
    expect((await claim(hub, subject.workerKey, 1)).status).toBe(204);
  });

  it("when a job of a plain automation asks for an approval itself, then it waits; requires_approval false never lifts the automation's", async () => {
    const plain = await createAutomationWithWorker(hub);
    const strict = await approvalAutomation();

    const asked = await hub.client.post("/jobs", { automation_id: plain.automationId, requires_approval: true }, { token: creator.token });
    const lifted = await hub.client.post("/jobs", { automation_id: strict.automationId, requires_approval: false }, { token: creator.token });
    const ordinary = await createJob(hub, plain.automationId, creator.token);

    expect((await readJob(hub, asked.body.id)).approval).toMatchObject({ status: "pending", expires_at: null });
    expect((await readJob(hub, lifted.body.id)).approval).toMatchObject({ status: "pending" });
    expect((await readJob(hub, ordinary)).approval).toBeNull();
    expect(await eventTypesOf(hub, ordinary)).toEqual(["job.created"]);
  });

  it("when an approver approves, then 200 approved with who, when and the comment, job.approved by the approver, and a waiting worker gets it at once", async () => {
    const subject = await approvalAutomation();
    const id = await createJob(hub, subject.automationId, creator.token);
    const waiting = claim(hub, subject.workerKey, 10);

    const result = await approve(id, approver.token, { comment: "amounts checked" });

    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ id, approval: { status: "approved", decided_by: approver.id, comment: "amounts checked" } });
    const decidedAt = Date.parse(result.body.approval.decided_at);
    expect(Date.parse(result.body.available_at)).toBeGreaterThanOrEqual(decidedAt - 5);
    expect((await waiting).body).toMatchObject({ id, status: "running" });
    const approved = (await eventsOf(hub, id)).find((event) => event.eventType === "job.approved")!;
    expect([approved.actorId, approved.payload]).toEqual([approver.id, { automation_id: subject.automationId, comment: "amounts checked" }]);
  });

  it("when an admin who did not create it approves without a comment, then 200 and job.approved carries comment null", async () => {
    const subject = await approvalAutomation();
    const id = await createJob(hub, subject.automationId, creator.token);

    const result = await approve(id, hub.adminToken);

    expect(result.status).toBe(200);
    expect(result.body.approval).toMatchObject({ status: "approved", comment: null });
    expect((await eventsOf(hub, id)).find((event) => event.eventType === "job.approved")!.payload).toEqual({
      automation_id: subject.automationId,
      comment: null,
    });
  });

  it("when an approver rejects with a comment, then the job is cancelled (reason rejected), job.rejected by the approver, and it never runs", async () => {
    const subject = await approvalAutomation();
    const id = await createJob(hub, subject.automationId, creator.token);

    const result = await reject(id, approver.token, { comment: "wrong month" });

    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ status: "cancelled", approval: { status: "rejected", decided_by: approver.id, comment: "wrong month" } });
    const events = await eventsOf(hub, id);
    expect(events.slice(2).map((event) => [event.eventType, event.actorId, event.payload])).toEqual([
      ["job.rejected", approver.id, { automation_id: subject.automationId, comment: "wrong month" }],
      ["job.cancelled", approver.id, { automation_id: subject.automationId, reason: "rejected" }],
    ]);
    expect((await claim(hub, subject.workerKey, 1)).status).toBe(204);
  });
});

describe("who may decide, in the contract's order", () => {
  it("when the job's creator decides, then 403 with the contract's detail, even an admin, even an approver", async () => {
    const subject = await approvalAutomation({ approver_ids: [approver.id, creator.id] });
    const own = await createJob(hub, subject.automationId, creator.token);
    const admins = await createJob(hub, subject.automationId, hub.adminToken);

    for (const [id, token] of [
      [own, creator.token],
      [admins, hub.adminToken],
    ] as const) {
      const refused = await approve(id, token);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ detail: "A job's creator cannot decide its approval" });
      expect((await reject(id, token)).status).toBe(403);
    }
    expect((await readJob(hub, own)).approval.status).toBe("pending");
  });

  it("when an employee who is not an approver decides, then 403; an unknown job is 404 before anything else", async () => {
    const subject = await approvalAutomation();
    const id = await createJob(hub, subject.automationId, creator.token);

    expect((await approve(id, bystander.token)).status).toBe(403);
    expect((await approve(UNKNOWN_JOB, approver.token, { comment: 5 })).status).toBe(404);
    expect((await reject(UNKNOWN_JOB, approver.token, {})).status).toBe(404);
  });

  it("when the creator sends a bad body, then 403 comes before 422; an approver's bad body is 422 before the 409 of a decided job", async () => {
    const subject = await approvalAutomation();
    const id = await createJob(hub, subject.automationId, creator.token);
    expect((await reject(id, creator.token, {})).status).toBe(403);

    const missing = await reject(id, approver.token, {});
    const long = await approve(id, approver.token, { comment: "x".repeat(1001) });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(["body", "comment"]);
    expect(long.status).toBe(422);
    expect((await approve(id, approver.token)).status).toBe(200);
    expect((await reject(id, approver.token, {})).status).toBe(422);
    const again = await reject(id, approver.token);
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/approved/);
  });

  it("when a job needs no approval, or its approval was withdrawn by a cancel, then deciding it is 409", async () => {
    const plain = await createAutomationWithWorker(hub);
    const subject = await approvalAutomation();
    const ordinary = await createJob(hub, plain.automationId, creator.token);
    const cancelledId = await createJob(hub, subject.automationId, creator.token);

    const cancelled = await hub.client.post(`/jobs/${cancelledId}/cancel`, {}, { token: creator.token });

    expect(cancelled.body).toMatchObject({ status: "cancelled", approval: { status: "withdrawn", decided_by: null, decided_at: null } });
    expect((await approve(ordinary, hub.adminToken)).status).toBe(409);
    expect((await approve(cancelledId, approver.token)).status).toBe(409);
    const reasons = (await eventsOf(hub, cancelledId)).filter((event) => event.eventType === "job.cancelled").map((event) => event.payload);
    expect(reasons).toEqual([{ automation_id: subject.automationId, reason: "cancelled_by_user" }]);
  });

  it("when an approver decides with an api key, then it counts as the approver", async () => {
    const subject = await approvalAutomation();
    const id = await createJob(hub, subject.automationId, creator.token);
    const key = await hub.client.post<{ key: string }>("/identity/api-keys", { name: "approvals bot" }, { token: approver.token });

    const result = await approve(id, key.body.key);

    expect(result.status).toBe(200);
    expect(result.body.approval.decided_by).toBe(approver.id);
  });
});

describe("GET /approvals and the approval filter", () => {
  it("when approvals wait, then each caller lists, oldest first, exactly those it may decide and never its own", async () => {
    const subject = await approvalAutomation();
    const first = await createJob(hub, subject.automationId, creator.token);
    const second = await createJob(hub, subject.automationId, hub.adminToken);
    const third = await createJob(hub, subject.automationId, approver.token);

    const ids = async (token: string) =>
      ((await hub.client.get<Array<{ id: string; automation_id: string }>>("/approvals?limit=1000", { token })).body ?? [])
        .filter((job) => job.automation_id === subject.automationId)
        .map((job) => job.id);

    expect(await ids(approver.token)).toEqual([first, second]);
    expect(await ids(hub.adminToken)).toEqual([first, third]);
    expect(await ids(creator.token)).toEqual([]);
    expect(await ids(bystander.token)).toEqual([]);
    const listed = await hub.client.get<Array<Record<string, unknown>>>("/approvals?limit=1000", { token: approver.token });
    expect(listed.body.find((job) => job.id === first)).toMatchObject({ status: "queued", created_by_email: creator.email, approval: { status: "pending" } });
  });

  it("when one approval is decided, then it leaves the list, and the list pages with a Link header", async () => {
    const subject = await approvalAutomation();
    const jobIds: string[] = [];
    for (let index = 0; index < 3; index += 1) jobIds.push(await createJob(hub, subject.automationId, creator.token));
    await approve(jobIds[0]!, approver.token);

    const page = await hub.client.get<Array<{ id: string }>>("/approvals?limit=1", { token: approver.token });
    const all = await hub.client.get<Array<{ id: string }>>("/approvals?limit=1000", { token: approver.token });

    expect(page.status).toBe(200);
    expect(page.body).toHaveLength(1);
    expect(page.headers.get("link")).toMatch(/rel="next"/);
    expect(all.body.map((job) => job.id)).not.toContain(jobIds[0]);
    expect(all.body.map((job) => job.id)).toEqual(expect.arrayContaining([jobIds[1], jobIds[2]]));
  });

  it("when GET /jobs filters by approval, then only jobs in those approval statuses come back; an unknown status is 422", async () => {
    const subject = await approvalAutomation();
    const pending = await createJob(hub, subject.automationId, creator.token);
    const approved = await createJob(hub, subject.automationId, creator.token);
    const rejected = await createJob(hub, subject.automationId, creator.token);
    await approve(approved, approver.token);
    await reject(rejected, approver.token);

    const list = async (filter: string) =>
      (await hub.client.get<Array<{ id: string }>>(`/jobs?automation_id=${subject.automationId}&approval=${filter}`, { token: hub.adminToken })).body.map(
        (job) => job.id,
      );

    expect(await list("pending")).toEqual([pending]);
    expect(await list("approved,rejected")).toEqual([rejected, approved]);
    const wrong = await hub.client.get(`/jobs?approval=maybe`, { token: hub.adminToken });
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail[0].loc).toEqual(["query", "approval"]);
  });

  it("when jobs await approval, then stats count them under awaiting_approval and not as queued, and the gauge says so", async () => {
    const subject = await approvalAutomation();
    await createJob(hub, subject.automationId, creator.token);
    await createJob(hub, subject.automationId, creator.token);

    const stats = await hub.client.get(`/automations/${subject.automationId}/stats`, { token: hub.adminToken });

    expect(stats.body).toMatchObject({ queued: 0, awaiting_approval: 2, oldest_queued_at: null });
    const { body: automation } = await hub.client.get(`/automations/${subject.automationId}`, { token: hub.adminToken });
    const series = `hub_jobs_awaiting_approval{automation="${String(automation.slug)}",`;
    const queued = `hub_jobs_queued{automation="${String(automation.slug)}",`;
    // The gauges are cached for 2 s: the next scrapes show them.
    await waitFor(
      async () => {
        const lines = (await hub.client.get<string>("/metrics")).body.split("\n");
        return lines.some((line) => line.startsWith(series) && line.endsWith(" 2")) && lines.some((line) => line.startsWith(queued) && line.endsWith(" 0"));
      },
      { timeoutMs: 10_000, intervalMs: 250 },
    );
  });
});
