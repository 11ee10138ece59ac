/**
 * `pnpm bench timed` — jobs that wait for their time, and schedules (CONTRACT §6.8, §6.9), on one
 * hub (API, dispatcher, event relay as processes): BENCH_TIMED_JOBS jobs due at times spread over
 * a window and BENCH_TIMED_SCHEDULES schedules (seconds field) firing once each in it. Nothing is
 * due in the window's first BENCH_TIMED_WAIT_SECONDS: the CPU every process spends then, per second,
 * is what waiting costs (near idle: no polling per job or per schedule). Then everything comes due
 * and the report gives how late: claim time − run_at (`started_at − available_at`) and job
 * creation − fire_time, both on PostgreSQL's clock. How to read it: bench/README.md.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { openDatabase } from "@hub/db";
import { hubEnvOverrides, onFreshHub, profileEnv } from "../hub";
import { HubBatchTarget, seedHub } from "../hub/hub-target";
import type { BenchConfig } from "../lib/config";
import { ms, renderCpuPerSecond as renderCpu, sampleCpu, type CpuPerSecond } from "../lib/cpu-per-second";
import { databaseName } from "../lib/drive";
import { JsonClient } from "../lib/http";
import { planWorkload } from "../lib/plan";
import { busyWarning, describeMachine, writeReport, type MachineInfo } from "../lib/report";
import { summarize, type LatencySummary } from "../lib/stats";
import {
  createTimedJobs,
  createTimedSchedules,
  probeRunAt,
  readTimedFigures,
  startTimedWorkers,
  waitForOutboxDrained,
  type DueWindow,
  type JobCreationPath,
} from "./workload";

/** The "idle is idle" target: the whole hub, PostgreSQL and Redis included, at most 1 % of one core. */
const IDLE_TARGET_MS_PER_SECOND = 20;
/** Longest wait for the last due job to be completed after the window closed. */
const DRAIN_TIMEOUT_MS = 180_000;

export interface TimedReport {
  mode: "timed";
  startedAt: string;
  machine: MachineInfo;
  config: BenchConfig["timed"];
  jobCreation: JobCreationPath;
  setupMs: number;
  /** How long the relay took to dispatch the set-up's events after it (null: not before the idle window). */
  outboxDrainMs: number | null;
  idle: CpuPerSecond;
  due: CpuPerSecond & { jobsPerSecond: number };
  claimLateness: LatencySummary;
  fireLateness: LatencySummary;
  audit: Array<{ name: string; ok: boolean; detail: string }>;
  auditPassed: boolean;
}

function renderLateness(summary: LatencySummary): string {
  return `n=${summary.count}: p50 ${ms(summary.p50)} · p95 ${ms(summary.p95)} · p99 ${ms(summary.p99)} · max ${ms(summary.max)} ms`;
}

function render(report: TimedReport): string {
  const { config } = report;
  return [
    `Automation Hub benchmark (timed) — ${config.jobs} jobs and ${config.schedules} schedules due ${config.waitSeconds}–${config.spanSeconds} s ` +
      `after the run's clock start · ${report.machine.cpus} cores, ${(100 * report.machine.busyBeforeStart).toFixed(0)}% busy before the start`,
    ...(busyWarning(report.machine) ? [busyWarning(report.machine)!] : []),
    `jobs created ${report.jobCreation === "api-run_at" ? "with POST /jobs/batch and run_at" : "straight into the database with available_at (this API takes no run_at)"}; set-up took ${(report.setupMs / 1000).toFixed(1)} s`,
    "",
    `waiting (${report.idle.seconds.toFixed(0)} s, nothing due, ${config.workers} long-polls open, outbox ${report.outboxDrainMs === null ? "NOT drained" : "drained"}), CPU ms per second, mean / busiest second:`,
    `  ${renderCpu(report.idle)}`,
    `  idle hub Σ ${ms(report.idle.mean.hub!)} ms/s ÷ target ${IDLE_TARGET_MS_PER_SECOND} ms/s = ${(report.idle.mean.hub! / IDLE_TARGET_MS_PER_SECOND).toFixed(2)}×`,
    `due (${report.due.seconds.toFixed(0)} s, ${report.due.jobsPerSecond.toFixed(0)} jobs/s completed), CPU ms per second, mean / busiest second:`,
    `  ${renderCpu(report.due)}`,
    "",
    `claim − run_at       ${renderLateness(report.claimLateness)}`,
    `created − fire_time  ${renderLateness(report.fireLateness)}`,
    "",
    "audit",
    ...report.audit.map((check) => `  ${check.ok ? "✓" : "✗"} ${check.name}: ${check.detail}`),
  ].join("\n");
}

