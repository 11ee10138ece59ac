/**
 * Job logs and progress (CONTRACT §6.12): POST /jobs/{id}/logs under the lease fence, the per-job
 * byte limit with its one marker line, seq order under concurrent requests, GET /jobs/{id}/logs
 * as a §6.2 list, progress on heartbeats, and the {detail, status} of every worker 409.
 */
import { describe, expect, it } from "vitest";
import type { HttpResult } from "./harness";
import { claim, createAutomationWithWorker, createJob, queueJobs, readJob, useHubWithDispatcher, type AutomationWithWorker } from "./job-fixtures";

const LOG_MAX_BYTES = 8192;
const hub = useHubWithDispatcher({ HUB_JOB_LOG_MAX_BYTES: String(LOG_MAX_BYTES) });

/** A job of a new automation, claimed by its worker. */
async function runningJob(): Promise<AutomationWithWorker & { jobId: string; attempt: number }> {
  const subject = await createAutomationWithWorker(hub);
  const [jobId] = await queueJobs(hub, subject.automationId, 1);
  const claimed = await claim(hub, subject.workerKey, 5);
  if (claimed.status !== 200 || claimed.body.id !== jobId) throw new Error(`could not claim ${jobId}: ${claimed.status}`);
  return { ...subject, jobId: jobId!, attempt: claimed.body.attempts as number };
}

function sendLogs(workerKey: string, jobId: string, body: unknown) {
  return hub.client.post<any>(`/jobs/${jobId}/logs`, body, { workerKey });
}

