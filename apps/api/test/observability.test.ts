/**
 * What an operator relies on to watch the hub (CONTRACT §6.1): /metrics behind HUB_METRICS_TOKEN,
 * and request log lines that name the caller and the job or automation each request touched.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadApiEnv } from "../src/env";
import { createAutomationWithWorker, useHubWithDispatcher } from "./job-fixtures";
import { startLoggedCopy, type LoggedCopy } from "./logged-copy";
import { expectNoSecrets } from "./secrets";

const METRICS_TOKEN = "metrics-token-for-tests-0123456789";

const hub = useHubWithDispatcher({ HUB_METRICS_TOKEN: METRICS_TOKEN });
/** The same API logging into `logLines`. */
let logged: LoggedCopy;
let logLines: string[];

beforeAll(async () => {
  logged = await startLoggedCopy(hub.api.ctx);
  logLines = logged.lines;
});
afterAll(async () => {
  await logged?.close();
});

describe("GET /metrics with HUB_METRICS_TOKEN set", () => {
  it("when the scrape carries no token, a wrong one, a user's token or a worker key, then 401 with WWW-Authenticate: Bearer", async () => {
    const subject = await createAutomationWithWorker(hub);
    const attempts = [
      {},
      { token: `${METRICS_TOKEN}x` },
      { token: METRICS_TOKEN.slice(0, -1) },
      { token: hub.adminToken },
      { workerKey: subject.workerKey },
      { headers: { authorization: `Basic ${Buffer.from(`metrics:${METRICS_TOKEN}`).toString("base64")}` } },
    ];

    for (const options of attempts) {
      const result = await hub.client.get("/metrics", options);
      expect(result.status).toBe(401);
      expect(result.body).toEqual({ detail: expect.any(String) });
      expect(result.headers.get("www-authenticate")).toBe("Bearer");
      expect(JSON.stringify(result.body)).not.toContain("hub_http_request_duration_seconds");
    }
  });

  it("when the scrape carries Bearer <HUB_METRICS_TOKEN>, then the Prometheus text", async () => {
    const result = await hub.client.get("/metrics", { token: METRICS_TOKEN });

    expect(result.status).toBe(200);
    expect(result.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(String(result.body)).toContain("hub_http_request_duration_seconds");
  });

  it("when HUB_METRICS_TOKEN is set but shorter than 16 characters, then start-up fails naming the variable", () => {
    // The hub's own settings, as the process environment holds them (strings), with a short token.
    const source = Object.fromEntries(Object.entries(hub.env).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]])));
    expect(() => loadApiEnv({ ...source, HUB_METRICS_TOKEN: "short" })).toThrow(/HUB_METRICS_TOKEN/);
  });
});

describe("request log lines", () => {
  interface RequestLine {
    msg: string;
    req?: { method: string; url: string };
    res?: { statusCode: number };
    responseTime?: number;
    user_id?: string;
    worker_id?: string;
    automation_id?: string;
    job_id?: string;
  }
  const requestLines = (): RequestLine[] =>
    logLines.map((line) => JSON.parse(line) as RequestLine).filter((line) => line.req !== undefined && line.res !== undefined);
  const linesOfJob = (jobId: string) => requestLines().filter((line) => line.job_id === jobId);

  it("when a job is created, claimed and completed, then every request of its life is one line naming the caller, the job, the status and the duration", async () => {
    const subject = await createAutomationWithWorker(hub);
    const employee = await hub.createUser("employee");
    logLines.length = 0;

    const created = await logged.client.post("/jobs", { automation_id: subject.automationId, context: {} }, { token: employee.token });
    const jobId = created.body.id as string;
    const claimed = await logged.client.post("/jobs/claim", { wait_seconds: 10 }, { workerKey: subject.workerKey });
    await logged.client.post(`/jobs/${jobId}/heartbeat`, {}, { workerKey: subject.workerKey });
    await logged.client.post(`/jobs/${jobId}/complete`, { result: { secret_result: "s3cr3t-value" } }, { workerKey: subject.workerKey });
    await logged.client.get(`/jobs/${jobId}`, { token: employee.token });
    await logged.client.post(`/jobs/${jobId}/complete`, { result: {} }, { workerKey: subject.workerKey });

    expect(created.status).toBe(201);
    expect(claimed.body.id).toBe(jobId);
    const lines = linesOfJob(jobId);
    expect(lines.map((line) => `${line.req?.method} ${line.req?.url} ${line.res?.statusCode}`)).toEqual([
      "POST /jobs 201",
      "POST /jobs/claim 200",
      `POST /jobs/${jobId}/heartbeat 200`,
      `POST /jobs/${jobId}/complete 200`,
      `GET /jobs/${jobId} 200`,
      `POST /jobs/${jobId}/complete 409`,
    ]);
    const [create, claim] = lines;
    expect(create).toMatchObject({ user_id: employee.id, automation_id: subject.automationId, job_id: jobId });
    expect(create?.worker_id).toBeUndefined();
    for (const workerLine of lines.filter((line) => line.req?.url !== "/jobs" && line.req?.method === "POST")) {
      expect(workerLine).toMatchObject({ worker_id: subject.workerId, automation_id: subject.automationId, job_id: jobId });
      expect(workerLine.user_id).toBeUndefined();
    }
    expect(claim?.worker_id).toBe(subject.workerId);
    for (const line of lines) expect(line.responseTime).toEqual(expect.any(Number));
    expectNoSecrets(logLines.join(""), [employee.token, employee.password, subject.workerKey, "s3cr3t-value"]);
  });

  it("when an idle worker's claim finds nothing, then its line is at debug, not info; a claim that gets a job stays at info", async () => {
    const subject = await createAutomationWithWorker(hub);
    logLines.length = 0;

    const idle = await logged.client.post("/jobs/claim", { wait_seconds: 0 }, { workerKey: subject.workerKey });
    const idleBatch = await logged.client.post("/jobs/claim-batch", { max_jobs: 5, wait_seconds: 0 }, { workerKey: subject.workerKey });

    expect([idle.status, idleBatch.status]).toEqual([204, 204]);
    expect(requestLines().filter((line) => line.worker_id === subject.workerId)).toEqual([]);
  });

  it("when an admin acts on an automation, then its line names the admin and the automation", async () => {
    const subject = await createAutomationWithWorker(hub);
    const adminId = (await hub.client.get("/identity/me", { token: hub.adminToken })).body.id as string;
    logLines.length = 0;

    await logged.client.post(`/automations/${subject.automationId}/development-mode`, undefined, { token: hub.adminToken });

    expect(requestLines()).toEqual([
      expect.objectContaining({ msg: "request completed", user_id: adminId, automation_id: subject.automationId, res: { statusCode: 204 } }),
    ]);
  });
});
