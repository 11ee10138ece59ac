/**
 * hub-worker as a user runs it (a child process) against the real API (in this process, with a
 * dispatcher) on real PostgreSQL and Redis, running the examples' Python and shell workers and
 * small sh commands.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ABANDONED_AT_SHUTDOWN } from "../src/index";
import { keyFile, REPO_ROOT, startCli, type CliProcess } from "./cli-process";
import { createJob, newAutomation, readJob, waitFor, type DispatchingHub, startHubWithDispatcher } from "./support";

const LEASE_SECONDS = 3;
let hub: DispatchingHub;
const started: CliProcess[] = [];
const cleanUps: Array<() => void> = [];

beforeAll(async () => {
  hub = await startHubWithDispatcher({ HUB_JOB_LEASE_SECONDS: String(LEASE_SECONDS), HUB_JOB_MAX_ATTEMPTS: "2" });
});

afterEach(() => {
  for (const cli of started.splice(0)) cli.kill();
  for (const cleanUp of cleanUps.splice(0)) cleanUp();
});

afterAll(async () => {
  await hub?.stop();
});

/** hub-worker for a new automation, running `command`. */
async function runCli(command: string[], options: string[] = [], automation: Record<string, unknown> = {}) {
  const { automationId, workerKey } = await newAutomation(hub, automation);
  const key = keyFile(workerKey);
  cleanUps.push(key.remove);
  const cli = startCli(["--url", hub.api.url, "--api-key-file", key.path, "--wait", "1", ...options, "--", ...command]);
  started.push(cli);
  await cli.waitForLog("worker started");
  return { automationId, workerKey, cli };
}

async function settled(jobId: string, statuses: string[] = ["completed", "failed"]): Promise<any> {
  await waitFor(async () => statuses.includes((await readJob(hub, jobId)).status), { timeoutMs: 30_000 });
  return readJob(hub, jobId);
}

describe("hub-worker running the Python example", () => {
  it("when jobs arrive, then exit 0 completes with stdout's JSON, exit 1 fails with stderr's end, exit 75 retries, and SIGTERM stops it with exit 0", async () => {
    const { automationId, workerKey, cli } = await runCli(["python3", "examples/python-worker/worker.py"], ["--concurrency", "2"], { max_attempts: 2 });
    const february = await createJob(hub, automationId, hub.adminToken, { month: "2026-02" });
    const october = await createJob(hub, automationId, hub.adminToken, { month: "October" });
    const busy = await createJob(hub, automationId, hub.adminToken, { month: "2026-10", simulate: "busy" });
    // What the README's schedule sends: the month the job runs in.
    const monthBefore = new Date().toISOString().slice(0, 7);
    const current = await createJob(hub, automationId, hub.adminToken, { month: "current" });

    expect(await settled(february)).toMatchObject({ status: "completed", result: { month: "2026-02", days: 28, job_id: february } });
    const currentJob = await settled(current);
    expect(currentJob).toMatchObject({ status: "completed", result: { job_id: current } });
    expect([monthBefore, new Date().toISOString().slice(0, 7)]).toContain(currentJob.result.month);
    expect(await settled(october)).toMatchObject({
      status: "failed",
      attempts: 1,
      error: "the command exited with 1: month must look like 2026-10, not 'October'",
    });
    expect(await settled(busy)).toMatchObject({
      status: "failed",
      attempts: 2,
      error: "the command exited with 75 (temporary failure): the ledger is locked by another export; try again later",
    });
    const requeued = await hub.client.get(`/events?aggregate_id=${busy}&event_type=job.requeued`, { token: hub.adminToken });
    expect(requeued.body).toHaveLength(1);

    cli.child.kill("SIGTERM");
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(cli.stderr()).toContain(`[job ${february}] exporting 2026-02 for job ${february}`);
    expect(`${cli.stderr()}${JSON.stringify(cli.logs())}`).not.toContain(workerKey);
  });
});

