/**
 * Job dependencies through the API (CONTRACT §6.16): depends_on on POST /jobs and batches, the
 * exact 422s and 409, the record, the release within a second of the finish that completes the set,
 * cascades, the `dependencies` a claim hands out, GET /jobs?depends_on=, the retry with dependents,
 * stats and the gauge.
 */
import { describe, expect, it } from "vitest";
import {
  claim,
  createAutomationWithWorker,
  createJob,
  eventTypesOf,
  lastEventOf,
  readJob,
  useHubWithDispatcher,
  waitFor,
  type AutomationWithWorker,
} from "./job-fixtures";
import { eventsOf } from "./automation-fixtures";

const hub = useHubWithDispatcher();
const asAdmin = () => ({ token: hub.adminToken });

async function post(body: Record<string, unknown>) {
  return hub.client.post<any>("/jobs", body, asAdmin());
}

async function batch(jobs: Array<Record<string, unknown>>) {
  return hub.client.post<any>("/jobs/batch", { jobs }, asAdmin());
}

/** Claims the automation's next job and completes it with `result`; returns its id. */
async function runNext(worker: AutomationWithWorker, result: Record<string, unknown> = {}, waitSeconds = 5): Promise<any> {
  const claimed = await claim(hub, worker.workerKey, waitSeconds);
  if (claimed.status !== 200) throw new Error(`nothing claimed: ${claimed.status}`);
  const done = await hub.client.post(`/jobs/${claimed.body.id}/complete`, { result }, { workerKey: worker.workerKey });
  if (done.status !== 200) throw new Error(`not completed: ${done.status}`);
  return claimed.body;
}

async function failNext(worker: AutomationWithWorker, error = "broken"): Promise<string> {
  const claimed = await claim(hub, worker.workerKey, 5);
  if (claimed.status !== 200) throw new Error(`nothing claimed: ${claimed.status}`);
  const failed = await hub.client.post(`/jobs/${claimed.body.id}/fail`, { error, retryable: false }, { workerKey: worker.workerKey });
  if (failed.status !== 200 || failed.body.status !== "failed") throw new Error(`not failed: ${failed.status} ${JSON.stringify(failed.body)}`);
  return claimed.body.id;
}

