/**
 * `pnpm bench flows` — job dependencies (CONTRACT §6.16) against plain jobs, on one hub (API,
 * dispatcher, relay as processes), everything through `POST /jobs/batch`, claim-batch and
 * complete-batch: a warm-up, BENCH_FLOW_FANOUTS plain batches of BENCH_FLOW_WIDTH + 2 jobs, as many
 * fan-outs (a root, BENCH_FLOW_WIDTH jobs depending on it, a fan-in depending on all of them; one
 * batch each, by index) twice, and the plain batches again, each phase on analysed tables. It prints
 * jobs/s of each and the mean of the flows phases ÷ the mean of the plain ones (target ≥ 0.8×), CPU
 * ms per job of every process, the claim statement's mean time per call and per job handed out in
 * each phase (within 5 %), and the release of BENCH_FLOW_RELEASE dependents
 * of one job: the finishing request's time and whether one statement released them. Audit: every
 * job completed exactly once, no dependent started before all its dependencies finished. How to
 * read it: bench/MODES.md.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { ConcurrencySampler } from "@hub/testing";
import { JOB_DEFAULTS } from "@hub/shared";
import { hubProcessOptions, onFreshHub } from "../hub";
import { HubBatchTarget, seedHub } from "../hub/hub-target";
import { auditRun, samplerReport, waitForRelayDrain, type AuditCheck } from "../lib/audit";
import { enableStatementCounts } from "../lib/counters";
import type { BenchConfig } from "../lib/config";
import { databaseName, signalProfiled } from "../lib/drive";
import { jobsPerFanout, planFanout } from "../lib/flow-plan";
import { JsonClient } from "../lib/http";
import { PhaseTracker, type PhaseRecorder } from "../lib/load";
import { planWorkload } from "../lib/plan";
import { describeMachine, writeReport } from "../lib/report";
import { BatchedWorkers } from "../lib/workers";
import { auditDependencyOrder, probeDependencies, runFlowPhase, type FlowPhase, type JobEdge, type PhaseContext } from "./phases";
import { measureRelease, type ReleaseFigures } from "./release";
import { renderFlows, type FlowsReport } from "./report";

export type { FlowsReport } from "./report";

/** Plain batches of the warm-up, and as many fan-outs when the API takes dependencies (not in the ratios). */
const WARMUP_BATCHES = 5;