async function readLogs(jobId: string, query = ""): Promise<any[]> {
  const result = await hub.client.get<any[]>(`/jobs/${jobId}/logs${query}`, { token: hub.adminToken });
  if (result.status !== 200) throw new Error(`logs of ${jobId}: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body;
}

describe("POST /jobs/{job_id}/logs", () => {
  it("when a worker sends lines of its running job, then they are stored in input order with increasing seq, its attempt, the level (default info) and ts as sent (default now)", async () => {
    const { workerKey, jobId, attempt } = await runningJob();
    const before = Date.now();

    const sent = await sendLogs(workerKey, jobId, {
      lines: [{ message: "first" }, { message: "second", level: "warn", ts: "2026-01-02T03:04:05.678+01:00" }, { message: "third", level: "debug" }],
      attempt,
    });

    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ accepted: 3, truncated: false });
    const lines = await readLogs(jobId);
    expect(lines.map((line) => [line.message, line.level, line.attempt])).toEqual([
      ["first", "info", attempt],
      ["second", "warn", attempt],
      ["third", "debug", attempt],
    ]);
    expect(lines[1].ts).toBe("2026-01-02T02:04:05.678Z");
    expect(Date.parse(lines[0].ts)).toBeGreaterThanOrEqual(before - 1000);
    expect(lines[0].seq).toBeLessThan(lines[1].seq);
    expect(lines[1].seq).toBeLessThan(lines[2].seq);
  });

  it("when many requests for one job arrive at once, then seq follows acceptance and every line of a request stays together in order", async () => {
    const { workerKey, jobId } = await runningJob();

    const results = await Promise.all(
      Array.from({ length: 8 }, (_, request) =>
        sendLogs(workerKey, jobId, { lines: Array.from({ length: 5 }, (_, line) => ({ message: `r${request} l${line}` })) }),
      ),
    );

    expect(results.map((result) => result.status)).toEqual(Array(8).fill(200));
    const lines = await readLogs(jobId);
    expect(lines).toHaveLength(40);
    const seqs = lines.map((line) => line.seq as number);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(40);
    for (let start = 0; start < 40; start += 5) {
      const request = (lines[start].message as string).split(" ")[0];
      expect(lines.slice(start, start + 5).map((line) => line.message)).toEqual([0, 1, 2, 3, 4].map((line) => `${request} l${line}`));
    }
  });

  it("when a job's log reaches HUB_JOB_LOG_MAX_BYTES, then lines are kept until the next would pass it, one warn marker is stored once, and truncated stays true", async () => {
    const { workerKey, jobId } = await runningJob();
    // 3-byte characters: 1000 characters are 3000 UTF-8 bytes.
    const line = "€".repeat(1000);

    const first = await sendLogs(workerKey, jobId, { lines: [{ message: line }, { message: line }] });
    const second = await sendLogs(workerKey, jobId, { lines: [{ message: line }, { message: "x" }, { message: "y" }] });
    const third = await sendLogs(workerKey, jobId, { lines: [{ message: "z" }] });

    expect(first.body).toEqual({ accepted: 2, truncated: false });
    expect(second.body).toEqual({ accepted: 0, truncated: true });
    expect(third.body).toEqual({ accepted: 0, truncated: true });
    const lines = await readLogs(jobId);
    expect(lines.map((stored) => stored.message)).toEqual([line, line, `log limit of ${LOG_MAX_BYTES} bytes reached: later lines dropped`]);
    expect(lines[2].level).toBe("warn");
    const metrics = await hub.client.get<string>("/metrics");
    expect(String(metrics.body)).toMatch(/hub_job_log_lines_dropped_total\{[^}]*\} [1-9]/);
  });

  it("when concurrent requests for one job cross the limit, then the job keeps exactly what fits, one marker, and the answers add up", async () => {
    const { workerKey, jobId } = await runningJob();

    const results = await Promise.all(Array.from({ length: 10 }, () => sendLogs(workerKey, jobId, { lines: [{ message: "x".repeat(2000) }] })));

    const accepted = results.map((result) => result.body.accepted as number).reduce((sum, count) => sum + count, 0);
    const lines = await readLogs(jobId);
    expect(accepted).toBe(4);
    expect(lines.filter((line) => line.message.length === 2000)).toHaveLength(4);
    expect(lines.filter((line) => line.message.startsWith("log limit of"))).toHaveLength(1);
    expect(lines.at(-1).message).toBe(`log limit of ${LOG_MAX_BYTES} bytes reached: later lines dropped`);
    expect(results.filter((result) => result.body.truncated)).toHaveLength(6);
  });

  it("when the limit falls inside a request, then the lines before it are accepted and counted", async () => {
    const { workerKey, jobId } = await runningJob();

    const sent = await sendLogs(workerKey, jobId, { lines: [{ message: "a".repeat(8000) }, { message: "b".repeat(192) }, { message: "c" }, { message: "d" }] });

    expect(sent.body).toEqual({ accepted: 2, truncated: true });
    const lines = await readLogs(jobId);
    expect(lines.map((stored) => stored.message.slice(0, 1))).toEqual(["a", "b", "l"]);
  });

  it("when the job is not running under this worker's lease, then 409 with the job's status and nothing is stored", async () => {
    const { workerKey, jobId, automationId } = await runningJob();
    const cancelled = await hub.client.post(`/jobs/${jobId}/cancel`, undefined, { token: hub.adminToken });
    expect(cancelled.status).toBe(200);
    const queuedJob = await createJob(hub, automationId);

    const afterCancel = await sendLogs(workerKey, jobId, { lines: [{ message: "too late" }] });
    const whileQueued = await sendLogs(workerKey, queuedJob, { lines: [{ message: "not mine yet" }] });

    expect(afterCancel.status).toBe(409);
    expect(afterCancel.body).toEqual({ detail: expect.any(String), status: "cancelled" });
    expect(whileQueued.body).toEqual({ detail: expect.any(String), status: "queued" });
    expect(await readLogs(jobId)).toEqual([]);
    expect(await readLogs(queuedJob)).toEqual([]);
  });

  it("when another attempt is named, then 409 with status running and nothing is stored", async () => {
    const { workerKey, jobId, attempt } = await runningJob();

    const result = await sendLogs(workerKey, jobId, { lines: [{ message: "stale" }], attempt: attempt + 1 });

    expect(result.status).toBe(409);
    expect(result.body.status).toBe("running");
    expect(await readLogs(jobId)).toEqual([]);
  });

  it("when the job belongs to another automation, then 404", async () => {
    const { jobId } = await runningJob();
    const other = await createAutomationWithWorker(hub);

    const result = await sendLogs(other.workerKey, jobId, { lines: [{ message: "x" }] });

    expect(result.status).toBe(404);
  });

  it("when the input is bad (an oversized line, too many lines, a wrong level, no lines), then 422 at each problem and nothing is stored", async () => {
    const { workerKey, jobId } = await runningJob();

    const oversized = await sendLogs(workerKey, jobId, { lines: [{ message: "ok" }, { message: "x".repeat(8193) }] });
    const tooMany = await sendLogs(workerKey, jobId, { lines: Array.from({ length: 1001 }, () => ({ message: "x" })) });
    const wrongLevel = await sendLogs(workerKey, jobId, {
      lines: [
        { message: "x", level: "fatal" },
        { message: "", ts: "yesterday" },
      ],
    });
    const none = await sendLogs(workerKey, jobId, { lines: [] });

    expect(oversized.status).toBe(422);
    expect(oversized.body.detail).toEqual([expect.objectContaining({ loc: ["body", "lines", 1, "message"], type: "string_too_long" })]);
    expect(tooMany.body.detail).toEqual([expect.objectContaining({ loc: ["body", "lines"] })]);
    expect(wrongLevel.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ["body", "lines", 0, "level"],
      ["body", "lines", 1, "message"],
      ["body", "lines", 1, "ts"],
    ]);
    expect(none.status).toBe(422);
    expect(await readLogs(jobId)).toEqual([]);
  });

  it("when a bearer token is sent, then 401", async () => {
    const { jobId } = await runningJob();

    const result = await hub.client.post(`/jobs/${jobId}/logs`, { lines: [{ message: "x" }] }, { token: hub.adminToken });

    expect(result.status).toBe(401);
  });
});

describe("GET /jobs/{job_id}/logs", () => {
  it("when filtered by level, then that level and above; by attempt, then that attempt's lines", async () => {
    const { workerKey, jobId, attempt } = await runningJob();
    await sendLogs(workerKey, jobId, { lines: (["debug", "info", "warn", "error"] as const).map((level) => ({ message: level, level })) });

    const warnAndAbove = await readLogs(jobId, "?level=warn");
    const ofAttempt = await readLogs(jobId, `?attempt=${attempt}`);
    const ofOtherAttempt = await readLogs(jobId, `?attempt=${attempt + 1}`);

    expect(warnAndAbove.map((line) => line.message)).toEqual(["warn", "error"]);
    expect(ofAttempt).toHaveLength(4);
    expect(ofOtherAttempt).toEqual([]);
  });

  it("when the lines fill more than a page, then the Link cursor visits every line once, in seq order", async () => {
    const { workerKey, jobId } = await runningJob();
    await sendLogs(workerKey, jobId, { lines: Array.from({ length: 7 }, (_, index) => ({ message: `line ${index}` })) });

    const seen: string[] = [];
    let path: string | undefined = `/jobs/${jobId}/logs?limit=3`;
    while (path) {
      const page: HttpResult<any[]> = await hub.client.get<any[]>(path, { token: hub.adminToken });
      seen.push(...page.body.map((line: { message: string }) => line.message));
      path = /<([^>]+)>; rel="next"/.exec(String(page.headers.get("link") ?? ""))?.[1];
    }

    expect(seen).toEqual(Array.from({ length: 7 }, (_, index) => `line ${index}`));
  });

  it("when an employee reads a job's logs, then it sees them; an unknown job is 404; a bad filter is 422", async () => {
    const { workerKey, jobId } = await runningJob();
    await sendLogs(workerKey, jobId, { lines: [{ message: "visible" }] });
    const employee = await hub.createUser("employee");

    const read = await hub.client.get<any[]>(`/jobs/${jobId}/logs`, { token: employee.token });
    const unknown = await hub.client.get(`/jobs/00000000-0000-4000-8000-000000000000/logs`, { token: employee.token });
    const badLevel = await hub.client.get<any>(`/jobs/${jobId}/logs?level=loud&attempt=0`, { token: employee.token });

    expect(read.body.map((line) => line.message)).toEqual(["visible"]);
    expect(unknown.status).toBe(404);
    expect(badLevel.status).toBe(422);
    expect(badLevel.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ["query", "attempt"],
      ["query", "level"],
    ]);
  });
});

describe("progress", () => {
  it("when a heartbeat carries progress, then the job record shows it; an omitted field is null; a heartbeat without it leaves it", async () => {
    const { workerKey, jobId } = await runningJob();

    await hub.client.post(`/jobs/${jobId}/heartbeat`, { progress: { percent: 40, message: "reading rows" } }, { workerKey });
    const first = (await readJob(hub, jobId)).progress;
    await hub.client.post(`/jobs/${jobId}/heartbeat`, {}, { workerKey });
    const unchanged = (await readJob(hub, jobId)).progress;
    await hub.client.post(`/jobs/${jobId}/heartbeat`, { progress: { percent: 75.5 } }, { workerKey });
    const replaced = (await readJob(hub, jobId)).progress;

    expect(first).toEqual({ percent: 40, message: "reading rows", updated_at: expect.stringMatching(/Z$/) });
    expect(unchanged).toEqual(first);
    expect(replaced).toEqual({ percent: 75.5, message: null, updated_at: expect.any(String) });
  });

  it("when the job is queued again, then its progress is null", async () => {
    const { workerKey, jobId } = await runningJob();
    await hub.client.post(`/jobs/${jobId}/heartbeat`, { progress: { percent: 10 } }, { workerKey });

    const failed = await hub.client.post<any>(`/jobs/${jobId}/fail`, { error: "try again", retryable: true }, { workerKey });

    expect(failed.body.status).toBe("queued");
    expect(failed.body.progress).toBeNull();
    expect((await readJob(hub, jobId)).progress).toBeNull();
  });

  it("when progress is out of range, then 422 and the progress stays", async () => {
    const { workerKey, jobId } = await runningJob();

    const result = await hub.client.post<any>(`/jobs/${jobId}/heartbeat`, { progress: { percent: 101, message: "x".repeat(501) } }, { workerKey });

    expect(result.status).toBe(422);
    expect(result.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ["body", "progress", "percent"],
      ["body", "progress", "message"],
    ]);
    expect((await readJob(hub, jobId)).progress).toBeNull();
  });
});

describe("a worker call's 409", () => {
  it("when heartbeat, complete or fail is refused, then the body carries the job's status now", async () => {
    const { workerKey, jobId } = await runningJob();
    await hub.client.post(`/jobs/${jobId}/complete`, { result: {} }, { workerKey });

    const heartbeat = await hub.client.post<any>(`/jobs/${jobId}/heartbeat`, {}, { workerKey });
    const complete = await hub.client.post<any>(`/jobs/${jobId}/complete`, { result: {} }, { workerKey });
    const fail = await hub.client.post<any>(`/jobs/${jobId}/fail`, { error: "x" }, { workerKey });

    expect([heartbeat.status, complete.status, fail.status]).toEqual([409, 409, 409]);
    for (const refused of [heartbeat, complete, fail]) expect(refused.body).toEqual({ detail: expect.any(String), status: "completed" });
  });
});
