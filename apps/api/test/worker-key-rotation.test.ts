/**
 * CONTRACT §6.21: a running job is held by the worker key that claimed it or last heartbeated it,
 * and when that key stops working — at once on a rotation without overlap, within 1 s of the end
 * of an overlap — the jobs it holds go back to `queued` in the same transaction (`job.requeued`,
 * reason `worker_key_rotated`), and its signals streams hear `event: cancel` with that reason before
 * they end. Before this, the job stayed `running` for its whole lease and then ran a second time.
 */
import { afterAll, describe, expect, it } from "vitest";
import { eventsOf } from "./automation-fixtures";
import { SseClient } from "./event-stream-fixtures";
import { claim, createAutomationWithWorker, queueJobs, readJob, useHubWithDispatcher, waitFor } from "./job-fixtures";

const hub = useHubWithDispatcher();
const streams: SseClient[] = [];
afterAll(() => {
  for (const stream of streams) stream.close();
});

async function signals(workerKey: string): Promise<SseClient> {
  const stream = await SseClient.open(hub.api.url, { workerKey, path: "/workers/me/signals" });
  streams.push(stream);
  return stream;
}

async function claimOne(workerKey: string): Promise<{ id: string; attempts: number }> {
  const claimed = await claim(hub, workerKey, 5);
  if (claimed.status !== 200) throw new Error(`claim: ${claimed.status} ${JSON.stringify(claimed.body)}`);
  return { id: claimed.body.id, attempts: claimed.body.attempts };
}

const rotate = (automationId: string, body?: unknown) => hub.client.post<any>(`/automations/${automationId}/worker/api-key`, body, { token: hub.adminToken });
const cancels = (stream: SseClient) => stream.messages.filter((message) => message.event === "cancel").map((message) => JSON.parse(message.data));
const status = async (jobId: string) => (await readJob(hub, jobId)).status as string;
async function requeueReasons(jobId: string): Promise<unknown[]> {
  return (await eventsOf(hub, jobId)).filter((event) => event.eventType === "job.requeued").map((event) => (event.payload as { reason: string }).reason);
}

describe("rotating a worker key", () => {
  it("when rotated without overlap, then the jobs the old key ran are queued by the time the rotation answers, and its signals stream hears the cancels before it ends", async () => {
    const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 2 });
    await queueJobs(hub, subject.automationId, 2);
    const held = [await claimOne(subject.workerKey), await claimOne(subject.workerKey)];
    const stream = await signals(subject.workerKey);

    const rotated = await rotate(subject.automationId);
    const statuses = [await status(held[0]!.id), await status(held[1]!.id)];
    await stream.closed;

    expect(rotated.status).toBe(200);
    expect(statuses).toEqual(["queued", "queued"]);
    expect(cancels(stream)).toEqual(expect.arrayContaining(held.map((job) => ({ job_id: job.id, attempt: job.attempts, reason: "worker_key_rotated" }))));
    expect(stream.messages.map((message) => message.event)).toEqual(["cancel", "cancel"]);
    expect(await requeueReasons(held[0]!.id)).toEqual(["worker_key_rotated"]);
    // The new key claims them again (the worker process restarted with it).
    const again = await claimOne(rotated.body.api_key);
    expect(held.map((job) => job.id)).toContain(again.id);
  });

  it("when an overlap ends, then within 1 s the jobs the previous key holds are queued and the jobs the new key claimed or heartbeated keep running", async () => {
    const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 3 });
    await queueJobs(hub, subject.automationId, 3);
    const movedToNewKey = await claimOne(subject.workerKey);
    const rotated = await rotate(subject.automationId, { overlap_seconds: 2 });
    const overlapEndsAt = performance.now() + 2000;
    const newKey: string = rotated.body.api_key;
    const claimedByNewKey = await claimOne(newKey);
    const claimedByOldKeyDuringOverlap = await claimOne(subject.workerKey);
    const heartbeat = await hub.client.post(`/jobs/${movedToNewKey.id}/heartbeat`, {}, { workerKey: newKey });
    const oldKeyStream = await signals(subject.workerKey);

    await waitFor(async () => (await status(claimedByOldKeyDuringOverlap.id)) === "queued", { timeoutMs: 10_000, intervalMs: 20 });
    const requeuedAfterEndMs = performance.now() - overlapEndsAt;
    await oldKeyStream.closed;

    expect(heartbeat.status).toBe(200);
    expect(requeuedAfterEndMs).toBeLessThan(1000);
    expect(await status(movedToNewKey.id)).toBe("running");
    expect(await status(claimedByNewKey.id)).toBe("running");
    expect(await requeueReasons(claimedByOldKeyDuringOverlap.id)).toEqual(["worker_key_rotated"]);
    expect(cancels(oldKeyStream)).toEqual([
      { job_id: claimedByOldKeyDuringOverlap.id, attempt: claimedByOldKeyDuringOverlap.attempts, reason: "worker_key_rotated" },
    ]);
  });

  it("when rotated again during an overlap, then the jobs of the key that stops at once are queued at once; the others stay with the key now previous", async () => {
    const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 2 });
    await queueJobs(hub, subject.automationId, 2);
    const heldByFirstKey = await claimOne(subject.workerKey);
    const second = await rotate(subject.automationId, { overlap_seconds: 3600 });
    const heldBySecondKey = await claimOne(second.body.api_key);

    const third = await rotate(subject.automationId, { overlap_seconds: 3600 });

    expect(third.status).toBe(200);
    expect(await status(heldByFirstKey.id)).toBe("queued");
    expect(await status(heldBySecondKey.id)).toBe("running");
    expect(await requeueReasons(heldByFirstKey.id)).toEqual(["worker_key_rotated"]);
    const stillWorks = await hub.client.post(`/jobs/${heldBySecondKey.id}/heartbeat`, {}, { workerKey: second.body.api_key });
    expect(stillWorks.status).toBe(200);
  });
});