describe("POST /jobs with depends_on", () => {
  it("when a job depends on an unfinished one, then it reads queued with pending_dependencies, waits for dependencies, and job.created carries depends_on", async () => {
    const worker = await createAutomationWithWorker(hub, { max_concurrent_jobs: 5 });
    const first = await createJob(hub, worker.automationId);
    const created = await post({ automation_id: worker.automationId, depends_on: [first] });
    expect(created.status).toBe(201);
    expect(await readJob(hub, created.body.id)).toMatchObject({
      status: "queued",
      depends_on: [first],
      on_dependency_failure: "cancel",
      pending_dependencies: 1,
      waiting_reason: "dependencies",
      queue_position: null,
    });
    expect((await lastEventOf(hub, created.body.id))?.payload).toMatchObject({ depends_on: [first] });
    expect((await lastEventOf(hub, first))?.payload).not.toHaveProperty("depends_on");
    const stats = await hub.client.get<any>(`/automations/${worker.automationId}/stats`, asAdmin());
    expect(stats.body).toMatchObject({ queued: 1, blocked: 1 });
    const dependents = await hub.client.get<any>(`/jobs?depends_on=${first}`, asAdmin());
    expect(dependents.body.map((job: { id: string }) => job.id)).toEqual([created.body.id]);
  });

  it("when the dependencies are wrong in shape and unknown, then one 422 names every problem, with its location", async () => {
    const worker = await createAutomationWithWorker(hub);
    const known = await createJob(hub, worker.automationId);
    const shape = await post({ automation_id: worker.automationId, depends_on: [known, 0, known] });
    expect(shape.status).toBe(422);
    expect(shape.body.detail.map((issue: { loc: unknown[]; type: string }) => [issue.loc, issue.type])).toEqual([
      [["body", "depends_on", 1], "value_error"],
      [["body", "depends_on", 2], "value_error"],
    ]);
    const unknown = "00000000-0000-4000-8000-000000000000";
    const missing = await batch([
      { automation_id: worker.automationId },
      { automation_id: worker.automationId, depends_on: [0, unknown] },
      { automation_id: worker.automationId, depends_on: [2] },
    ]);
    expect(missing.status).toBe(422);
    expect(missing.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([["body", "jobs", 2, "depends_on", 0]]);
    const secondPhase = await batch([{ automation_id: worker.automationId }, { automation_id: worker.automationId, depends_on: [0, unknown] }]);
    expect(secondPhase.status).toBe(422);
    expect(secondPhase.body.detail).toEqual([expect.objectContaining({ loc: ["body", "jobs", 1, "depends_on", 1], type: "value_error" })]);
  });

  it("when a sector-scoped employee names a job of another sector, then 422 at its place, as for a job that does not exist", async () => {
    const inside = await createAutomationWithWorker(hub);
    const outside = await createAutomationWithWorker(hub);
    const hidden = await createJob(hub, outside.automationId);
    const employee = await hub.createUser("employee");
    const sector = await hub.client.get<any>(`/automations/${inside.automationId}`, asAdmin());
    expect((await hub.client.patch(`/identity/users/${employee.id}`, { sector_ids: [sector.body.sector.id] }, asAdmin())).status).toBe(200);
    const refused = await hub.client.post<any>("/jobs", { automation_id: inside.automationId, depends_on: [hidden] }, { token: employee.token });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([expect.objectContaining({ loc: ["body", "depends_on", 0], type: "value_error" })]);
    expect(JSON.stringify(refused.body)).not.toContain(outside.automationId);
  });

  it("when a dependency already failed, then 409 names it and nothing is created; under run the job is created and queued at once", async () => {
    const worker = await createAutomationWithWorker(hub, { max_attempts: 1 });
    await createJob(hub, worker.automationId);
    const failed = await failNext(worker);
    const before = await hub.client.get<any>(`/jobs?automation_id=${worker.automationId}`, asAdmin());
    const refused = await batch([{ automation_id: worker.automationId }, { automation_id: worker.automationId, depends_on: [0, failed] }]);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ detail: `Dependency ${failed} is failed` });
    const after = await hub.client.get<any>(`/jobs?automation_id=${worker.automationId}`, asAdmin());
    expect(after.body).toHaveLength(before.body.length);
    const runs = await post({ automation_id: worker.automationId, depends_on: [failed], on_dependency_failure: "run" });
    expect(runs.status).toBe(201);
    expect(await readJob(hub, runs.body.id)).toMatchObject({ status: "queued", pending_dependencies: 0, on_dependency_failure: "run" });
  });
});

