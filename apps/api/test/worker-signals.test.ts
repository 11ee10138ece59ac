/**
 * Live control of running jobs (CONTRACT §6.12): GET /workers/me/signals hears every way a running
 * job is taken from its worker, from whichever process commits it; POST /workers/me/offline; and
 * worker key rotation with an overlap.
 */
import { afterAll, describe, expect, it } from "vitest";
import { jobs } from "@hub/db";
import { startApi, type RunningApi } from "../src/app";
import { eventsOf } from "./automation-fixtures";
import { SseClient } from "./event-stream-fixtures";
import { claim, createAutomationWithWorker, queueJobs, sleep, useHubWithDispatcher, waitFor, type AutomationWithWorker } from "./job-fixtures";

const hub = useHubWithDispatcher({ HUB_JOB_LEASE_SECONDS: "1", HUB_WORKER_MAX_STREAMS: "2" }, { leaseSweepIntervalMs: 3_600_000 });
const streams: SseClient[] = [];

afterAll(() => {
  for (const stream of streams) stream.close();
});

async function signals(workerKey: string, baseUrl = hub.api.url): Promise<SseClient> {
  const stream = await SseClient.open(baseUrl, { workerKey, path: "/workers/me/signals" });
  streams.push(stream);
  return stream;
}

/** Claims `count` queued jobs of the worker's automation; returns them as claimed. */
async function claimJobs(subject: AutomationWithWorker, count: number): Promise<Array<{ id: string; attempts: number }>> {
  await queueJobs(hub, subject.automationId, count);
  const claimed: Array<{ id: string; attempts: number }> = [];
  for (let index = 0; index < count; index += 1) {
    const result = await claim(hub, subject.workerKey, 5);
    if (result.status !== 200) throw new Error(`claim ${index}: ${result.status}`);
    claimed.push({ id: result.body.id, attempts: result.body.attempts });
  }
  return claimed;
}

const cancels = (stream: SseClient) => stream.messages.filter((message) => message.event === "cancel").map((message) => JSON.parse(message.data));

async function workerStatus(automationId: string): Promise<string> {
  const automation = await hub.client.get<any>(`/automations/${automationId}`, { token: hub.adminToken });
  return automation.body.worker.status;
}

const sweepOptions = () => ({ maxAttempts: hub.env.HUB_JOB_MAX_ATTEMPTS, batchSize: 100 });

