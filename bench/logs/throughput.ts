/**
 * The logs mode on one fresh hub, with one worker-SDK worker per automation of the e2e plan:
 *
 * 1. Peak jobs/s without log lines, with BENCH_LOGS_LINES lines per job written through `job.log`,
 *    and without again (the same workers and automations; the two runs without bracket the one
 *    with, so a drift of the machine shows as a difference between them).
 * 2. Half load: jobs paced at BENCH_LOAD_FRACTION × the peak with logs, still writing their lines,
 *    while readers follow `GET /jobs/{id}/logs/stream` of a few of them. The worker of a followed
 *    job posts lines one request at a time (`POST /jobs/{id}/logs` through the SDK's client, with
 *    the automation's key and the job's attempt) and each is timed from the answer to that POST to
 *    the line's arrival on the reader's stream, both in this process.
 */
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { HubWorkerClient, type WorkerEvent, type WorkerJob } from "@hub/worker";
import type { AuditCheck } from "../lib/audit";
import type { BenchConfig } from "../lib/config";
import { databaseName, stallMs, withCpu } from "../lib/drive";
import { JsonClient } from "../lib/http";
import { PhaseTracker, runPacedPhase, runPeakPhase, type JobTarget, type PhaseSummary } from "../lib/load";
import { CONTEXT_PARAMETER, planWorkload } from "../lib/plan";
import { readTimedEventStream } from "../lib/sse";
import { summarize, type LatencySummary } from "../lib/stats";
import { hubProcessOptions, onFreshHub } from "../hub";
import { HubHttpTarget, login, seedHub } from "../hub/hub-target";
import { SdkWorkers } from "./sdk-workers";

export type LogsPhaseName = "warm-up" | "without logs" | "with logs" | "without logs again" | "half load";

export interface LogsPhase extends PhaseSummary {
  name: LogsPhaseName;
  linesPerJob: number;
  cpuMsPerJob: Record<string, number>;
}

export interface FollowFigures {
  /** Jobs whose stream a reader followed, and the lines posted to them. */
  followedJobs: number;
  lines: number;
  /** Lines that reached the reader (within 5 s of the last one's POST). */
  arrived: number;
  /** POST answered → line read from the stream; 0 when the line arrived before the answer was read. */
  acceptedToShownMs: LatencySummary;
  arrivedBeforeAnswer: number;
  errors: string[];
}

export interface LogsThroughputRun {
  phases: LogsPhase[];
  /** With logs ÷ the mean of the two runs without (target ≥ 0.85). */
  throughputRatio: number;
  follow: FollowFigures;
  halfLoadRate: number;
  storedLogLines: number;
  expectedLogLines: number;
  droppedLogLines: number;
  audit: AuditCheck[];
}

/** Marks a paced job whose log stream is followed. */
const FOLLOW_KEY = "bench_follow";
/** Pause between the followed lines of a job: one line at a time, as a log trickles in. */
const FOLLOW_GAP_MS = 100;
/** How long after its last POST a followed job's lines may take to arrive before they count as missing. */
const FOLLOW_GRACE_MS = 5000;
/**
 * Log streams a reader opens at once per user: the hub allows 5 per user on the path (429 beyond),
 * and frees a closed one's place once it sees the connection end, so one is left spare.
 */
const STREAMS_PER_READER = 4;

/** The readers' bearer tokens, each good for {@link STREAMS_PER_READER} streams at once. */
class ReaderSlots {
  private readonly free: string[];
  private readonly waiting: ((token: string) => void)[] = [];

  constructor(tokens: readonly string[]) {
    this.free = tokens.flatMap((token) => Array.from({ length: STREAMS_PER_READER }, () => token));
  }

  acquire(): Promise<string> {
    const token = this.free.pop();
    return token === undefined ? new Promise((resolve) => this.waiting.push(resolve)) : Promise.resolve(token);
  }

  release(token: string): void {
    const next = this.waiting.shift();
    if (next) next(token);
    else this.free.push(token);
  }
}

/** Reads followed jobs' log streams while their workers post lines, timing each line. */
class StreamFollower {
  readonly latencies: number[] = [];
  readonly errors: string[] = [];
  jobs = 0;
  lines = 0;
  arrived = 0;
  arrivedBeforeAnswer = 0;

  constructor(
    private readonly apiUrl: string,
    private readonly readers: ReaderSlots,
    private readonly linesPerJob: number,
    private readonly clientOf: (automationId: string) => HubWorkerClient,
  ) {}