describe("release and hand-out", () => {
  it("when the last dependency completes, then a waiting claim gets the dependent within a second, with its dependencies and their results in depends_on order", async () => {
    const exports = await createAutomationWithWorker(hub, { max_concurrent_jobs: 2 });
    const consolidate = await createAutomationWithWorker(hub);
    const created = await batch([
      { automation_id: exports.automationId, context: { country: "fr" } },
      { automation_id: exports.automationId, context: { country: "de" } },
      { automation_id: consolidate.automationId, depends_on: [1, 0] },
    ]);
    expect(created.status).toBe(201);
    const [fr, de, total] = created.body.ids as string[];
    const waiting = claim(hub, consolidate.workerKey, 10);
    const first = await runNext(exports, { rows: 1 });
    const second = await runNext(exports, { rows: 2 });
    expect(first.dependencies).toEqual([]);
    const completedAt = Date.now();
    const handedOut = await waiting;
    expect(Date.now() - completedAt).toBeLessThan(1000);
    expect(handedOut.status).toBe(200);
    expect(handedOut.body).toMatchObject({ id: total, depends_on: [de, fr], pending_dependencies: 0 });
    const resultOf = (id: string) => (id === first.id ? { rows: 1 } : { rows: 2 });
    expect(handedOut.body.dependencies).toEqual([
      { id: de, automation_id: exports.automationId, status: "completed", result: resultOf(de!), error: null },
      { id: fr, automation_id: exports.automationId, status: "completed", result: resultOf(fr!), error: null },
    ]);
    expect(second.id).not.toBe(first.id);
    const full = await hub.client.get<any>(`/jobs/${total}/dependencies`, { workerKey: consolidate.workerKey });
    expect(full.status).toBe(200);
    expect(full.body.items).toEqual(handedOut.body.dependencies);
    expect((await hub.client.get(`/jobs/${total}/dependencies`, { workerKey: exports.workerKey })).status).toBe(404);
  });

  it("when the last dependency completes through complete-and-claim, then the dependent of another automation is handed to its waiting claim within a second", async () => {
    const exports = await createAutomationWithWorker(hub);
    const mail = await createAutomationWithWorker(hub);
    const created = await batch([{ automation_id: exports.automationId }, { automation_id: mail.automationId, depends_on: [0] }]);
    const [exported, mailed] = created.body.ids as string[];
    const claimed = await claim(hub, exports.workerKey, 5);
    expect(claimed.body.id).toBe(exported);
    const waiting = claim(hub, mail.workerKey, 10);
    const answer = await hub.client.post<any>(
      `/jobs/${exported}/complete-and-claim`,
      { result: { sent: 1 }, wait_seconds: 0 },
      { workerKey: exports.workerKey },
    );
    expect(answer.body).toMatchObject({ job: { status: "completed" }, next: null });
    const completedAt = Date.now();
    const handedOut = await waiting;
    expect(Date.now() - completedAt).toBeLessThan(1000);
    expect(handedOut.body).toMatchObject({ id: mailed, dependencies: [{ id: exported, status: "completed", result: { sent: 1 } }] });
  });

  it("when a dependency fails, then its dependents are cancelled with dependency_failed naming it, and a retry with dependents redoes them all, remapped", async () => {
    const worker = await createAutomationWithWorker(hub, { max_attempts: 1, max_concurrent_jobs: 5 });
    const created = await batch([
      { automation_id: worker.automationId },
      { automation_id: worker.automationId },
      { automation_id: worker.automationId, depends_on: [0, 1] },
      { automation_id: worker.automationId, depends_on: [2] },
    ]);
    const [ok, broken, middle, last] = created.body.ids as string[];
    const done = await runNext(worker);
    // The first claimed is the first created (claim order).
    expect(done.id).toBe(ok);
    expect(await failNext(worker)).toBe(broken);
    expect(await readJob(hub, middle!)).toMatchObject({ status: "cancelled" });
    expect((await lastEventOf(hub, middle!))?.payload).toMatchObject({ reason: "dependency_failed", dependency_id: broken });
    expect((await lastEventOf(hub, last!))?.payload).toMatchObject({ reason: "dependency_failed", dependency_id: middle });

    const retried = await hub.client.post<any>(`/jobs/${broken}/retry`, { with_dependents: true }, asAdmin());
    expect(retried.status).toBe(201);
    const [brokenAgain, middleAgain, lastAgain] = retried.body.ids as string[];
    expect(retried.body.id).toBe(brokenAgain);
    expect(await readJob(hub, middleAgain!)).toMatchObject({ status: "queued", retry_of: middle, depends_on: [ok, brokenAgain], pending_dependencies: 1 });
    expect(await readJob(hub, lastAgain!)).toMatchObject({ retry_of: last, depends_on: [middleAgain], pending_dependencies: 1 });
    expect(await eventTypesOf(hub, lastAgain!)).toEqual(["job.created"]);
    // Retried once: a second retry of the same job finds no dependent left to redo.
    const again = await hub.client.post<any>(`/jobs/${broken}/retry`, { with_dependents: true }, asAdmin());
    expect(again.body.ids).toHaveLength(1);
    expect(await eventsOf(hub, again.body.id)).toHaveLength(1);
  });

  it("when two retries with dependents of the same failed job race, then the dependents are redone once: one answer has the graph, the other only its own retry", async () => {
    const worker = await createAutomationWithWorker(hub, { max_attempts: 1, max_concurrent_jobs: 5 });
    // Several rounds: one race may happen to run the two requests one after the other.
    for (let round = 0; round < 5; round += 1) {
      const created = await batch([
        { automation_id: worker.automationId },
        { automation_id: worker.automationId, depends_on: [0] },
        { automation_id: worker.automationId, depends_on: [1] },
      ]);
      const [broken, middle, last] = created.body.ids as string[];
      expect(await failNext(worker)).toBe(broken);
      await waitFor(async () => (await readJob(hub, last!)).status === "cancelled");

      const answers = await Promise.all([1, 2].map(() => hub.client.post<any>(`/jobs/${broken}/retry`, { with_dependents: true }, asAdmin())));
      expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
      expect(answers.map((answer) => (answer.body.ids as string[]).length).sort()).toEqual([1, 3]);
      for (const dependent of [middle, last]) {
        const retries = await hub.client.get<any>(`/jobs?retry_of=${dependent}`, asAdmin());
        expect(retries.body).toHaveLength(1);
      }
      // Leave the queue empty for the next round's failNext: cancel this round's retries.
      for (const id of answers.flatMap((answer) => answer.body.ids as string[])) await hub.client.post(`/jobs/${id}/cancel`, {}, asAdmin());
    }
  });

  it("when the dependencies' results pass 1 MiB, then the claim leaves the rest out with result_omitted and GET /jobs/{id}/dependencies has them whole", async () => {
    const exports = await createAutomationWithWorker(hub, { max_concurrent_jobs: 5 });
    const consolidate = await createAutomationWithWorker(hub);
    // A result is at most 256 KiB: five of 230 KiB pass the cap at the fifth.
    const big = (index: number) => ({ text: String(index).repeat(230 * 1024) });
    const created = await batch([
      ...[0, 1, 2, 3, 4].map((index) => ({ automation_id: exports.automationId, context: { part: String(index) } })),
      { automation_id: consolidate.automationId, depends_on: [0, 1, 2, 3, 4] },
    ]);
    for (let done = 0; done < 5; done += 1) {
      const claimed = await claim(hub, exports.workerKey, 5);
      await hub.client.post(`/jobs/${claimed.body.id}/complete`, { result: big(Number(claimed.body.context.part)) }, { workerKey: exports.workerKey });
    }
    const handedOut = await claim(hub, consolidate.workerKey, 5);
    expect(handedOut.body.dependencies.map((dependency: { result: unknown; result_omitted?: true }) => [dependency.result, dependency.result_omitted])).toEqual(
      [
        [big(0), undefined],
        [big(1), undefined],
        [big(2), undefined],
        [big(3), undefined],
        [null, true],
      ],
    );
    const full = await hub.client.get<any>(`/jobs/${created.body.ids[5]}/dependencies`, { workerKey: consolidate.workerKey });
    expect(full.body.items.map((dependency: { result: unknown }) => dependency.result)).toEqual([0, 1, 2, 3, 4].map(big));
  });
});