describe("GET /workers/me/signals", () => {
  it("when a running job is cancelled, singly or in bulk, then the worker hears cancel {job_id, attempt, reason cancelled_by_user}, with no id", async () => {
    const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 3 });
    const [single, bulkA, bulkB] = await claimJobs(subject, 3);
    const stream = await signals(subject.workerKey);

    await hub.client.post(`/jobs/${single!.id}/cancel`, undefined, { token: hub.adminToken });
    await hub.client.post("/jobs/bulk-cancel", { automation_id: subject.automationId, status: ["running"] }, { token: hub.adminToken });
    await stream.waitFor("three cancels", (client) => cancels(client).length === 3);

    const [first, ...bulk] = cancels(stream);
    expect(first).toEqual({ job_id: single!.id, attempt: single!.attempts, reason: "cancelled_by_user" });
    expect(bulk).toEqual(expect.arrayContaining([bulkA!, bulkB!].map((job) => ({ job_id: job.id, attempt: job.attempts, reason: "cancelled_by_user" }))));
    expect(stream.messages.every((message) => message.id === undefined)).toBe(true);
  });

  it("when the dispatcher's sweeps take a job back, then lease_expired and timeout are heard", async () => {
    const lapsing = await createAutomationWithWorker(hub);
    const timingOut = await createAutomationWithWorker(hub, { timeout_seconds: 1 });
    const [lapsed] = await claimJobs(lapsing, 1);
    const [timedOut] = await claimJobs(timingOut, 1);
    const lapsingStream = await signals(lapsing.workerKey);
    // Heartbeats keep the second job's lease while it runs past its timeout.
    await sleep(1100);
    await hub.client.post(`/jobs/${timedOut!.id}/heartbeat`, {}, { workerKey: timingOut.workerKey });
    const timingOutStream = await signals(timingOut.workerKey);

    // The dispatcher's sweep statements (its own timer is off in this file: the test decides when).
    await jobs.expireTimedOut(hub.api.ctx.database.pool, sweepOptions());
    await jobs.expireLapsedLeases(hub.api.ctx.database.pool, sweepOptions());
    await lapsingStream.waitFor("lease_expired", (client) => cancels(client).length > 0);
    await timingOutStream.waitFor("timeout", (client) => cancels(client).length > 0);

    expect(cancels(lapsingStream)).toEqual([{ job_id: lapsed!.id, attempt: 1, reason: "lease_expired" }]);
    expect(cancels(timingOutStream)).toEqual([{ job_id: timedOut!.id, attempt: 1, reason: "timeout" }]);
  });

  it("when the worker is unregistered, then worker_unregistered comes for each running job, then the stream ends", async () => {
    const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 2 });
    const claimed = await claimJobs(subject, 2);
    const stream = await signals(subject.workerKey);

    await hub.client.delete(`/automations/${subject.automationId}/worker`, { token: hub.adminToken });
    await stream.closed;

    expect(cancels(stream).sort((a, b) => a.job_id.localeCompare(b.job_id))).toEqual(
      claimed.map((job) => ({ job_id: job.id, attempt: job.attempts, reason: "worker_unregistered" })).sort((a, b) => a.job_id.localeCompare(b.job_id)),
    );
  });

  it("when the automation is deactivated, then its running jobs are left alone and nothing is sent", async () => {
    const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 2 });
    const [kept, cancelled] = await claimJobs(subject, 2);
    const stream = await signals(subject.workerKey);

    await hub.client.delete(`/automations/${subject.automationId}`, { token: hub.adminToken });
    // A later cancel is the marker: whatever the deactivation sent would have come before it.
    await hub.client.post(`/jobs/${cancelled!.id}/cancel`, undefined, { token: hub.adminToken });
    await stream.waitFor("the marker cancel", (client) => cancels(client).length > 0);

    expect(cancels(stream).map((signal) => signal.job_id)).toEqual([cancelled!.id]);
    expect((await hub.client.get<any>(`/jobs/${kept!.id}`, { token: hub.adminToken })).body.status).toBe("running");
  });

  it("when the cancel is committed by another API process, then the stream of this one hears it", async () => {
    const subject = await createAutomationWithWorker(hub);
    const [job] = await claimJobs(subject, 1);
    const other: RunningApi = await startApi(hub.env);
    try {
      const stream = await signals(subject.workerKey, other.url);

      await hub.client.post(`/jobs/${job!.id}/cancel`, undefined, { token: hub.adminToken });
      await stream.waitFor("the cancel", (client) => cancels(client).length > 0);

      expect(cancels(stream)).toEqual([{ job_id: job!.id, attempt: 1, reason: "cancelled_by_user" }]);
      const metrics = await fetch(`${other.url}/metrics`).then((response) => response.text());
      expect(metrics).toMatch(/hub_signal_delay_seconds_count\{[^}]*\} [1-9]/);
    } finally {
      await other.stop();
    }
  });

  it("when a job was cancelled before the stream opened, then its signal is not replayed", async () => {
    const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 2 });
    const [before, after] = await claimJobs(subject, 2);
    await hub.client.post(`/jobs/${before!.id}/cancel`, undefined, { token: hub.adminToken });

    const stream = await signals(subject.workerKey);
    await hub.client.post(`/jobs/${after!.id}/cancel`, undefined, { token: hub.adminToken });
    await stream.waitFor("the later cancel", (client) => cancels(client).length > 0);

    expect(cancels(stream).map((signal) => signal.job_id)).toEqual([after!.id]);
  });

  it("when the worker key has HUB_WORKER_MAX_STREAMS streams open, then another is 429 with Retry-After", async () => {
    const subject = await createAutomationWithWorker(hub);
    await signals(subject.workerKey);
    await signals(subject.workerKey);

    const refused = await fetch(`${hub.api.url}/workers/me/signals`, { headers: { "x-worker-api-key": subject.workerKey } });

    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await refused.json()).toEqual({ detail: "Too many open streams" });
  });

  it("when a bearer token is sent, then 401", async () => {
    const response = await fetch(`${hub.api.url}/workers/me/signals`, { headers: { authorization: `Bearer ${hub.adminToken}` } });

    expect(response.status).toBe(401);
  });
});

