/**
 * CONTRACT §6.19, evaluation: the dispatcher (in-process beside the API, a round every 200 ms here)
 * fires each kind of rule and resolves it, one `alert.firing` and one `alert.resolved` per
 * transition, with the sentence a person reads; `for_seconds` delays a firing; a rule for every
 * automation fires only for the automation whose condition holds; a rule's change or deletion and an
 * automation's deactivation resolve its alerts. Three dispatcher processes and one killed mid-round:
 * packages/system-tests/test/alerts.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { HubEvent } from "@hub/db";
import { createAutomation, createSector, eventsOf } from "./automation-fixtures";
import { claim, createAutomationWithWorker, createJob, sleep, useHubWithDispatcher, waitFor } from "./job-fixtures";

const hub = useHubWithDispatcher({}, { alertEvaluationIntervalMs: 200 });
const asAdmin = () => ({ token: hub.adminToken });
const sql = (text: string, values: unknown[] = []) => hub.api.ctx.database.pool.query(text, values);

async function createRule(body: Record<string, unknown>): Promise<string> {
  const created = await hub.client.post<{ id: string }>("/alert-rules", body, asAdmin());
  if (created.status !== 201) throw new Error(`rule not created: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id;
}

const alertEvents = async (ruleId: string, type?: string): Promise<HubEvent[]> =>
  (await eventsOf(hub, ruleId)).filter((event) => event.eventType === (type ?? event.eventType));

async function waitForEvent(ruleId: string, type: "alert.firing" | "alert.resolved", count = 1): Promise<HubEvent> {
  await waitFor(async () => (await alertEvents(ruleId, type)).length >= count, { timeoutMs: 10_000 });
  return (await alertEvents(ruleId, type)).at(-1)!;
}

/** A few more rounds, then exactly one firing and one resolution. */
async function expectOneOfEach(ruleId: string): Promise<void> {
  await sleep(1000);
  expect((await alertEvents(ruleId)).map((event) => event.eventType)).toEqual(["alert.firing", "alert.resolved"]);
}

/** An automation named `name` in a new sector, without a worker. */
async function namedAutomation(name: string): Promise<string> {
  return createAutomation(hub, { sector_id: (await createSector(hub)).id, name });
}

const ageJobs = (automationId: string, seconds: number) =>
  sql("update jobs set available_at = now() - make_interval(secs => $2) where automation_id = $1 and status = 'queued'", [automationId, seconds]);

