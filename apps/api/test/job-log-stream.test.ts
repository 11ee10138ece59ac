/**
 * GET /jobs/{job_id}/logs/stream (CONTRACT §6.12): stored lines, then progress once, then live
 * lines accepted by any API process, progress changes and `end`; exact resume with Last-Event-ID,
 * across an API restart too.
 */
import { afterAll, describe, expect, it } from "vitest";
import { startApi, type RunningApi } from "../src/app";
import { SseClient } from "./event-stream-fixtures";
import { claim, createAutomationWithWorker, queueJobs, useHubWithDispatcher, type AutomationWithWorker } from "./job-fixtures";

const hub = useHubWithDispatcher();
const streams: SseClient[] = [];

afterAll(() => {
  for (const stream of streams) stream.close();
});

async function runningJob(): Promise<AutomationWithWorker & { jobId: string }> {
  const subject = await createAutomationWithWorker(hub);
  const [jobId] = await queueJobs(hub, subject.automationId, 1);
  const claimed = await claim(hub, subject.workerKey, 5);
  if (claimed.status !== 200 || claimed.body.id !== jobId) throw new Error(`could not claim ${jobId}: ${claimed.status}`);
  return { ...subject, jobId: jobId! };
}

async function sendLines(workerKey: string, jobId: string, messages: string[]): Promise<void> {
  const sent = await hub.client.post(`/jobs/${jobId}/logs`, { lines: messages.map((message) => ({ message })) }, { workerKey });
  if (sent.status !== 200) throw new Error(`logs not sent: ${sent.status} ${JSON.stringify(sent.body)}`);
}

async function follow(jobId: string, options: { query?: string; lastEventId?: string; baseUrl?: string } = {}): Promise<SseClient> {
  const stream = await SseClient.open(options.baseUrl ?? hub.api.url, { token: hub.adminToken, path: `/jobs/${jobId}/logs/stream`, ...options });
  streams.push(stream);
  return stream;
}

const lines = (stream: SseClient) => stream.messages.filter((message) => message.event === "message").map((message) => JSON.parse(message.data));
const messagesOf = (stream: SseClient) => lines(stream).map((line) => line.message as string);