  async follow(job: WorkerJob): Promise<void> {
    this.jobs += 1;
    const connection = new AbortController();
    const arrivals = new Map<string, number>();
    let reading: Promise<void> = Promise.resolve();
    const token = await this.readers.acquire();
    try {
      let response = await this.openStream(job.id, token, connection.signal);
      // A place the hub has not yet seen closed: its Retry-After is short.
      for (let retry = 0; response.status === 429 && retry < 5; retry++) {
        await response.body?.cancel();
        await sleep(1000 * Number(response.headers.get("retry-after") ?? 1));
        response = await this.openStream(job.id, token, connection.signal);
      }
      if (!response.ok || !response.body) throw new Error(`GET /jobs/{id}/logs/stream → ${response.status}`);
      const body = response.body;
      reading = (async () => {
        try {
          for await (const message of readTimedEventStream(body)) {
            // A log line: an id and no event field.
            if (message.event !== "message" || message.id === undefined) continue;
            const line = JSON.parse(message.data) as { message: string };
            arrivals.set(line.message, message.at);
          }
        } catch (error) {
          if (!connection.signal.aborted) this.errors.push(`stream: ${(error as Error).message}`);
        }
      })();
      const client = this.clientOf(job.automation_id);
      const answered = new Map<string, number>();
      for (let i = 0; i < this.linesPerJob; i++) {
        const message = `followed line ${i + 1} of ${this.linesPerJob} of job ${job.id}`;
        await client.appendLogs(job.id, [{ level: "info", message, ts: new Date().toISOString() }], job.attempts);
        answered.set(message, performance.now());
        this.lines += 1;
        await sleep(FOLLOW_GAP_MS);
      }
      const until = performance.now() + FOLLOW_GRACE_MS;
      while ([...answered.keys()].some((message) => !arrivals.has(message)) && performance.now() < until) await sleep(10);
      for (const [message, answeredAt] of answered) {
        const at = arrivals.get(message);
        if (at === undefined) continue;
        this.arrived += 1;
        if (at < answeredAt) this.arrivedBeforeAnswer += 1;
        this.latencies.push(Math.max(0, at - answeredAt));
      }
    } catch (error) {
      this.errors.push((error as Error).message);
    } finally {
      connection.abort();
      await reading;
      this.readers.release(token);
    }
  }

  private openStream(jobId: string, token: string, signal: AbortSignal): Promise<Response> {
    return fetch(`${this.apiUrl}/jobs/${jobId}/logs/stream`, { headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" }, signal });
  }

  figures(): FollowFigures {
    return {
      followedJobs: this.jobs,
      lines: this.lines,
      arrived: this.arrived,
      acceptedToShownMs: summarize(this.latencies),
      arrivedBeforeAnswer: this.arrivedBeforeAnswer,
      errors: this.errors.slice(0, 10),
    };
  }
}

/** A realistic line: what a step of an invoice job would say. */
function logMessage(job: WorkerJob, line: number, of: number): string {
  return `step ${line} of ${of}: invoice ${String(job.context[CONTEXT_PARAMETER])} checked, 12 rows written to the ledger, 0 warnings`;
}

async function countLogLines(databaseUrl: string, jobIds: readonly string[]): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "bench-audit" });
  await client.connect();
  try {
    const answer = await client.query<{ lines: string }>("select count(*) as lines from job_logs where job_id = any($1::uuid[])", [jobIds]);
    return Number(answer.rows[0]!.lines);
  } finally {
    await client.end();
  }
}