describe("alert rules evaluated by the dispatcher", () => {
  it("when a queue_age rule's queue waits 20 min, then alert.firing says so in minutes with the waiting reason, GET /alerts lists it, and the cancel resolves it", async () => {
    const { automationId } = await createAutomationWithWorker(hub, { name: "Invoice export" });
    const jobId = await createJob(hub, automationId);
    await ageJobs(automationId, 1200);
    const ruleId = await createRule({ automation_id: automationId, kind: "queue_age", threshold: 600 });

    const firing = await waitForEvent(ruleId, "alert.firing");

    expect(firing.actorId).toBeNull();
    expect(firing.payload).toMatchObject({ rule_id: ruleId, automation_id: automationId, kind: "queue_age", threshold: 600 });
    expect(firing.payload.value).toBeGreaterThanOrEqual(1200);
    expect(firing.payload.message).toBe("Invoice export: the oldest queued job has waited 20 min (alert at 10 min); the worker is offline");
    const now = (await hub.client.get(`/alerts?automation_id=${automationId}`, asAdmin())).body;
    expect(now).toEqual([
      expect.objectContaining({ rule_id: ruleId, automation_id: automationId, kind: "queue_age", threshold: 600, message: firing.payload.message }),
    ]);
    expect(now[0].since).toEqual(firing.createdAt.toISOString());

    expect((await hub.client.post(`/jobs/${jobId}/cancel`, {}, asAdmin())).status).toBe(200);
    const resolved = await waitForEvent(ruleId, "alert.resolved");

    expect(resolved.payload).toMatchObject({ rule_id: ruleId, automation_id: automationId, kind: "queue_age", threshold: 600, value: 0 });
    expect(resolved.payload.message).toBe("Invoice export: the queue age alert is resolved: no job waits");
    await expectOneOfEach(ruleId);
    expect((await hub.client.get(`/alerts?automation_id=${automationId}`, asAdmin())).body).toEqual([]);
    const history = (await hub.client.get(`/alerts?state=resolved&automation_id=${automationId}`, asAdmin())).body;
    expect(history).toEqual([
      expect.objectContaining({ rule_id: ruleId, message: firing.payload.message, since: now[0].since, resolved_at: resolved.createdAt.toISOString() }),
    ]);
  });

  it("when a queue_depth rule sees 3 due jobs, then it fires once, and it resolves when one is cancelled", async () => {
    const automationId = await namedAutomation("Payroll");
    const jobs = [await createJob(hub, automationId), await createJob(hub, automationId), await createJob(hub, automationId)];
    const ruleId = await createRule({ automation_id: automationId, kind: "queue_depth", threshold: 3 });

    const firing = await waitForEvent(ruleId, "alert.firing");
    expect(firing.payload).toMatchObject({ value: 3, threshold: 3, message: "Payroll: 3 jobs are queued (alert at 3); no worker is registered" });

    await hub.client.post(`/jobs/${jobs[0]}/cancel`, {}, asAdmin());
    await waitForEvent(ruleId, "alert.resolved");
    await expectOneOfEach(ruleId);
  });

  it("when half of the last 10 finished jobs failed, then a failure_rate rule at 50% fires in percent, and resolves once the failures leave the window", async () => {
    const automationId = await namedAutomation("Reports");
    await sql(
      `insert into jobs (automation_id, status, attempts, started_at, finished_at)
       select $1, case when g <= 5 then 'failed' else 'completed' end, 1, now() - interval '2 minutes', now() - interval '1 minute'
       from generate_series(1, 10) g`,
      [automationId],
    );
    const ruleId = await createRule({ automation_id: automationId, kind: "failure_rate", threshold: 0.5, min_jobs: 10 });

    const firing = await waitForEvent(ruleId, "alert.firing");
    expect(firing.payload).toMatchObject({
      value: 0.5,
      threshold: 0.5,
      message: "Reports: 50% of the 10 jobs finished in the last 15 min failed (alert at 50%)",
    });

    await sql("update jobs set finished_at = now() - interval '1 hour' where automation_id = $1 and status = 'failed'", [automationId]);
    const resolved = await waitForEvent(ruleId, "alert.resolved");
    expect(resolved.payload.value).toBe(0);
    await expectOneOfEach(ruleId);
  });

  it("when jobs wait and no worker is registered, then worker_offline fires, and the automation's deactivation resolves it", async () => {
    const automationId = await namedAutomation("Scanner");
    await createJob(hub, automationId);
    await ageJobs(automationId, 300);
    const ruleId = await createRule({ automation_id: automationId, kind: "worker_offline" });

    const firing = await waitForEvent(ruleId, "alert.firing");
    expect(firing.payload).toMatchObject({
      kind: "worker_offline",
      threshold: null,
      message: "Scanner: 1 job waits and no worker is registered (the oldest for 5 min)",
    });

    expect((await hub.client.delete(`/automations/${automationId}`, asAdmin())).status).toBe(204);
    const resolved = await alertEvents(ruleId, "alert.resolved");
    expect(resolved.map((event) => event.payload.message)).toEqual(["Scanner: the worker offline alert is resolved: the automation was deactivated"]);
    await expectOneOfEach(ruleId);
  });

  it("when a job has run for 3 h, then job_duration fires in hours, and completing it resolves the alert", async () => {
    const worker = await createAutomationWithWorker(hub, { name: "Backup" });
    const jobId = await createJob(hub, worker.automationId);
    expect((await claim(hub, worker.workerKey, 5)).body.id).toBe(jobId);
    await sql("update jobs set started_at = now() - interval '3 hours' where id = $1", [jobId]);
    const ruleId = await createRule({ automation_id: worker.automationId, kind: "job_duration", threshold: 3600 });

    const firing = await waitForEvent(ruleId, "alert.firing");
    expect(firing.payload.message).toBe("Backup: a job has been running for 3 h (alert at 60 min)");

    expect((await hub.client.post(`/jobs/${jobId}/complete`, { result: {} }, { workerKey: worker.workerKey })).status).toBe(200);
    await waitForEvent(ruleId, "alert.resolved");
    await expectOneOfEach(ruleId);
  });

  it("when a rule has for_seconds 2, then it fires only after its condition held for 2 s, not at the first evaluation", async () => {
    const automationId = await namedAutomation("Slow");
    await createJob(hub, automationId);
    const ruleId = await createRule({ automation_id: automationId, kind: "queue_depth", threshold: 1, for_seconds: 2 });
    const created = Date.now();

    await sleep(1200);
    expect(await alertEvents(ruleId)).toEqual([]);
    const firing = await waitForEvent(ruleId, "alert.firing");

    expect(firing.createdAt.getTime() - created).toBeGreaterThanOrEqual(2000);
    expect(await alertEvents(ruleId)).toHaveLength(1);
  });

  it("when a rule for every automation finds one automation's queue old, then it fires for that one only, once", async () => {
    const late = await namedAutomation("Late queue");
    const fine = await namedAutomation("Fine queue");
    await createJob(hub, late);
    await createJob(hub, fine);
    await ageJobs(late, 7200);
    const ruleId = await createRule({ kind: "queue_age", threshold: 3600 });

    const firing = await waitForEvent(ruleId, "alert.firing");
    await sleep(1000);

    const fired = await alertEvents(ruleId, "alert.firing");
    expect(fired.map((event) => event.payload.automation_id)).toEqual([late]);
    expect(firing.payload.message).toBe("Late queue: the oldest queued job has waited 2 h (alert at 60 min); no worker is registered");
    await hub.client.delete(`/alert-rules/${ruleId}`, asAdmin());
  });

  it("when a firing rule is changed and then deleted, then each resolves its alert once, and the changed rule fires again", async () => {
    const automationId = await namedAutomation("Changing");
    await createJob(hub, automationId);
    const ruleId = await createRule({ automation_id: automationId, kind: "queue_depth", threshold: 1 });
    await waitForEvent(ruleId, "alert.firing");

    const changed = await hub.client.put(
      `/alert-rules/${ruleId}`,
      { automation_id: automationId, kind: "queue_depth", threshold: 1, description: "now described" },
      asAdmin(),
    );
    expect(changed.status).toBe(200);
    expect((await alertEvents(ruleId, "alert.resolved")).map((event) => event.payload.message)).toEqual([
      "Changing: the queue depth alert is resolved: its rule was changed",
    ]);
    await waitForEvent(ruleId, "alert.firing", 2);

    expect((await hub.client.delete(`/alert-rules/${ruleId}`, asAdmin())).status).toBe(204);
    await sleep(800);
    expect((await alertEvents(ruleId)).map((event) => [event.eventType, event.payload.message])).toEqual([
      ["alert.firing", "Changing: 1 job is queued (alert at 1); no worker is registered"],
      ["alert.resolved", "Changing: the queue depth alert is resolved: its rule was changed"],
      ["alert.firing", "Changing: 1 job is queued (alert at 1); no worker is registered"],
      ["alert.resolved", "Changing: the queue depth alert is resolved: its rule was deleted"],
    ]);
  });

  it("when a rule for every automation fires in one sector, then an employee of another sector reads neither the alert nor its events, and one of that sector does", async () => {
    const sectorId = (await createSector(hub)).id;
    const automationId = await createAutomation(hub, { sector_id: sectorId, name: "Sector queue" });
    await createJob(hub, automationId);
    await ageJobs(automationId, 90_000);
    const outsider = await hub.createUser("employee");
    const insider = await hub.createUser("employee");
    await hub.client.patch(`/identity/users/${outsider.id}`, { sector_ids: [(await createSector(hub)).id] }, asAdmin());
    await hub.client.patch(`/identity/users/${insider.id}`, { sector_ids: [sectorId] }, asAdmin());
    const ruleId = await createRule({ kind: "queue_age", threshold: 86_400 });
    await waitForEvent(ruleId, "alert.firing");

    const seenBy = async (token: string) => ({
      alerts: (await hub.client.get("/alerts?limit=1000", { token })).body.map((alert: { automation_id: string }) => alert.automation_id),
      events: (await hub.client.get(`/events?aggregate_id=${ruleId}`, { token })).body.map((event: { event_type: string }) => event.event_type),
    });
    expect(await seenBy(outsider.token)).toEqual({ alerts: [], events: [] });
    expect(await seenBy(insider.token)).toEqual({ alerts: [automationId], events: ["alert.firing"] });
    await hub.client.delete(`/alert-rules/${ruleId}`, asAdmin());
  });
});
