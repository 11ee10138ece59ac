/**
 * The logs mode's live-control part, on a fresh hub of its own: BENCH_LOGS_CANCEL_WORKERS automations,
 * each with one worker-SDK worker holding its signals stream (`GET /workers/me/signals`) and as many
 * running jobs as its `max_concurrent_jobs`, BENCH_LOGS_CANCEL_JOBS in all; their handlers wait for
 * their AbortSignal. Half of the jobs are cancelled one by one (`POST /jobs/{id}/cancel`, a few in
 * flight), the rest with one `POST /jobs/bulk-cancel`. Cancel-to-signal is the handler's abort
 * (this process's clock) minus the commit as a poll of PostgreSQL saw it ({@link CommitWatch});
 * printed beside it, from the job's `finished_at` (the cancelling transaction's start) and from the
 * API's answer. PostgreSQL runs on this machine: one clock.
 *
 * Before the workers start, the API's resident memory is read with no signals stream open and with
 * BENCH_LOGS_STREAMS streams open (spread over the workers' keys, opened by this driver).
 */
import { setMaxListeners } from "node:events";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { HubWorkerClient, type WorkerEvent } from "@hub/worker";
import type { AuditCheck } from "../lib/audit";
import type { BenchConfig } from "../lib/config";
import { JsonClient } from "../lib/http";
import { CONTEXT_PARAMETER, planWorkload } from "../lib/plan";
import { summarize } from "../lib/stats";
import { hubProcessOptions, onFreshHub } from "../hub";
import { login, seedHub } from "../hub/hub-target";
import { SdkWorkers } from "./sdk-workers";
import type { CancelFigures, CancelRun, StreamMemory } from "./cancel-figures";

export type { CancelFigures, CancelRun, StreamMemory } from "./cancel-figures";

/** The lease of this part's hub: long, so heartbeats (every third of it) cannot beat the signals stream to a cancel. */
const LEASE_SECONDS = 120;
/** Single cancels in flight at once. */
const CANCELS_IN_FLIGHT = 8;

function rssKiB(pid: number): number {
  const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) : Number.NaN;
}

/** The median of a few readings, the API idle in between. */
async function settledRssKiB(pid: number): Promise<number> {
  const readings: number[] = [];
  for (let i = 0; i < 5; i++) {
    readings.push(rssKiB(pid));
    await sleep(200);
  }
  return summarize(readings).p50;
}

/** Opens `count` signals streams spread over `keys`, reads them until closed; returns how many opened and the closer. */
async function openSignalStreams(apiUrl: string, keys: readonly string[], count: number): Promise<{ opened: number; close: () => Promise<void> }> {
  const connection = new AbortController();
  // Every stream listens to it.
  setMaxListeners(count + 10, connection.signal);
  const clients = keys.map((apiKey) => new HubWorkerClient({ baseUrl: apiUrl, apiKey, requestTimeoutMs: 30_000 }));
  const reading: Promise<void>[] = [];
  let opened = 0;
  for (let from = 0; from < count; from += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - from) }, async (_, offset) => {
        try {
          const body = await clients[(from + offset) % clients.length]!.openSignals(connection.signal);
          opened += 1;
          reading.push(
            (async () => {
              const reader = body.getReader();
              try {
                while (!(await reader.read()).done);
              } catch {
                // Closed by the abort below.
              }
            })(),
          );
        } catch (error) {
          console.error(`bench: logs: a signals stream did not open: ${(error as Error).message}`);
        }
      }),
    );
  }
  return {
    opened,
    close: async () => {
      connection.abort();
      await Promise.all(reading);
    },
  };
}

async function finishedAtMs(databaseUrl: string, jobIds: readonly string[]): Promise<Map<string, { ms: number; status: string }>> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "bench-audit" });
  await client.connect();
  try {
    const answer = await client.query<{ id: string; ms: number | null; status: string }>(
      "select id::text, (extract(epoch from finished_at) * 1000)::float8 as ms, status from jobs where id = any($1::uuid[])",
      [jobIds],
    );
    return new Map(answer.rows.map((row) => [row.id, { ms: row.ms ?? Number.NaN, status: row.status }]));
  } finally {
    await client.end();
  }
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > until) return false;
    await sleep(20);
  }
  return true;
}

/** The counts of `hub_signal_delay_seconds` the API exposes: total, and at or below 0.5 s and 1 s. */
async function signalDelayCounts(http: JsonClient): Promise<{ signals: number; withinHalfSecond: number; withinOneSecond: number }> {
  const answer = await http.exchange("GET", "/metrics", {});
  const value = (pattern: RegExp) => Number(pattern.exec(answer.text)?.[1] ?? Number.NaN);
  return {
    signals: value(/^hub_signal_delay_seconds_count(?:\{[^}]*\})? (\S+)$/m),
    withinHalfSecond: value(/^hub_signal_delay_seconds_bucket\{[^}]*le="0\.5"[^}]*\} (\S+)$/m),
    withinOneSecond: value(/^hub_signal_delay_seconds_bucket\{[^}]*le="1"[^}]*\} (\S+)$/m),
  };
}