describe("POST /workers/me/offline", () => {
  it("when no signals stream of the worker is open, then it becomes stopped at once with worker.status_changed", async () => {
    const subject = await createAutomationWithWorker(hub);
    await claim(hub, subject.workerKey, 0);
    expect(await workerStatus(subject.automationId)).toBe("running");

    const result = await hub.client.post("/workers/me/offline", undefined, { workerKey: subject.workerKey });

    expect(result.status).toBe(204);
    expect(await workerStatus(subject.automationId)).toBe("stopped");
    const changes = (await eventsOf(hub, subject.automationId)).filter((event) => event.eventType === "worker.status_changed");
    expect(changes.map((event) => event.payload)).toEqual([
      { worker_id: subject.workerId, from: "stopped", to: "running" },
      { worker_id: subject.workerId, from: "running", to: "stopped" },
    ]);
  });

  it("when a signals stream of the worker is open, then it stays running; once the stream closed, offline stops it", async () => {
    const subject = await createAutomationWithWorker(hub);
    const stream = await signals(subject.workerKey);
    expect(await workerStatus(subject.automationId)).toBe("running");

    const whileOpen = await hub.client.post("/workers/me/offline", undefined, { workerKey: subject.workerKey });
    const statusWhileOpen = await workerStatus(subject.automationId);
    stream.close();
    await waitFor(async () => {
      await hub.client.post("/workers/me/offline", undefined, { workerKey: subject.workerKey });
      return (await workerStatus(subject.automationId)) === "stopped";
    });

    expect(whileOpen.status).toBe(204);
    expect(statusWhileOpen).toBe("running");
  });

  it("when a stopped worker calls offline, then it stays stopped and nothing is written; opening a signals stream marks it seen", async () => {
    const subject = await createAutomationWithWorker(hub);
    const before = (await eventsOf(hub, subject.automationId)).length;

    await hub.client.post("/workers/me/offline", undefined, { workerKey: subject.workerKey });
    const afterOffline = await workerStatus(subject.automationId);
    const written = (await eventsOf(hub, subject.automationId)).length - before;
    await signals(subject.workerKey);

    expect(afterOffline).toBe("stopped");
    expect(written).toBe(0);
    expect(await workerStatus(subject.automationId)).toBe("running");
  });

  it("when the worker went offline and calls again at once, then it is running again", async () => {
    const subject = await createAutomationWithWorker(hub);
    await claim(hub, subject.workerKey, 0);
    await hub.client.post("/workers/me/offline", undefined, { workerKey: subject.workerKey });

    await claim(hub, subject.workerKey, 0);

    expect(await workerStatus(subject.automationId)).toBe("running");
  });
});

describe("POST /automations/{id}/worker/api-key with overlap_seconds", () => {
  const rotate = (automationId: string, body?: unknown) => hub.client.post<any>(`/automations/${automationId}/worker/api-key`, body, { token: hub.adminToken });
  const works = async (workerKey: string) => (await claim(hub, workerKey, 0)).status !== 401;

  it("when rotated with an overlap, then the previous key works until it ends; without, the old key stops at once", async () => {
    const subject = await createAutomationWithWorker(hub);

    const overlapping = await rotate(subject.automationId, { overlap_seconds: 1 });
    const bothWork = [await works(subject.workerKey), await works(overlapping.body.api_key)];
    await waitFor(async () => !(await works(subject.workerKey)));
    const immediate = await rotate(subject.automationId);

    expect(overlapping.status).toBe(200);
    expect(bothWork).toEqual([true, true]);
    expect(await works(overlapping.body.api_key)).toBe(false);
    expect(await works(immediate.body.api_key)).toBe(true);
  });

  it("when rotated twice, then the first overlap ends at once: only the newest key and the one before it work", async () => {
    const subject = await createAutomationWithWorker(hub);

    const second = await rotate(subject.automationId, { overlap_seconds: 3600 });
    const third = await rotate(subject.automationId, { overlap_seconds: 3600 });

    expect(await works(subject.workerKey)).toBe(false);
    expect(await works(second.body.api_key)).toBe(true);
    expect(await works(third.body.api_key)).toBe(true);
  });

  it("when overlap_seconds is out of range, then 422 and the key is not rotated", async () => {
    const subject = await createAutomationWithWorker(hub);

    const tooLong = await rotate(subject.automationId, { overlap_seconds: 86_401 });
    const negative = await rotate(subject.automationId, { overlap_seconds: -1 });

    expect(tooLong.status).toBe(422);
    expect(tooLong.body.detail).toEqual([expect.objectContaining({ loc: ["body", "overlap_seconds"], type: "less_than_equal" })]);
    expect(negative.status).toBe(422);
    expect(await works(subject.workerKey)).toBe(true);
  });

  it("when the overlap ends, then a signals stream opened with the previous key ends", async () => {
    const subject = await createAutomationWithWorker(hub);
    await rotate(subject.automationId, { overlap_seconds: 1 });
    const stream = await signals(subject.workerKey);

    await stream.closed;

    expect(await works(subject.workerKey)).toBe(false);
  });
});