export async function runFlowsMode(config: BenchConfig): Promise<boolean> {
  const flows = config.flows;
  const startedAt = new Date();
  const machine = await describeMachine();
  // No slow jobs here, so the lease is the hub's default (as in the burst mode).
  const flowConfig: BenchConfig = { ...config, slowJobs: 0, leaseSeconds: JOB_DEFAULTS.leaseSeconds };
  const plan = planWorkload({ ...flowConfig, limits: [flows.limit] }, randomBytes(3).toString("hex"));
  console.error("bench: flows: starting the API, a dispatcher and an event relay");
  return onFreshHub(config, hubProcessOptions(flowConfig, "batched"), async ({ processes: hub, databaseUrl }) => {
    const seed = await seedHub(hub.apiUrl, hub.admin, plan);
    const loops = plan.automations.length * (1 + flowConfig.slotsOverLimit);
    const target = new HubBatchTarget(hub.apiUrl, seed, 1, 2 * loops + 4);
    const creators = new JsonClient(hub.apiUrl, flows.creators + 1);
    const auditPool = new pg.Pool({ connectionString: databaseUrl, max: 2, application_name: "bench-audit" });
    const tracker = new PhaseTracker();
    const newWorkers = () => new BatchedWorkers(target, plan, tracker, flowConfig, flows.claimBatch);
    let sampler: ConcurrencySampler | undefined;
    let workers: BatchedWorkers | undefined;
    try {
      if (!(await enableStatementCounts(databaseUrl)))
        throw new Error("the flows mode reads pg_stat_statements: the server must preload it (BENCH_POSTGRES=private does)");
      const context: PhaseContext = {
        creators,
        creatorToken: seed.creatorToken,
        lanes: flows.creators,
        tracker,
        pids: { api: hub.api.pid, dispatcher: hub.dispatchers[0]?.pid, relay: hub.relays[0]?.pid },
        database: databaseName(databaseUrl),
        databaseUrl,
      };
      const dependencies = await probeDependencies(creators, seed.creatorToken, seed.automationIds[0]!);
      if (!dependencies) console.error("bench: flows: the API takes no depends_on: only the plain phases run (the figures of today's claim)");
      const automationsById = new Map(plan.automations.map((automation) => [seed.automationIds[automation.index]!, automation]));
      sampler = new ConcurrencySampler(auditPool, {
        limits: new Map([...automationsById].map(([id, automation]) => [id, automation.limit])),
        intervalMs: 250,
      });
      const plainBatches = Array.from({ length: flows.fanouts }, (_, n) => planFanout(n, flows.width, seed.automationIds, true));
      const flowBatches = Array.from({ length: flows.fanouts }, (_, n) => planFanout(n, flows.width, seed.automationIds));
      const phases: FlowPhase[] = [];
      const recorders: PhaseRecorder[] = [];
      const edges: JobEdge[] = [];
      const run = async (name: FlowPhase["name"], batches: typeof plainBatches) => {
        // Every measured phase starts on analysed tables, as a production server's are: without, the first phase ran on
        // the statistics of the warm-up's few rows until autovacuum's first analyse, a minute or so into the run.
        if (name !== "warm-up") await auditPool.query("analyze");
        // BENCH_CPU_PROF_PHASE=plain or flows: the profiled processes record that phase (the first of its kind) only.
        const profiled = (name === "plain" || name === "flows") && config.cpuProfilePhase === name ? name : null;
        if (profiled) signalProfiled(config, context.pids, profiled);
        const outcome = await runFlowPhase(context, name, batches);
        if (profiled) signalProfiled(config, context.pids, profiled);
        phases.push(outcome.phase);
        recorders.push(outcome.recorder);
        edges.push(...outcome.edges);
      };
      sampler.start();
      workers = newWorkers();
      workers.start();
      const warmUp = Math.min(WARMUP_BATCHES, flows.fanouts);
      await run("warm-up", [...plainBatches.slice(0, warmUp), ...(dependencies ? flowBatches.slice(0, warmUp) : [])]);
      // Plain, flows, flows, plain: a machine that gets steadily busier or quieter, or a hub still warming up, weighs
      // on both kinds alike, and the ratios are of their means.
      await run("plain", plainBatches);
      if (dependencies) {
        await run("flows", flowBatches);
        await run("flows again", flowBatches);
      }
      await run("plain again", plainBatches);
      await workers.stop();
      workers = undefined;

      let release: ReleaseFigures | null = null;
      const audit: AuditCheck[] = [];
      if (dependencies && flows.releaseDependents > 0) {
        const measured = await measureRelease(context, target, seed.automationIds, flows.releaseDependents, newWorkers);
        release = measured.figures;
        recorders.push(measured.recorder);
        edges.push(...measured.edges);
        audit.push(...measured.audit);
      }
      const drain = await waitForRelayDrain(auditPool, 10_000);
      const sampled = samplerReport(await sampler.stop(), automationsById);
      sampler = undefined;
      audit.unshift(...(await auditRun(auditPool, recorders, sampled, drain.left)));
      if (dependencies) audit.push(...(await auditDependencyOrder(auditPool, edges)));
      const crashes = hub.unexpectedExits();
      audit.push({
        name: "no hub process crashed",
        ok: crashes.length === 0,
        detail: crashes.length === 0 ? "none" : crashes.map((crash) => `${crash.name} exited ${crash.exit.code ?? crash.exit.signal}`).join(", "),
      });
      const report: FlowsReport = {
        mode: "flows",
        startedAt: startedAt.toISOString(),
        machine,
        config: { ...flows, automations: plan.automations.length, jobsPerBatch: jobsPerFanout(flows.width), slotsOverLimit: flowConfig.slotsOverLimit },
        dependencies,
        phases,
        release,
        audit,
        auditPassed: audit.every((check) => check.ok),
      };
      console.log(renderFlows(report));
      console.log(`\nresults: ${writeReport(config.resultsDir, config.smoke ? "flows-smoke" : "flows", report, startedAt)}`);
      return { value: report.auditPassed, passed: report.auditPassed };
    } finally {
      // After a failure: the loops and the sampler stop before their connections close.
      await workers?.stop();
      await sampler?.stop();
      await Promise.all([target.close(), creators.close(), auditPool.end()]);
    }
  });
}