/**
 * When each job's cancel became visible in PostgreSQL: a connection of its own reads which of the
 * jobs are cancelled, again and again (10 ms apart) while the cancels run. A job first seen
 * cancelled by a poll committed after the start of the poll before (its time here) and before
 * that poll's start.
 */
class CommitWatch {
  readonly committedAt = new Map<string, number>();
  readonly gaps: number[] = [];
  private stopped = false;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly databaseUrl: string,
    private readonly jobIds: readonly string[],
  ) {}

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: "bench-audit" });
    await client.connect();
    let previous = epochMs();
    const poll = async () => {
      const startedAt = epochMs();
      const answer = await client.query<{ id: string }>({
        name: "bench-commit-watch",
        text: "select id::text from jobs where id = any($1::uuid[]) and status = 'cancelled'",
        values: [this.jobIds],
      });
      for (const row of answer.rows) if (!this.committedAt.has(row.id)) this.committedAt.set(row.id, previous);
      this.gaps.push(startedAt - previous);
      previous = startedAt;
    };
    await poll();
    this.running = (async () => {
      try {
        while (!this.stopped && this.committedAt.size < this.jobIds.length) {
          await sleep(10);
          await poll();
        }
      } finally {
        await client.end();
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}

/** Milliseconds since the epoch, below the millisecond. */
const epochMs = () => performance.timeOrigin + performance.now();

export async function runCancelLatency(config: BenchConfig, runId: string): Promise<CancelRun> {
  const logs = config.logs;
  const workerCount = logs.cancelWorkers;
  const perWorker = Math.ceil(logs.cancelJobs / workerCount);
  const plan = planWorkload({ ...config, automations: workerCount, limits: [perWorker], slotsOverLimit: 0, slowJobs: 0 }, `${runId}c`);
  const options = hubProcessOptions(config, "single");
  const mostStreamsPerKey = Math.ceil(Math.max(...logs.streamCounts) / workerCount) + 1;
  const env = { ...options.env, HUB_JOB_LEASE_SECONDS: String(LEASE_SECONDS), HUB_WORKER_MAX_STREAMS: String(Math.max(64, mostStreamsPerKey)) };
  return onFreshHub(config, { ...options, env }, async ({ processes: hub, databaseUrl }) => {
    const seed = await seedHub(hub.apiUrl, hub.admin, plan);
    const http = new JsonClient(hub.apiUrl, CANCELS_IN_FLIGHT + 2);
    const adminToken = await login(http, hub.admin);

    const memory: StreamMemory[] = [];
    for (const streams of logs.streamCounts) {
      console.error(`bench: logs: the API's RSS with ${streams} signals streams open`);
      const before = await settledRssKiB(hub.api.pid!);
      const open = await openSignalStreams(hub.apiUrl, seed.workerKeys, streams);
      await sleep(1000);
      const after = await settledRssKiB(hub.api.pid!);
      await open.close();
      memory.push({
        streams,
        opened: open.opened,
        rssBeforeMiB: before / 1024,
        rssAfterMiB: after / 1024,
        perStreamKiB: (after - before) / Math.max(1, open.opened),
      });
      // The hub frees a closed stream's slot once it sees the connection end.
      await sleep(1000);
    }

    console.error(`bench: logs: ${workerCount} workers, ${perWorker} running jobs each, holding their signals streams`);
    let connected = 0;
    let running = 0;
    const abortedAt = new Map<string, number>();
    const lostHow = new Map<string, string>();
    const onEvent = (event: WorkerEvent) => {
      if (event.type === "signals_connected") connected += 1;
      else if (event.type === "lease_lost") lostHow.set(event.jobId, event.during);
    };
    const workers = new SdkWorkers(
      hub.apiUrl,
      plan.automations.map((automation) => ({ apiKey: seed.workerKeys[automation.index]!, concurrency: perWorker })),
      async (job) => {
        running += 1;
        await new Promise<void>((resolve) => {
          const aborted = () => {
            abortedAt.set(job.id, epochMs());
            resolve();
          };
          if (job.signal.aborted) aborted();
          else job.signal.addEventListener("abort", aborted, { once: true });
        });
        return {};
      },
      onEvent,
      config.claimWaitSeconds,
    );
    try {
      const streamsOpen = await waitFor(() => connected >= workerCount, 30_000);
      const jobIds: string[][] = [];
      for (const automation of plan.automations) {
        const jobs = Array.from({ length: perWorker }, (_, i) => ({
          automation_id: seed.automationIds[automation.index],
          context: { [CONTEXT_PARAMETER]: `inv-cancel-${automation.index}-${i}` },
        }));
        jobIds.push((await http.send<{ ids: string[] }>("POST", "/jobs/batch", { token: seed.creatorToken, body: { jobs }, expected: 201 })).ids);
      }
      const total = perWorker * workerCount;
      const allRunning = await waitFor(() => running >= total, 120_000);
      const runningAtCancel = running;

      console.error(`bench: logs: cancelling ${runningAtCancel} running jobs, half one by one, half in bulk`);
      const histogramBefore = await signalDelayCounts(http);
      const everyId = jobIds.flat();
      const commits = new CommitWatch(databaseUrl, everyId);
      await commits.start();
      const singles = jobIds.slice(0, Math.ceil(workerCount / 2)).flat();
      const bulkCount = total - singles.length;
      const answeredAt = new Map<string, number>();
      let next = 0;
      await Promise.all(
        Array.from({ length: CANCELS_IN_FLIGHT }, async () => {
          for (let i = next++; i < singles.length; i = next++) {
            const id = singles[i]!;
            await http.send("POST", `/jobs/${id}/cancel`, { token: adminToken, expected: 200 });
            answeredAt.set(id, epochMs());
          }
        }),
      );
      const bulk = await http.send<{ affected: number }>("POST", "/jobs/bulk-cancel", {
        token: adminToken,
        body: { status: ["running"], limit: bulkCount },
        expected: 200,
      });
      const bulkAnsweredAt = epochMs();
      await waitFor(() => everyId.every((id) => abortedAt.has(id)), 15_000);
      // The worker tells how it learnt of the cancel once the handler has returned.
      await sleep(500);
      const finished = await finishedAtMs(databaseUrl, everyId);
      const singleSet = new Set(singles);
      await commits.stop();
      const histogramAfter = await signalDelayCounts(http);
      const latencies = {
        all: [] as number[],
        single: [] as number[],
        bulk: [] as number[],
        singleFinished: [] as number[],
        bulkFinished: [] as number[],
        answer: [] as number[],
        bulkAnswer: [] as number[],
      };
      let bySignal = 0;
      let otherwise = 0;
      let neverAborted = 0;
      for (const id of everyId) {
        const aborted = abortedAt.get(id);
        if (aborted === undefined) {
          neverAborted += 1;
          continue;
        }
        if (lostHow.get(id) !== "signal") {
          otherwise += 1;
          continue;
        }
        bySignal += 1;
        const committed = commits.committedAt.get(id);
        if (committed !== undefined) {
          latencies.all.push(aborted - committed);
          (singleSet.has(id) ? latencies.single : latencies.bulk).push(aborted - committed);
        }
        (singleSet.has(id) ? latencies.singleFinished : latencies.bulkFinished).push(aborted - finished.get(id)!.ms);
        const answered = answeredAt.get(id);
        if (answered !== undefined) latencies.answer.push(aborted - answered);
        else latencies.bulkAnswer.push(aborted - bulkAnsweredAt);
      }
      const cancelledRows = [...finished.values()].filter((row) => row.status === "cancelled").length;
      const cancel: CancelFigures = {
        running: runningAtCancel,
        single: singles.length,
        bulk: bulk.affected,
        bySignal,
        otherwise,
        neverAborted,
        signalMs: summarize(latencies.all),
        singleSignalMs: summarize(latencies.single),
        bulkSignalMs: summarize(latencies.bulk),
        singleFromFinishedAtMs: summarize(latencies.singleFinished),
        bulkFromFinishedAtMs: summarize(latencies.bulkFinished),
        answerToSignalMs: summarize(latencies.answer),
        bulkAnswerToSignalMs: summarize(latencies.bulkAnswer),
        pollGapMs: { p50: summarize(commits.gaps).p50, max: summarize(commits.gaps).max },
        hubHistogram: {
          signals: histogramAfter.signals - histogramBefore.signals,
          withinHalfSecond: histogramAfter.withinHalfSecond - histogramBefore.withinHalfSecond,
          withinOneSecond: histogramAfter.withinOneSecond - histogramBefore.withinOneSecond,
        },
      };
      await workers.stop();
      const crashes = hub.unexpectedExits();
      const audit: AuditCheck[] = [
        { name: "every worker's signals stream open before the jobs", ok: streamsOpen, detail: `${connected} of ${workerCount} connected` },
        { name: "every job running before the cancels", ok: allRunning, detail: `${runningAtCancel} of ${total}` },
        {
          name: "every job cancelled",
          ok: cancelledRows === total && bulk.affected === bulkCount,
          detail: `${cancelledRows} of ${total} cancelled (${bulk.affected} of ${bulkCount} in bulk)`,
        },
        { name: "every cancel's commit seen", ok: commits.committedAt.size === total, detail: `${commits.committedAt.size} of ${total}` },
        {
          name: "every cancelled job's handler aborted",
          ok: neverAborted === 0,
          detail: `${total - neverAborted} of ${total} (${bySignal} by the signals stream, ${otherwise} otherwise)`,
        },
        {
          name: "every signals stream opened",
          ok: memory.every((row) => row.opened === row.streams),
          detail: memory.map((row) => `${row.opened}/${row.streams}`).join(", "),
        },
        {
          name: "no hub process crashed",
          ok: crashes.length === 0,
          detail: crashes.length === 0 ? "none" : crashes.map((crash) => `${crash.name} exited ${crash.exit.code ?? crash.exit.signal}`).join(", "),
        },
      ];
      return { value: { workers: workerCount, memory, cancel, audit }, passed: audit.every((check) => check.ok) };
    } finally {
      await workers.stop();
      await http.close();
    }
  });
}
