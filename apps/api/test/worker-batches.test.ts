import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventsOf } from "./automation-fixtures";
import {
  claim,
  createAutomationWithWorker,
  createJob,
  queueJobs,
  readJob,
  sleep,
  startHubWithDispatcher,
  type AutomationWithWorker,
  type DispatchingHub,
} from "./job-fixtures";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN_JOB = "00000000-0000-4000-8000-000000000000";

describe("worker batch endpoints", () => {
  let hub: DispatchingHub;
  beforeAll(async () => {
    hub = await startHubWithDispatcher();
  });
  afterAll(async () => {
    await hub?.stop();
  });

  const claimBatch = (subject: AutomationWithWorker, body: Record<string, unknown>) =>
    hub.client.post<{ jobs: Array<Record<string, unknown>> }>("/jobs/claim-batch", body, { workerKey: subject.workerKey });

  async function runningCount(automationId: string): Promise<number> {
    const running = await hub.client.get<unknown[]>(`/jobs?automation_id=${automationId}&status=running`, { token: hub.adminToken });
    return running.body.length;
  }

  /** Claim statements sent to PostgreSQL so far, by outcome. */
  async function claimStatements(): Promise<Record<string, number>> {
    const counted = await hub.api.ctx.metrics.jobs.claimStatements.get();
    return Object.fromEntries(counted.values.map((value) => [String(value.labels.outcome), value.value]));
  }

  describe("POST /jobs/claim-batch", () => {
    it("when jobs are queued, then up to max_jobs start in creation order, each under a lease with job.started", async () => {
      const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 10 });
      const ids = await queueJobs(hub, subject.automationId, 5);

      const result = await claimBatch(subject, { max_jobs: 3 });

      expect(result.status).toBe(200);
      expect(result.body.jobs.map((job) => job.id)).toEqual(ids.slice(0, 3));
      for (const job of result.body.jobs) {
        expect(job).toMatchObject({ status: "running", attempts: 1, automation_id: subject.automationId });
        expect(job.lease_expires_at).toMatch(ISO);
        expect((await eventsOf(hub, job.id as string)).map((event) => event.eventType)).toEqual(["job.created", "job.started"]);
      }
      expect(await runningCount(subject.automationId)).toBe(3);
    });

    it("when max_jobs exceeds the free slots, then only max_concurrent_jobs minus the running jobs start", async () => {
      const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 3 });
      await queueJobs(hub, subject.automationId, 6);
      expect((await claim(hub, subject.workerKey, 0)).status).toBe(200);

      const result = await claimBatch(subject, { max_jobs: 10 });

      expect(result.body.jobs).toHaveLength(2);
      expect(await runningCount(subject.automationId)).toBe(3);
      expect((await claimBatch(subject, { max_jobs: 10 })).status).toBe(204);
    });

    it("when several claim-batch callers race, then the automation never runs more than max_concurrent_jobs jobs", async () => {
      const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 5 });
      const ids = await queueJobs(hub, subject.automationId, 20);

      const results = await Promise.all(Array.from({ length: 8 }, () => claimBatch(subject, { max_jobs: 3 })));

      const started = results.flatMap((result) => (result.status === 200 ? result.body.jobs.map((job) => job.id as string) : []));
      expect(started).toHaveLength(5);
      expect(new Set(started).size).toBe(5);
      expect([...started].sort()).toEqual(ids.slice(0, 5).sort());
      expect(await runningCount(subject.automationId)).toBe(5);
    });

    it("when jobs have priorities, then the highest priority comes first, then creation order", async () => {
      const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 10 });
      const [low, urgentA, normal, urgentB] = await queueJobs(hub, subject.automationId, 4);
      // The API takes `priority` in a later issue; the column and the claim order exist now.
      await hub.api.ctx.database.db.execute(sql`update jobs set priority = 5 where id in (${urgentA}, ${urgentB})`);
      await hub.api.ctx.database.db.execute(sql`update jobs set priority = -1 where id = ${low}`);

      const result = await claimBatch(subject, { max_jobs: 4 });

      expect(result.body.jobs.map((job) => job.id)).toEqual([urgentA, urgentB, normal, low]);
    });

    it("when a job is created while claim-batch long-polls, then the claim receives it", async () => {
      const subject = await createAutomationWithWorker(hub);
      const waiting = claimBatch(subject, { max_jobs: 5, wait_seconds: 10 });
      await sleep(200);
      const id = await createJob(hub, subject.automationId);

      const result = await waiting;

      expect(result.status).toBe(200);
      expect(result.body.jobs.map((job) => job.id)).toEqual([id]);
    });

    it("when nothing is queued, then 204 without a claim statement sent to PostgreSQL", async () => {
      const subject = await createAutomationWithWorker(hub);
      const before = await claimStatements();

      expect((await claimBatch(subject, { max_jobs: 5, wait_seconds: 1 })).status).toBe(204);
      expect((await claim(hub, subject.workerKey, 0)).status).toBe(204);

      expect(await claimStatements()).toEqual(before);
    });

    it("when the limit is full and jobs keep arriving, then a waiting claim does not try again for each new job", async () => {
      const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 1 });
      const [first] = await queueJobs(hub, subject.automationId, 1);
      expect((await claim(hub, subject.workerKey, 0)).body.id).toBe(first);
      const blockedBefore = (await claimStatements()).blocked ?? 0;

      const waiting = claim(hub, subject.workerKey, 3);
      await sleep(200);
      for (let index = 0; index < 12; index += 1) await createJob(hub, subject.automationId);
      expect((await waiting).status).toBe(204);

      // The first look finds the limit full, then only the one-second re-checks look again (at
      // most ~3, more on a slow machine), not one claim per offered job (12).
      expect(((await claimStatements()).blocked ?? 0) - blockedBefore).toBeLessThan(8);
    });

    it("when max_jobs or wait_seconds is out of range, then 422 on that field", async () => {
      const subject = await createAutomationWithWorker(hub);
      for (const [body, field] of [
        [{ max_jobs: 0 }, "max_jobs"],
        [{ max_jobs: 101 }, "max_jobs"],
        [{ wait_seconds: 31 }, "wait_seconds"],
      ] as const) {
        const result = await hub.client.post<{ detail: Array<{ loc: unknown[] }> }>("/jobs/claim-batch", body, { workerKey: subject.workerKey });
        expect(result.status).toBe(422);
        expect(result.body.detail[0]!.loc).toEqual(["body", field]);
      }
    });
  });

  describe("POST /jobs/complete-batch", () => {
    it("when items mix held, finished, foreign and unknown jobs, then each gets its own verdict in input order", async () => {
      const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 5 });
      const other = await createAutomationWithWorker(hub);
      await queueJobs(hub, subject.automationId, 3);
      const [foreign] = await queueJobs(hub, other.automationId, 1);
      const [a, b, c] = (await claimBatch(subject, { max_jobs: 3 })).body.jobs.map((job) => job.id as string);
      await hub.client.post(`/jobs/${c}/complete`, { result: { first: true } }, { workerKey: subject.workerKey });

      const result = await hub.client.post<{ results: unknown[] }>(
        "/jobs/complete-batch",
        {
          items: [
            { id: b, result: { n: 2 } },
            { id: UNKNOWN_JOB, result: {} },
            { id: c, result: { second: true } },
            { id: foreign, result: {} },
            { id: a, result: { n: 1 }, attempt: 1 },
            { id: b, result: { again: true } },
          ],
        },
        { workerKey: subject.workerKey },
      );

      expect(result.status).toBe(200);
      expect(result.body.results).toEqual([
        { id: b, status: "completed" },
        { id: UNKNOWN_JOB, status: "not_found" },
        { id: c, status: "conflict" },
        { id: foreign, status: "not_found" },
        { id: a, status: "completed" },
        { id: b, status: "conflict" },
      ]);
      expect(await readJob(hub, b!)).toMatchObject({ status: "completed", result: { n: 2 } });
      expect(await readJob(hub, a!)).toMatchObject({ status: "completed", result: { n: 1 } });
      expect(await readJob(hub, c!)).toMatchObject({ status: "completed", result: { first: true } });
      expect(await readJob(hub, foreign!)).toMatchObject({ status: "queued" });
      expect((await eventsOf(hub, b!)).filter((event) => event.eventType === "job.completed")).toHaveLength(1);
    });

    it("when an item names another attempt, then it is a conflict and the job keeps running", async () => {
      const subject = await createAutomationWithWorker(hub);
      await queueJobs(hub, subject.automationId, 1);
      const [job] = (await claimBatch(subject, { max_jobs: 1 })).body.jobs;

      const result = await hub.client.post<{ results: unknown[] }>(
        "/jobs/complete-batch",
        { items: [{ id: job!.id, result: {}, attempt: 2 }] },
        { workerKey: subject.workerKey },
      );

      expect(result.body.results).toEqual([{ id: job!.id, status: "conflict" }]);
      expect(await readJob(hub, job!.id as string)).toMatchObject({ status: "running" });
    });

    it("when completing frees slots, then waiting claims get the next jobs", async () => {
      const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 2 });
      const ids = await queueJobs(hub, subject.automationId, 4);
      const held = (await claimBatch(subject, { max_jobs: 2 })).body.jobs.map((job) => job.id as string);
      const waiting = [claim(hub, subject.workerKey, 10), claim(hub, subject.workerKey, 10)];
      await sleep(200);

      await hub.client.post("/jobs/complete-batch", { items: held.map((id) => ({ id, result: {} })) }, { workerKey: subject.workerKey });

      const next = await Promise.all(waiting);
      expect(next.map((result) => result.body.id).sort()).toEqual(ids.slice(2).sort());
    });

    it("when items are empty, too many, or a result is not an object, then 422 and nothing changes", async () => {
      const subject = await createAutomationWithWorker(hub);
      await queueJobs(hub, subject.automationId, 1);
      const [job] = (await claimBatch(subject, { max_jobs: 1 })).body.jobs;
      const tooMany = Array.from({ length: 101 }, () => ({ id: job!.id, result: {} }));

      for (const items of [[], tooMany, [{ id: job!.id, result: [1] }]]) {
        const result = await hub.client.post("/jobs/complete-batch", { items }, { workerKey: subject.workerKey });
        expect(result.status).toBe(422);
      }
      expect(await readJob(hub, job!.id as string)).toMatchObject({ status: "running" });
    });
  });

  describe("POST /jobs/heartbeat-batch", () => {
    it("when ids mix held, finished and unknown jobs, then held leases are extended and each id gets its verdict in input order", async () => {
      const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 3 });
      await queueJobs(hub, subject.automationId, 2);
      const [a, b] = (await claimBatch(subject, { max_jobs: 2 })).body.jobs;
      await hub.client.post(`/jobs/${b!.id}/complete`, { result: {} }, { workerKey: subject.workerKey });
      await sleep(20);

      const result = await hub.client.post<{ results: Array<{ id: string; status: string; lease_expires_at: string | null }> }>(
        "/jobs/heartbeat-batch",
        { ids: [b!.id, UNKNOWN_JOB, a!.id] },
        { workerKey: subject.workerKey },
      );

      expect(result.status).toBe(200);
      expect(result.body.results).toMatchObject([
        { id: b!.id, status: "conflict", lease_expires_at: null },
        { id: UNKNOWN_JOB, status: "not_found", lease_expires_at: null },
        { id: a!.id, status: "ok" },
      ]);
      const extended = result.body.results[2]!.lease_expires_at!;
      expect(extended).toMatch(ISO);
      expect(Date.parse(extended)).toBeGreaterThan(Date.parse(a!.lease_expires_at as string));
      expect((await readJob(hub, a!.id as string)).lease_expires_at).toBe(extended);
    });

    it("when ids is empty or holds a non-uuid, then 422", async () => {
      const subject = await createAutomationWithWorker(hub);
      for (const ids of [[], ["not-a-uuid"]]) {
        expect((await hub.client.post("/jobs/heartbeat-batch", { ids }, { workerKey: subject.workerKey })).status).toBe(422);
      }
    });
  });

  describe("the ready set", () => {
    it("when a job was claimed before its offer arrived, then the late offer is dropped; queued again, it is offered", async () => {
      const subject = await createAutomationWithWorker(hub);
      const { ready } = hub.api.ctx.dispatch;
      const job = { id: UNKNOWN_JOB, automationId: subject.automationId, seq: 1, priority: 0, availableAt: new Date() };

      await ready.markClaimed(subject.automationId, [job]);
      await ready.offer([job]);
      expect(await ready.candidates(subject.automationId, 10)).toEqual([]);

      await ready.offerAgain([job]);
      expect(await ready.candidates(subject.automationId, 10)).toEqual([{ id: job.id, seq: job.seq }]);
    });
  });
});
