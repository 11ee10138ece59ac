/** The figures `pnpm bench burst` reports (index.ts measures them): per phase, per protocol, per run. */
import type { AuditCheck } from "../lib/audit";
import type { ClaimPlan } from "../lib/claim-plan";
import type { BenchConfig, BurstProtocol } from "../lib/config";
import type { StatementShare } from "../lib/counters";
import type { PhaseSummary } from "../lib/load";
import type { MachineInfo } from "../lib/report";

/** The warm-up (not in the ratios) lets the hub's processes reach their steady state before the small burst. */
export type BurstPhaseName = "warm-up" | "small burst" | "large burst" | "half load";

/** One phase's figures. */
export interface BurstPhase extends PhaseSummary {
  name: BurstPhaseName;
  /** CPU ms per created job by process (api, dispatcher, relay, postgres, pg-shared, redis, bench, other: see lib/cpu.ts). */
  cpuMsPerJob: Record<string, number>;
  /** PostgreSQL's CPU per job: the run database's backends plus the server's own processes. */
  postgresCpuMsPerJob: number;
  /** Every accounted process but this driver and the rest of the machine: the hub, PostgreSQL, Redis. */
  machineCpuMsPerJob: number;
  /** Top-level claim statements (pg_stat_statements), or the claim function's calls when it is not loaded. */
  claims: number;
  claimsCountedBy: "pg_stat_statements" | "pg_stat_user_functions";
  /** Sequential scans of `jobs` during the phase, and per claim (target: 0). */
  jobsSeqScans: number;
  seqScansPerClaim: number;
  /** Statements the audit's concurrency sampler ran on `jobs` in the phase: an upper bound of the sequential scans that are not the hub's. */
  samplerStatements: number;
  /** Updates of `jobs` rows, and how many of them were HOT. */
  jobsUpdates: number;
  jobsHotUpdates: number;
  /** Rows of `jobs` (live, dead) when the phase ended, and autovacuums / autoanalyzes of it during the phase. */
  jobsLiveRows: number;
  jobsDeadRows: number;
  autovacuums: number;
  autoanalyzes: number;
  /** The claim statement's generic plan on `jobs` as the phase ended (lib/claim-plan.ts); null for a peer. */
  claimPlan: ClaimPlan | null;
  /** The statements that took the most execution time in the phase (pg_stat_statements, nested ones included); empty without it. */
  topStatements: StatementShare[];
}

/** The targets, as same-run ratios to the small burst. */
export interface BurstRatios {
  /** Large-burst jobs/s ÷ small-burst jobs/s (target ≥ 0.9). */
  throughputLargeToSmall: number;
  /** PostgreSQL CPU per job, large burst ÷ small burst, and half load ÷ small burst (targets ≤ 1.2). */
  postgresCpuLargeToSmall: number;
  postgresCpuHalfToSmall: number;
  /** Machine CPU per job (hub, PostgreSQL, Redis), half load ÷ small burst (target: ≤ 1.2). */
  machineCpuHalfToSmall: number;
}

export interface BurstRun {
  protocol: BurstProtocol;
  phases: BurstPhase[];
  ratios: BurstRatios | null;
  /** Jobs/s the half-load phase asked for. */
  halfLoadRate: number | null;
  audit: AuditCheck[];
}

export interface BurstReport {
  mode: "burst";
  startedAt: string;
  machine: MachineInfo;
  config: Omit<BenchConfig, "databaseServerUrl" | "redisUrl" | "resultsDir">;
  runs: BurstRun[];
  auditPassed: boolean;
}
