/**
 * Job logs, progress and live control (CONTRACT §6.12) through createWorker and hub-worker,
 * against the real API (in-process, with a dispatcher) on real PostgreSQL and Redis.
 *
 * The lease is long (60 s: a heartbeat every 20 s), so what a test sees within a few seconds —
 * a progress report, an aborted handler — came through the prompt paths (an early heartbeat, the
 * signals stream), never through a periodic heartbeat.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createWorker, JobAbortedError, MAX_LOG_LINE_LENGTH, type WorkerEvent, type WorkerOptions } from "../src/index";
import { keyFile, startCli, type CliProcess } from "./cli-process";
import {
  capturingLogger,
  createJob,
  newAutomation,
  readJob,
  signalled,
  sleep,
  startFaultProxy,
  startHubWithDispatcher,
  waitFor,
  type DispatchingHub,
  type FaultProxy,
} from "./support";

let hub: DispatchingHub;
const log = capturingLogger();
const proxies: FaultProxy[] = [];
const clis: CliProcess[] = [];
const cleanUps: Array<() => void> = [];

beforeAll(async () => {
  hub = await startHubWithDispatcher({ HUB_JOB_LEASE_SECONDS: "60" });
});

afterEach(async () => {
  for (const cli of clis.splice(0)) cli.kill();
  for (const cleanUp of cleanUps.splice(0)) cleanUp();
  for (const proxy of proxies.splice(0)) await proxy.close();
});

afterAll(async () => {
  await hub?.stop();
});

interface StoredLine {
  seq: number;
  ts: string;
  level: string;
  message: string;
  attempt: number;
}

async function storedLines(jobId: string): Promise<StoredLine[]> {
  const answer = await hub.client.get<StoredLine[]>(`/jobs/${jobId}/logs?limit=1000`, { token: hub.adminToken });
  expect(answer.status).toBe(200);
  return answer.body;
}

async function proxied(): Promise<FaultProxy> {
  const proxy = await startFaultProxy(hub.api.url);
  proxies.push(proxy);
  return proxy;
}

/** A worker on a new automation, through `url` (default: the hub itself); its log lines go to `log`. */
async function newWorker(options: Omit<WorkerOptions, "url" | "apiKey" | "logger"> & { url?: string }, automation: Record<string, unknown> = {}) {
  const { automationId, workerKey } = await newAutomation(hub, automation);
  const worker = createWorker({ url: hub.api.url, apiKey: workerKey, logger: log.logger, handleSignals: false, waitSeconds: 1, ...options });
  return { automationId, workerKey, worker };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("job.log and job.progress", () => {
  it("when a handler logs lines, then they are stored in the order written, with their levels and attempt, before the job completes; a long line is split", async () => {
    const long = "x".repeat(MAX_LOG_LINE_LENGTH + 100);
    const { automationId, worker } = await newWorker({
      handler: async (job) => {
        for (let index = 0; index < 25; index += 1) {
          job.log(index % 5 === 0 ? "warn" : "info", `step ${index}`);
          if (index % 10 === 0) await sleep(200);
        }
        job.log("debug", long);
        job.log("error", "last words");
        return { done: true };
      },
      onEvent: (event) => event.type === "completed" && void worker.stop(),
    });
    const jobId = await createJob(hub, automationId);

    await worker.run();

    // Read right after the completion: the lines went first.
    const lines = await storedLines(jobId);
    expect(lines.map((line) => line.message)).toEqual([
      ...Array.from({ length: 25 }, (_, index) => `step ${index}`),
      "x".repeat(MAX_LOG_LINE_LENGTH),
      "x".repeat(100),
      "last words",
    ]);
    expect(lines.map((line) => line.level).slice(0, 6)).toEqual(["warn", "info", "info", "info", "info", "warn"]);
    expect(lines.at(-1)).toMatchObject({ level: "error", attempt: 1 });
    expect(lines.map((line) => line.seq)).toEqual([...lines.map((line) => line.seq)].sort((a, b) => a - b));
    expect(new Set(lines.map((line) => line.attempt))).toEqual(new Set([1]));
    expect(worker.droppedLogLines).toBe(0);
    expect(await readJob(hub, jobId)).toMatchObject({ status: "completed", result: { done: true } });
  });

  it("when a handler reports progress, then the job record shows it while the handler still works, long before a periodic heartbeat", async () => {
    const release = signalled();
    const { automationId, worker } = await newWorker({
      handler: async (job) => {
        job.progress(40, "exported 40 of 100 invoices");
        await release.promise;
        return {};
      },
      onEvent: (event) => event.type === "completed" && void worker.stop(),
    });
    const jobId = await createJob(hub, automationId);
    const running = worker.run();

    await waitFor(async () => (await readJob(hub, jobId)).progress?.percent === 40, { timeoutMs: 10_000 });
    expect((await readJob(hub, jobId)).progress).toMatchObject({ percent: 40, message: "exported 40 of 100 invoices" });
    release.resolve();
    await running;
  });

  it("when the hub cannot take log lines, then lines beyond the buffer are dropped and counted, told once, and the buffered ones arrive once it is back", async () => {
    const proxy = await proxied();
    const logsPath = /^\/jobs\/[^/]+\/logs$/;
    const linesBefore = log.lines.length;
    // Room for 10 lines of "line NNN" (the JSON string and 64 bytes of overhead each).
    const lineBytes = JSON.stringify("line 000").length + 64;
    const { automationId, worker } = await newWorker({
      url: proxy.url,
      maxBufferedLogBytes: 10 * lineBytes,
      handler: async (job) => {
        for (let index = 0; index < 5; index += 1) job.log("info", `line ${String(index).padStart(3, "0")}`);
        while (!proxy.requests.some((request) => logsPath.test(request.path) && request.answeredStatus === 503)) await sleep(50);
        for (let index = 5; index < 100; index += 1) job.log("info", `line ${String(index).padStart(3, "0")}`);
        proxy.outage = undefined;
        return {};
      },
      onEvent: (event) => event.type === "completed" && void worker.stop(),
    });
    proxy.outage = { paths: logsPath, retryAfterSeconds: 1 };
    const jobId = await createJob(hub, automationId);

    await worker.run();

    expect(worker.droppedLogLines).toBe(90);
    expect((await storedLines(jobId)).map((line) => line.message)).toEqual(Array.from({ length: 10 }, (_, index) => `line ${String(index).padStart(3, "0")}`));
    const told = log.lines.slice(linesBefore).map((line) => JSON.parse(line) as { msg: string; dropped?: number });
    expect(told.filter((line) => line.msg.startsWith("log lines dropped"))).toHaveLength(1);
    expect(told.find((line) => line.msg === "log lines reach the hub again")).toMatchObject({ dropped: 90 });
    expect(await readJob(hub, jobId)).toMatchObject({ status: "completed" });
  });
});

describe("cancel while a job runs", () => {
  it("when a running job is cancelled, then the signals stream aborts its handler (no heartbeat was needed) and nothing is reported", async () => {
    const proxy = await proxied();
    const events: WorkerEvent[] = [];
    const started = signalled<string>();
    let reason: unknown;
    const signalsOpen = signalled();
    const { automationId, worker } = await newWorker({
      url: proxy.url,
      onEvent: (event) => (event.type === "signals_connected" ? signalsOpen.resolve() : events.push(event)),
      handler: async (job, { signal }) => {
        started.resolve(job.id);
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
        reason = signal.reason;
        void worker.stop();
        return { never: "reported" };
      },
    });
    const jobId = await createJob(hub, automationId);
    const running = worker.run();
    await started.promise;
    // A cancel before the stream is open would wait for a heartbeat.
    await signalsOpen.promise;

    expect((await hub.client.post(`/jobs/${jobId}/cancel`, undefined, { token: hub.adminToken })).status).toBe(200);
    await running;

    expect(reason).toBeInstanceOf(JobAbortedError);
    expect(reason).toMatchObject({ why: "lease_lost", hubReason: "cancelled_by_user" });
    expect(events.map((event) => event.type)).toEqual(["claimed", "lease_lost"]);
    expect(events[1]).toMatchObject({ during: "signal", reason: "cancelled_by_user" });
    expect(proxy.requests.filter((request) => request.path.endsWith("/heartbeat"))).toEqual([]);
    expect(await readJob(hub, jobId)).toMatchObject({ status: "cancelled", result: null });
  });

  it("when the signals stream is unavailable and the job is cancelled, then the next refused log batch (409, status cancelled) aborts the handler", async () => {
    const proxy = await proxied();
    proxy.outage = { paths: /^\/workers\/me\/signals$/, retryAfterSeconds: 60 };
    const events: WorkerEvent[] = [];
    const started = signalled<string>();
    let reason: unknown;
    const { automationId, worker } = await newWorker({
      url: proxy.url,
      onEvent: (event) => event.type !== "signals_connected" && events.push(event),
      handler: async (job, { signal }) => {
        started.resolve(job.id);
        for (let tick = 0; !signal.aborted; tick += 1) {
          job.log("info", `tick ${tick}`);
          await sleep(100);
        }
        reason = signal.reason;
        void worker.stop();
        return { never: "reported" };
      },
    });
    const jobId = await createJob(hub, automationId);
    const running = worker.run();
    await started.promise;
    // Lines flow while the job runs.
    await waitFor(async () => (await storedLines(jobId)).length > 0);

    expect((await hub.client.post(`/jobs/${jobId}/cancel`, undefined, { token: hub.adminToken })).status).toBe(200);
    await running;

    expect(reason).toMatchObject({ why: "lease_lost", hubReason: "cancelled" });
    expect(events.find((event) => event.type === "lease_lost")).toMatchObject({ during: "logs", reason: "cancelled" });
    expect(await readJob(hub, jobId)).toMatchObject({ status: "cancelled" });
  });

  it("when the signals stream is refused with 429, then the worker asks again no sooner than Retry-After, and works jobs meanwhile", async () => {
    const proxy = await proxied();
    proxy.outage = { paths: /^\/workers\/me\/signals$/, retryAfterSeconds: 1, status: 429 };
    const signalsRequests = () => proxy.requests.filter((request) => request.path === "/workers/me/signals");
    const { automationId, worker } = await newWorker({
      url: proxy.url,
      // The job is worked while the stream is refused, and ends once the worker asked again.
      handler: async () => {
        while (signalsRequests().length < 2) await sleep(50);
        return { worked: true };
      },
      onEvent: (event) => event.type === "completed" && void worker.stop(),
    });
    const jobId = await createJob(hub, automationId);

    await worker.run();

    const [first, second] = signalsRequests();
    expect(second!.atMs - first!.atMs).toBeGreaterThanOrEqual(1000);
    expect(await readJob(hub, jobId)).toMatchObject({ status: "completed", result: { worked: true } });
  });
});

describe("offline on drain", () => {
  it("when the worker stops gracefully, then it closes its signals stream, calls POST /workers/me/offline, and the hub shows it stopped at once", async () => {
    const proxy = await proxied();
    const { automationId, worker } = await newWorker({
      url: proxy.url,
      handler: async () => ({}),
      onEvent: (event) => event.type === "completed" && void worker.stop(),
    });
    const workerStatus = async () =>
      (await hub.client.get<{ worker: { status: string } | null }>(`/automations/${automationId}`, { token: hub.adminToken })).body.worker?.status;
    const jobId = await createJob(hub, automationId);
    const running = worker.run();
    await waitFor(async () => (await readJob(hub, jobId)).status === "completed");
    expect(await workerStatus()).toBe("running");

    await running;

    expect(proxy.requests.filter((request) => request.path === "/workers/me/offline")).toHaveLength(1);
    expect(await workerStatus()).toBe("stopped");
    const changes = await hub.client.get<Array<{ payload: { to: string } }>>(`/events?aggregate_id=${automationId}&event_type=worker.status_changed`, {
      token: hub.adminToken,
    });
    expect(changes.body.map((event) => event.payload.to)).toContain("stopped");
  });
});

describe("hub-worker logs, progress and cancel", () => {
  async function runCli(command: string[], options: string[] = []) {
    const { automationId, workerKey } = await newAutomation(hub);
    const key = keyFile(workerKey);
    cleanUps.push(key.remove);
    const cli = startCli(["--url", hub.api.url, "--api-key-file", key.path, "--wait", "1", ...options, "--", ...command]);
    clis.push(cli);
    await cli.waitForLog("worker started");
    return { automationId, cli };
  }

  function scratchDir(): string {
    const dir = mkdtempSync(path.join(tmpdir(), "hub-worker-logs-"));
    cleanUps.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  it("when the command writes stderr lines and ::progress lines, then the lines are the job's log while it runs (::warn sets a level), the progress its progress, and a failure keeps stderr's end without the progress lines", async () => {
    const dir = scratchDir();
    const script = [
      "echo 'connecting to the ledger' >&2",
      "echo '::warn the ledger is slow today' >&2",
      "echo '::progress 50 half way there' >&2",
      `while [ ! -f ${dir}/go ]; do sleep 0.1; done`,
      `printf '%0${MAX_LOG_LINE_LENGTH + 8}d\\n' 0 >&2`,
      "echo 'the ledger refused the export' >&2",
      "exit 3",
    ].join("\n");
    const { automationId } = await runCli(["sh", "-c", script]);
    const jobId = await createJob(hub, automationId);

    await waitFor(async () => (await readJob(hub, jobId)).progress?.percent === 50, { timeoutMs: 15_000 });
    await waitFor(async () => (await storedLines(jobId)).length === 2, { timeoutMs: 15_000 });
    expect((await readJob(hub, jobId)).progress).toMatchObject({ percent: 50, message: "half way there" });
    expect(await storedLines(jobId)).toMatchObject([
      { level: "info", message: "connecting to the ledger", attempt: 1 },
      { level: "warn", message: "the ledger is slow today", attempt: 1 },
    ]);
    writeFileSync(path.join(dir, "go"), "");
    await waitFor(async () => (await readJob(hub, jobId)).status === "failed", { timeoutMs: 15_000 });

    expect((await storedLines(jobId)).map((line) => line.message)).toEqual([
      "connecting to the ledger",
      "the ledger is slow today",
      "0".repeat(MAX_LOG_LINE_LENGTH),
      "0".repeat(8),
      "the ledger refused the export",
    ]);
    const failed = await readJob(hub, jobId);
    expect(failed.error).toMatch(/^the command exited with 3: .*0{8}\nthe ledger refused the export$/s);
    expect(failed.error).not.toContain("::progress");
  });

  it("when a job is cancelled and its command ignores SIGTERM, then the command gets SIGTERM at once and SIGKILL after --kill-after", async () => {
    const dir = scratchDir();
    const pidFile = path.join(dir, "command.pid");
    const script = [`trap 'echo "SIGTERM ignored" >&2' TERM`, `echo $$ > ${pidFile}`, "while true; do sleep 0.2; done"].join("\n");
    const { automationId, cli } = await runCli(["sh", "-c", script], ["--kill-after", "3"]);
    const jobId = await createJob(hub, automationId);
    await waitFor(async () => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
    const commandPid = Number(readFileSync(pidFile, "utf8"));

    expect((await hub.client.post(`/jobs/${jobId}/cancel`, undefined, { token: hub.adminToken })).status).toBe(200);

    await waitFor(async () => cli.stderr().includes("SIGTERM ignored"), { timeoutMs: 10_000 });
    expect(isAlive(commandPid)).toBe(true);
    await waitFor(async () => !isAlive(commandPid), { timeoutMs: 15_000 });
    await cli.waitForLog("job taken back by the hub (cancelled or lease lapsed); work dropped");
    expect(cli.logs().find((line) => line.msg === "job taken back by the hub (cancelled or lease lapsed); work dropped")).toMatchObject({
      during: "signal",
      reason: "cancelled_by_user",
    });
    expect(await readJob(hub, jobId)).toMatchObject({ status: "cancelled", result: null });
  });
  it("when hub-worker is SIGKILLed mid-job, then the lines it sent stay readable, through the job's end", async () => {
    const dir = scratchDir();
    const pidFile = path.join(dir, "command.pid");
    const script = [
      `echo $$ > ${pidFile}`,
      "echo 'exporting 120 invoices' >&2",
      "echo '::warn invoice 17 has no customer' >&2",
      "while true; do sleep 0.2; done",
    ].join("\n");
    const { automationId, cli } = await runCli(["sh", "-c", script]);
    const jobId = await createJob(hub, automationId);
    await waitFor(async () => (await storedLines(jobId)).length === 2, { timeoutMs: 15_000 });
    const commandPid = Number(readFileSync(pidFile, "utf8"));
    // The command outlives its killed worker (as on a real machine); the test ends it.
    cleanUps.push(() => isAlive(commandPid) && process.kill(commandPid, "SIGKILL"));

    cli.kill();
    expect((await hub.client.post(`/jobs/${jobId}/cancel`, undefined, { token: hub.adminToken })).status).toBe(200);

    expect(await storedLines(jobId)).toMatchObject([
      { level: "info", message: "exporting 120 invoices", attempt: 1 },
      { level: "warn", message: "invoice 17 has no customer", attempt: 1 },
    ]);
    expect(await readJob(hub, jobId)).toMatchObject({ status: "cancelled" });
  });
});