describe("hub-worker running the shell example", () => {
  it("when a job arrives, then the script's stdout line is its result", async () => {
    const { automationId } = await runCli(["sh", "examples/shell-worker/worker.sh"]);
    const context = { host: "db-1" };
    const jobId = await createJob(hub, automationId, hub.adminToken, context);

    const job = await settled(jobId);

    expect(job).toMatchObject({ status: "completed", result: { job_id: jobId, context_bytes: JSON.stringify(context).length } });
  });
});

describe("hub-worker leases and time limits", () => {
  it("when a command runs longer than the lease, then heartbeats keep the job and it completes on its first attempt", async () => {
    const { automationId } = await runCli(["sh", "-c", `sleep ${LEASE_SECONDS * 2}; echo '{"slept":true}'`]);
    const jobId = await createJob(hub, automationId);

    expect(await settled(jobId)).toMatchObject({ status: "completed", attempts: 1, result: { slept: true } });
  });

  it("when a command outlives --timeout, then it is killed and its job failed as retryable", async () => {
    const { automationId } = await runCli(["sh", "-c", "echo 'still busy' >&2; sleep 60"], ["--timeout", "1"], { max_attempts: 2 });
    const jobId = await createJob(hub, automationId);

    const job = await settled(jobId);

    expect(job).toMatchObject({ status: "failed", attempts: 2, error: "the command timed out after 1 s and was killed: still busy" });
  });
});

describe("hub-worker shutdown", () => {
  it("when SIGTERM arrives while a command runs, then it claims no more, the command finishes and is reported, and hub-worker exits 0", async () => {
    const { automationId, cli } = await runCli(["sh", "-c", "sleep 1; echo '{\"finished\":true}'"]);
    const first = await createJob(hub, automationId);
    await cli.waitForLog("job claimed");
    const second = await createJob(hub, automationId);

    cli.child.kill("SIGTERM");

    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(await readJob(hub, first)).toMatchObject({ status: "completed", result: { finished: true } });
    expect(await readJob(hub, second)).toMatchObject({ status: "queued", attempts: 0 });
  });

  it("when a command outlives --shutdown-timeout, then it is killed, its job is failed as retryable, and hub-worker exits 0", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "hub-worker-pid-"));
    cleanUps.push(() => rmSync(dir, { recursive: true, force: true }));
    const pidFile = path.join(dir, "command.pid");
    const { automationId, cli } = await runCli(["sh", "-c", `echo $$ > ${pidFile}; exec sleep 60`], ["--shutdown-timeout", "1"], { max_attempts: 3 });
    const jobId = await createJob(hub, automationId);
    await cli.waitForLog("job claimed");
    await waitFor(async () => readFileSync(pidFile, { flag: "a+" }).toString().trim() !== "");
    const commandPid = Number(readFileSync(pidFile, "utf8"));

    cli.child.kill("SIGTERM");

    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(await readJob(hub, jobId)).toMatchObject({ status: "queued", attempts: 1, error: ABANDONED_AT_SHUTDOWN });
    await waitFor(async () => !isAlive(commandPid), { timeoutMs: 10_000 });
  });
});

describe("hub-worker command line", () => {
  it("when the command after -- is missing, then it exits 2 with the usage", async () => {
    const cli = startCli(["--url", "http://127.0.0.1:9", "--api-key-file", "/nonexistent"]);
    started.push(cli);

    expect(await cli.exited).toEqual({ code: 2, signal: null });
    expect(cli.stderr()).toContain("give the command to run after --");
    expect(cli.stderr()).toContain("Usage: hub-worker");
  });

  it("when the api key file cannot be read, then it exits 2 naming the file", async () => {
    const cli = startCli(["--url", "http://127.0.0.1:9", "--api-key-file", path.join(REPO_ROOT, "no-such.key"), "--", "true"]);
    started.push(cli);

    expect(await cli.exited).toEqual({ code: 2, signal: null });
    expect(cli.stderr()).toContain("cannot read the api key file");
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