describe("a dependency whose lease lapses on its last attempt (HUB_JOB_LEASE_SECONDS=1)", () => {
  const lapsing = useHubWithDispatcher({ HUB_JOB_LEASE_SECONDS: "1" });

  it("when the lease sweeper fails it, then the cancel dependent is cancelled and the run dependent is handed out", async () => {
    const worker = await createAutomationWithWorker(lapsing, { max_attempts: 1, max_concurrent_jobs: 5 });
    const cleanUp = await createAutomationWithWorker(lapsing);
    const created = await lapsing.client.post<any>(
      "/jobs/batch",
      {
        jobs: [
          { automation_id: worker.automationId },
          { automation_id: worker.automationId, depends_on: [0] },
          { automation_id: cleanUp.automationId, depends_on: [0], on_dependency_failure: "run" },
        ],
      },
      { token: lapsing.adminToken },
    );
    const [lapses, cancelled, runs] = created.body.ids as string[];
    expect((await claim(lapsing, worker.workerKey, 5)).body.id).toBe(lapses);
    const waiting = claim(lapsing, cleanUp.workerKey, 15);
    await waitFor(async () => (await readJob(lapsing, lapses!)).status === "failed");
    expect(await readJob(lapsing, cancelled!)).toMatchObject({ status: "cancelled" });
    const handedOut = await waiting;
    expect(handedOut.body).toMatchObject({ id: runs, dependencies: [{ id: lapses, status: "failed", error: "lease expired" }] });
  });
});