export async function runLogsThroughput(config: BenchConfig, runId: string): Promise<LogsThroughputRun> {
  const logs = config.logs;
  const plan = planWorkload({ ...config, slowJobs: 0 }, runId);
  return onFreshHub(config, hubProcessOptions(config, "single"), async ({ processes: hub, databaseUrl }) => {
    const seed = await seedHub(hub.apiUrl, hub.admin, plan);
    const target = new HubHttpTarget(hub.apiUrl, seed, config.creators);
    const clients = new Map(
      seed.automationIds.map((id, index) => [id, new HubWorkerClient({ baseUrl: hub.apiUrl, apiKey: seed.workerKeys[index]!, requestTimeoutMs: 30_000 })]),
    );
    const http = new JsonClient(hub.apiUrl, 1);
    const adminToken = await login(http, hub.admin).finally(() => http.close());
    // The employee who created the jobs and the admin read them: two users' worth of streams.
    const follower = new StreamFollower(hub.apiUrl, new ReaderSlots([seed.creatorToken, adminToken]), logs.followedLines, (automationId) =>
      clients.get(automationId)!,
    );
    const tracker = new PhaseTracker();
    let linesPerJob = 0;
    const onEvent = (event: WorkerEvent) => {
      const recorder = tracker.current;
      if (!recorder) return;
      if (event.type === "completed") recorder.completed(event.job.id, performance.now());
      else if (event.type === "hub_error") recorder.error(`worker ${event.operation}`, new Error(event.message));
      else if (event.type !== "claimed" && event.type !== "signals_connected" && event.type !== "log_lines_delivered_again") {
        recorder.error(`worker ${event.type}`, new Error("jobId" in event ? event.jobId : event.job.id));
      }
    };
    const workers = new SdkWorkers(
      hub.apiUrl,
      plan.automations.map((automation) => ({ apiKey: seed.workerKeys[automation.index]!, concurrency: automation.limit })),
      async (job) => {
        tracker.current?.claimed(job.id, performance.now());
        if (job.context[FOLLOW_KEY] !== undefined) await follower.follow(job);
        for (let line = 1; line <= linesPerJob; line++) job.log(line % 10 === 0 ? "warn" : "info", logMessage(job, line, linesPerJob));
        return {};
      },
      onEvent,
      config.claimWaitSeconds,
    );
    const pids = { api: hub.api.pid, dispatcher: hub.dispatchers[0]?.pid, relay: hub.relays[0]?.pid, bench: process.pid };
    const database = databaseName(databaseUrl);
    const phases: LogsPhase[] = [];
    const idsWithLines: string[] = [];
    const measure = async (name: LogsPhaseName, lines: number, jobs: number, run: (recorder: ReturnType<PhaseTracker["begin"]>) => Promise<PhaseSummary>) => {
      console.error(`bench: logs: ${name}, ${jobs} jobs, ${lines} log lines each`);
      linesPerJob = lines;
      const recorder = tracker.begin(name === "half load" ? "paced" : "peak", jobs);
      const summary = await withCpu(pids, database, () => run(recorder));
      if (lines > 0) idsWithLines.push(...recorder.createdAt.keys());
      const phase: LogsPhase = { ...summary, name, linesPerJob: lines };
      phases.push(phase);
      return phase;
    };
    const peak = (recorder: ReturnType<PhaseTracker["begin"]>) => runPeakPhase(target, plan, recorder, { creators: config.creators, stallMs: stallMs(config) });
    let halfLoadRate = Number.NaN;
    const followedIds: string[] = [];
    try {
      await measure("warm-up", logs.linesPerJob, Math.max(10, Math.round(logs.peakJobs / 10)), peak);
      const without = await measure("without logs", 0, logs.peakJobs, peak);
      const withLogs = await measure("with logs", logs.linesPerJob, logs.peakJobs, peak);
      const again = await measure("without logs again", 0, logs.peakJobs, peak);
      halfLoadRate = config.rate ?? withLogs.throughput * config.loadFraction;
      // Every k-th paced job is followed, spread over the phase.
      const followEvery = Math.max(1, Math.floor(logs.pacedJobs / logs.followedJobs));
      let created = 0;
      const pacedTarget: JobTarget = {
        createJob: async (automation, context) => {
          const followed = created++ % followEvery === 0 && followedIds.length < logs.followedJobs;
          const id = await target.createJob(automation, followed ? { ...context, [FOLLOW_KEY]: "1" } : context);
          if (followed) followedIds.push(id);
          return id;
        },
      };
      await measure("half load", logs.linesPerJob, logs.pacedJobs, (recorder) =>
        runPacedPhase(pacedTarget, plan, recorder, { creators: config.creators, rate: halfLoadRate, stallMs: stallMs(config) + FOLLOW_GRACE_MS }),
      );
      const meanWithout = (without.throughput + again.throughput) / 2;
      const follow = follower.figures();
      await workers.stop();
      const expectedLogLines = idsWithLines.length * logs.linesPerJob + follow.lines;
      const storedLogLines = await countLogLines(databaseUrl, idsWithLines);
      const droppedLogLines = workers.droppedLogLines;
      const crashes = hub.unexpectedExits();
      const errors = phases.flatMap((phase) => Object.entries(phase.errors).map(([error, count]) => `${phase.name}: ${error} ×${count}`));
      const audit: AuditCheck[] = [
        {
          name: "every job created and completed once",
          ok: phases.every((phase) => phase.created === phase.jobs && phase.completed === phase.created),
          detail: phases.map((phase) => `${phase.name} ${phase.completed}/${phase.created}/${phase.jobs}`).join(", "),
        },
        { name: "no request failed", ok: errors.length === 0, detail: errors.length === 0 ? "none" : errors.slice(0, 5).join("; ") },
        {
          name: "every log line stored",
          ok: storedLogLines === expectedLogLines && droppedLogLines === 0,
          detail: `${storedLogLines} of ${expectedLogLines} stored, ${droppedLogLines} dropped by the workers`,
        },
        {
          name: "every followed line reached its stream",
          ok: follow.arrived === follow.lines && follow.lines === followedIds.length * logs.followedLines && follow.errors.length === 0,
          detail: `${follow.arrived} of ${follow.lines} lines of ${follow.followedJobs} jobs${follow.errors.length > 0 ? `; ${follow.errors.join("; ")}` : ""}`,
        },
        {
          name: "no hub process crashed",
          ok: crashes.length === 0,
          detail: crashes.length === 0 ? "none" : crashes.map((crash) => `${crash.name} exited ${crash.exit.code ?? crash.exit.signal}`).join(", "),
        },
      ];
      const value: LogsThroughputRun = {
        phases,
        throughputRatio: withLogs.throughput / meanWithout,
        follow,
        halfLoadRate,
        storedLogLines,
        expectedLogLines,
        droppedLogLines,
        audit,
      };
      return { value, passed: audit.every((check) => check.ok) };
    } finally {
      await workers.stop();
      await target.close();
    }
  });
}