export async function runTimedMode(config: BenchConfig): Promise<boolean> {
  const timed = config.timed;
  const startedAt = new Date();
  const machine = await describeMachine();
  const step = (message: string) => console.error(`bench: ${message}`);
  step("timed: starting the API, a dispatcher and an event relay (seconds fields allowed)");
  const overrides = hubEnvOverrides();
  if (Object.keys(overrides).length > 0)
    step(
      `timed: hub settings from the environment: ${Object.entries(overrides)
        .map(([name, value]) => `${name}=${value}`)
        .join(" ")}`,
    );
  const profiled = { apiEnv: profileEnv(config, "api"), dispatcherEnv: profileEnv(config, "dispatcher"), relayEnv: profileEnv(config, "relay") };
  return onFreshHub(
    config,
    { dispatchers: 1, relays: 1, env: { HUB_SCHEDULES_ALLOW_SECONDS: "true", ...overrides }, ...profiled },
    async ({ processes: hub, databaseUrl }) => {
      const plan = planWorkload(
        { ...config, automations: timed.automations, limits: [timed.limit], slotsOverLimit: 0, slowJobs: 0 },
        randomBytes(3).toString("hex"),
      );
      const seed = await seedHub(hub.apiUrl, hub.admin, plan);
      const http = new JsonClient(hub.apiUrl, 8);
      const target = new HubBatchTarget(hub.apiUrl, seed, 2, 2 * Math.max(timed.workers, timed.automations) + 4);
      let workers: ReturnType<typeof startTimedWorkers> | undefined;
      try {
        const adminToken = (await http.send<{ access_token: string }>("POST", "/identity/token", { body: hub.admin, expected: 200 })).access_token;
        const jobCreation = await probeRunAt(http, seed);
        // Time to create everything before the clock starts: ~10,000 jobs/s seeded, ~1,000/s through the API.
        const setupSeconds = timed.setupSeconds ?? Math.ceil(10 + timed.schedules / 100 + timed.jobs / (jobCreation === "api-run_at" ? 1000 : 10_000));
        const clockStart = Date.now() + setupSeconds * 1000;
        const window: DueWindow = { dueFrom: clockStart + timed.waitSeconds * 1000, dueTo: clockStart + timed.spanSeconds * 1000 };
        const setupStarted = Date.now();
        step(`timed: creating ${timed.jobs} jobs (${jobCreation}) and ${timed.schedules} schedules`);
        await createTimedJobs(jobCreation, { http, seed, databaseUrl }, window, timed.jobs);
        await createTimedSchedules(http, adminToken, seed, window, timed.schedules);
        const setupMs = Date.now() - setupStarted;
        if (Date.now() > clockStart)
          step(`timed: WARNING set-up overran BENCH_TIMED_SETUP_SECONDS by ${((Date.now() - clockStart) / 1000).toFixed(1)} s: the waiting window is shorter`);
        workers = startTimedWorkers(target, timed.automations, Math.min(timed.limit, 100), timed.workers);

        const pids = { api: hub.api.pid, dispatcher: hub.dispatchers[0]?.pid, relay: hub.relays[0]?.pid, bench: process.pid };
        const dbName = databaseName(databaseUrl);
        const idleEnds = window.dueFrom - 500;
        const probe = openDatabase(databaseUrl, { max: 1, applicationName: "bench-outbox-probe" });
        const outboxDrainMs = await waitForOutboxDrained(probe.pool, idleEnds - 10_000).finally(() => probe.close());
        if (outboxDrainMs === null)
          step("timed: WARNING the relay had not dispatched the set-up's events 10 s before the due window: the idle figures include it");
        step(
          `timed: outbox drained${outboxDrainMs === null ? " (not)" : ` in ${(outboxDrainMs / 1000).toFixed(1)} s`}; ${timed.workers} long-polls open; measuring CPU with nothing due`,
        );
        // With BENCH_CPU_PROF, the profiles cover the idle window only (lib/cpu-profile-preload.mjs).
        const markProfiles = () => {
          // Only profiled processes handle SIGUSR2; it would end any other.
          const profiledPids = { api: pids.api, dispatcher: pids.dispatcher, relay: pids.relay };
          for (const app of config.cpuProfile) if (profiledPids[app]) process.kill(profiledPids[app], "SIGUSR2");
        };
        markProfiles();
        const idle = await sampleCpu(pids, dbName, Math.min(Date.now() + timed.waitSeconds * 1000, idleEnds));
        markProfiles();
        await sleep(Math.max(0, window.dueFrom - Date.now()));
        step(`timed: everything comes due over ${timed.spanSeconds - timed.waitSeconds} s`);
        const dueStarted = Date.now();
        const due = await sampleCpu(pids, dbName, window.dueTo + 1000);
        const expected = timed.jobs + timed.schedules;
        const drainUntil = Date.now() + DRAIN_TIMEOUT_MS;
        while (workers.completed < expected && Date.now() < drainUntil) await sleep(250);
        const dueSeconds = (Date.now() - dueStarted) / 1000;
        await workers.stop();

        const audited = openDatabase(databaseUrl, { max: 1, applicationName: "bench-audit" });
        const figures = await readTimedFigures(audited.pool, seed.automationIds).finally(() => audited.close());
        const crashes = hub.unexpectedExits();
        const audit = [
          { name: "every job completed", ok: (figures.byStatus.completed ?? 0) === expected, detail: JSON.stringify(figures.byStatus) },
          { name: "no job claimed before its time", ok: figures.claimedEarly === 0, detail: `${figures.claimedEarly} early` },
          { name: "each schedule made exactly one job", ok: figures.schedulesNotFiredOnce === 0, detail: `${figures.schedulesNotFiredOnce} did not` },
          { name: "no hub process crashed", ok: crashes.length === 0, detail: crashes.length === 0 ? "none" : JSON.stringify(crashes) },
        ];
        const report: TimedReport = {
          mode: "timed",
          startedAt: startedAt.toISOString(),
          machine,
          config: timed,
          jobCreation,
          setupMs,
          outboxDrainMs,
          idle,
          due: { ...due, jobsPerSecond: (figures.byStatus.completed ?? 0) / dueSeconds },
          claimLateness: summarize(figures.claimLatenessMs),
          fireLateness: summarize(figures.fireLatenessMs),
          audit,
          auditPassed: audit.every((check) => check.ok),
        };
        console.log(render(report));
        console.log(`\nresults: ${writeReport(config.resultsDir, config.smoke ? "timed-smoke" : "timed", report, startedAt)}`);
        return { value: report.auditPassed, passed: report.auditPassed };
      } finally {
        await workers?.stop();
        await Promise.all([http.close(), target.close()]);
      }
    },
  );
}
