/**
 * Held jobs (packages/db/src/sql/jobs/hold.ts): a queued job that may not be handed out yet — its
 * dependencies unfinished (CONTRACT §6.16) or its approval pending (§6.17). The hold is arranged
 * with SQL here, as the endpoints that make one belong to those sections: every answer shows the job
 * `queued`, no claim hands it out, cancels and deactivation treat it as queued, and a release makes
 * it claimable at once.
 */
import { jobs } from "@hub/db";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { offerReleased } from "../src/jobs/held-jobs";
import { claim, createAutomationWithWorker, createJob, lastEventOf, readJob, useHubWithDispatcher } from "./job-fixtures";

const hub = useHubWithDispatcher();

async function hold(jobId: string, pendingDependencies = 1): Promise<void> {
  await hub.api.ctx.database.db.execute(sql`update jobs set status = 'held', pending_dependencies = ${pendingDependencies} where id = ${jobId}`);
}

async function storedStatus(jobId: string): Promise<string> {
  const { rows } = await hub.api.ctx.database.db.execute<{ status: string }>(sql`select status from jobs where id = ${jobId}`);
  return rows[0]!.status;
}

describe("held jobs", () => {
  it("when a job is held for a dependency, then it reads queued, waiting for dependencies, with no queue position, listed under status=queued", async () => {
    const { automationId, workerKey } = await createAutomationWithWorker(hub);
    await claim(hub, workerKey, 0);
    const jobId = await createJob(hub, automationId);
    await hold(jobId);
    expect(await readJob(hub, jobId)).toMatchObject({ status: "queued", waiting_reason: "dependencies", queue_position: null });
    const listed = await hub.client.get<Array<{ id: string; status: string; waiting_reason: string | null }>>(
      `/jobs?automation_id=${automationId}&status=queued`,
      { token: hub.adminToken },
    );
    expect(listed.body).toEqual([expect.objectContaining({ id: jobId, status: "queued", waiting_reason: "dependencies" })]);
    const stats = await hub.client.get<{ queued: number }>(`/automations/${automationId}/stats`, { token: hub.adminToken });
    expect(stats.body.queued).toBe(0);
  });

  it("when the only job is held, then no claim hands it out; once released, a waiting claim gets it", async () => {
    const { automationId, workerKey } = await createAutomationWithWorker(hub);
    const jobId = await createJob(hub, automationId);
    await hold(jobId, 0);
    expect((await claim(hub, workerKey, 0)).status).toBe(204);
    const waiting = claim(hub, workerKey, 5);
    const released = await jobs.hold.release(hub.api.ctx.database.pool, [jobId]);
    expect(released.map((job) => job.id)).toEqual([jobId]);
    offerReleased(hub.api.ctx, released);
    const claimed = await waiting;
    expect(claimed.status).toBe(200);
    expect(claimed.body.id).toBe(jobId);
  });

  it("when a held job still has a pending dependency, then a release leaves it held", async () => {
    const { automationId } = await createAutomationWithWorker(hub);
    const jobId = await createJob(hub, automationId);
    await hold(jobId, 1);
    expect(await jobs.hold.release(hub.api.ctx.database.pool, [jobId])).toEqual([]);
    expect(await storedStatus(jobId)).toBe("held");
  });

  it("when a held job is cancelled, one by one or in bulk, then it is cancelled as a queued job is", async () => {
    const { automationId } = await createAutomationWithWorker(hub);
    const single = await createJob(hub, automationId);
    const bulk = await createJob(hub, automationId);
    await hold(single);
    await hold(bulk);
    const cancelled = await hub.client.post(`/jobs/${single}/cancel`, undefined, { token: hub.adminToken });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: "cancelled" });
    const result = await hub.client.post<{ affected: number }>(
      "/jobs/bulk-cancel",
      { automation_id: automationId, status: ["queued"] },
      { token: hub.adminToken },
    );
    expect(result.body.affected).toBe(1);
    expect(await storedStatus(bulk)).toBe("cancelled");
    expect((await lastEventOf(hub, bulk))?.payload).toMatchObject({ reason: "cancelled_by_user" });
  });

  it("when the automation of a held job is deactivated, then the job is cancelled with the queued ones", async () => {
    const { automationId } = await createAutomationWithWorker(hub);
    const jobId = await createJob(hub, automationId);
    await hold(jobId);
    expect((await hub.client.delete(`/automations/${automationId}`, { token: hub.adminToken })).status).toBe(204);
    expect(await storedStatus(jobId)).toBe("cancelled");
    expect((await lastEventOf(hub, jobId))?.payload).toMatchObject({ reason: "automation_deactivated" });
  });
});