describe("GET /jobs/{job_id}/logs/stream", () => {
  it("when followed, then the stored lines come with id = seq, the progress once, then new lines and progress changes, and end closes the stream", async () => {
    const { workerKey, jobId } = await runningJob();
    await sendLines(workerKey, jobId, ["one", "two"]);
    await hub.client.post(`/jobs/${jobId}/heartbeat`, { progress: { percent: 10, message: "started" } }, { workerKey });

    const stream = await follow(jobId);
    await stream.waitFor("the stored lines and the progress", (client) => client.messages.length >= 3);
    await sendLines(workerKey, jobId, ["three"]);
    await stream.waitFor("the new line", (client) => messagesOf(client).includes("three"));
    await hub.client.post(`/jobs/${jobId}/heartbeat`, { progress: { percent: 90 } }, { workerKey });
    await stream.waitFor("the new progress", (client) => client.messages.filter((message) => message.event === "progress").length === 2);
    await hub.client.post(`/jobs/${jobId}/complete`, { result: {} }, { workerKey });
    await stream.closed;

    expect(stream.messages.map((message) => message.event)).toEqual(["message", "message", "progress", "message", "progress", "end"]);
    expect(messagesOf(stream)).toEqual(["one", "two", "three"]);
    for (const message of stream.messages.filter((candidate) => candidate.event === "message")) expect(message.id).toBe(String(JSON.parse(message.data).seq));
    for (const message of stream.messages.filter((candidate) => candidate.event === "progress")) expect(message.id).toBeUndefined();
    expect(stream.messages[5]!.id).toBe("end");
    expect(JSON.parse(stream.messages[2]!.data)).toEqual({ percent: 10, message: "started", updated_at: expect.any(String) });
    expect(JSON.parse(stream.messages[4]!.data)).toMatchObject({ percent: 90, message: null });
    expect(JSON.parse(stream.messages[5]!.data)).toEqual({ status: "completed" });
  });

  it("when resumed with Last-Event-ID, then only the lines after that seq come; a malformed one is read as absent", async () => {
    const { workerKey, jobId } = await runningJob();
    await sendLines(workerKey, jobId, ["a", "b", "c"]);
    const first = await follow(jobId);
    await first.waitFor("three lines", (client) => lines(client).length === 3);
    first.close();

    const resumed = await follow(jobId, { lastEventId: first.messages[0]!.id });
    const malformed = await follow(jobId, { lastEventId: "not-a-seq" });
    await resumed.waitFor("the rest", (client) => lines(client).length === 2);
    await malformed.waitFor("everything", (client) => lines(client).length === 3);

    expect(messagesOf(resumed)).toEqual(["b", "c"]);
    expect(messagesOf(malformed)).toEqual(["a", "b", "c"]);
  });

  it("when filtered by level, then only that level and above, and no progress is sent while there is none", async () => {
    const { workerKey, jobId } = await runningJob();
    await hub.client.post(
      `/jobs/${jobId}/logs`,
      { lines: [{ message: "d", level: "debug" }, { message: "e", level: "error" }, { message: "i" }] },
      { workerKey },
    );

    const stream = await follow(jobId, { query: "level=warn" });
    await hub.client.post(`/jobs/${jobId}/logs`, { lines: [{ message: "w", level: "warn" }] }, { workerKey });
    await stream.waitFor("the warn line", (client) => messagesOf(client).includes("w"));

    expect(stream.messages.map((message) => [message.event, JSON.parse(message.data).message])).toEqual([
      ["message", "e"],
      ["message", "w"],
    ]);
  });

  it("when the job is queued again, then progress null is sent; when it is cancelled, then end {cancelled}", async () => {
    const { workerKey, jobId } = await runningJob();
    await hub.client.post(`/jobs/${jobId}/heartbeat`, { progress: { percent: 50 } }, { workerKey });
    const stream = await follow(jobId);
    await stream.waitFor("the progress", (client) => client.messages.length === 1);

    await hub.client.post(`/jobs/${jobId}/fail`, { error: "again", retryable: true }, { workerKey });
    await stream.waitFor("progress null", (client) => client.messages.length === 2);
    await hub.client.post(`/jobs/${jobId}/cancel`, undefined, { token: hub.adminToken });
    await stream.closed;

    expect(stream.messages.map((message) => [message.event, message.data])).toEqual([
      ["progress", expect.stringContaining('"percent":50')],
      ["progress", "null"],
      ["end", '{"status":"cancelled"}'],
    ]);
  });

  it("when the job is unknown, then 404; when the job already finished, then its lines and end, then the stream closes", async () => {
    const { workerKey, jobId } = await runningJob();
    await sendLines(workerKey, jobId, ["last words"]);
    await hub.client.post(`/jobs/${jobId}/complete`, { result: {} }, { workerKey });

    const unknown = await fetch(`${hub.api.url}/jobs/00000000-0000-4000-8000-000000000000/logs/stream`, {
      headers: { authorization: `Bearer ${hub.adminToken}` },
    });
    const stream = await follow(jobId);
    await stream.closed;

    expect(unknown.status).toBe(404);
    expect(stream.messages.map((message) => message.event)).toEqual(["message", "end"]);
  });

  it.each([
    [
      "completes",
      (subject: AutomationWithWorker & { jobId: string }) =>
        hub.client.post(`/jobs/${subject.jobId}/complete`, { result: {} }, { workerKey: subject.workerKey }),
      "completed",
    ],
    [
      "fails for good",
      (subject: AutomationWithWorker & { jobId: string }) =>
        hub.client.post(`/jobs/${subject.jobId}/fail`, { error: "exit code 3", retryable: false }, { workerKey: subject.workerKey }),
      "failed",
    ],
    [
      "is cancelled",
      (subject: AutomationWithWorker & { jobId: string }) => hub.client.post(`/jobs/${subject.jobId}/cancel`, undefined, { token: hub.adminToken }),
      "cancelled",
    ],
  ] as const)("when a followed job %s, then event: end with id: end comes within 1 s", async (_, finish, status) => {
    const subject = await runningJob();
    await sendLines(subject.workerKey, subject.jobId, ["working"]);
    const stream = await follow(subject.jobId);
    await stream.waitFor("the stored line", (client) => lines(client).length === 1);

    const finished = await finish(subject);
    const finishedAt = performance.now();
    await stream.closed;
    const endedAfterMs = performance.now() - finishedAt;

    expect(finished.status).toBe(200);
    expect(stream.messages.at(-1)).toEqual({ id: "end", event: "end", data: JSON.stringify({ status }) });
    expect(endedAfterMs).toBeLessThan(1000);
  });

  it("when a client that saw end reconnects with Last-Event-ID: end, then 204 with no body, whatever the job's status; 404 and 401 come first", async () => {
    const { workerKey, jobId } = await runningJob();
    const request = (id: string, headers: Record<string, string> = { authorization: `Bearer ${hub.adminToken}` }) =>
      fetch(`${hub.api.url}/jobs/${id}/logs/stream`, { headers: { ...headers, "last-event-id": "end" } });

    const whileRunning = await request(jobId);
    await hub.client.post(`/jobs/${jobId}/complete`, { result: {} }, { workerKey });
    const afterEnd = await request(jobId);
    const unknown = await request("00000000-0000-4000-8000-000000000000");
    const anonymous = await request(jobId, {});

    expect(whileRunning.status).toBe(204);
    expect(afterEnd.status).toBe(204);
    expect(await afterEnd.text()).toBe("");
    expect(unknown.status).toBe(404);
    expect(anonymous.status).toBe(401);
  });

  describe("across API processes", () => {
    let second: RunningApi | undefined;
    afterAll(async () => {
      await second?.stop();
    });

    it("when lines are accepted by another API process and the streaming process restarts, then a resume with Last-Event-ID gets every line once, in order", async () => {
      const { workerKey, jobId } = await runningJob();
      second = await startApi(hub.env);
      await sendLines(workerKey, jobId, ["0", "1"]);
      const before = await follow(jobId, { baseUrl: second.url });
      // Accepted by the first process, streamed by the second.
      await sendLines(workerKey, jobId, ["2", "3"]);
      await before.waitFor("lines from the other process", (client) => lines(client).length === 4);

      // Lines keep coming while the streaming process stops and its client reconnects elsewhere.
      const writing = (async () => {
        for (let batch = 0; batch < 10; batch += 1) await sendLines(workerKey, jobId, [`${4 + 2 * batch}`, `${5 + 2 * batch}`]);
      })();
      await second.stop();
      second = undefined;
      await before.closed;
      const lastId = before.messages.filter((message) => message.event === "message").at(-1)!.id!;
      const after = await follow(jobId, { lastEventId: lastId });
      await writing;
      await sendLines(workerKey, jobId, ["24"]);
      await after.waitFor("every line", (client) => messagesOf(client).includes("24"));

      const received = [...messagesOf(before), ...messagesOf(after)];
      expect(received).toEqual(Array.from({ length: 25 }, (_, index) => String(index)));
    });
  });
});
