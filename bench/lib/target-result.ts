/** What driving one target yields: its phases' figures, its audit and its costs over the whole run (written into the report). */
import type { AuditCheck } from "./audit";
import type { PhaseSummary } from "./load";
import type { LatencySummary } from "./stats";

export interface PhaseResult extends PhaseSummary {
  /** Relay lag of this phase's events; null where nothing relays. */
  relayLagMs: LatencySummary | null;
  /**
   * CPU milliseconds per job of the hub's processes (by name), this driver (`bench`), the run's
   * PostgreSQL backends (`postgres`), PostgreSQL's shared processes (`pg-shared`), Redis and the
   * rest of the machine (`other`), over the phase.
   */
  cpuMsPerJob: Record<string, number>;
  /**
   * Redis commands per job over the phase (server-wide `INFO commandstats`, Lua-internal ones
   * included), most frequent first; absent for targets without Redis. Peak against paced shows
   * which commands a job costs more of when fewer share each message.
   */
  redisCommandsPerJob?: Record<string, number>;
}

/** The servers' work and the claims over a target's whole run (idle window, both phases, drain), per job. */
export interface RunCosts {
  /** PostgreSQL transactions (committed + rolled back) in the target's database, less the benchmark's own. */
  transactionsPerJob: number;
  rolledBackPerJob: number;
  /** pg_stat_statements calls in the target's database, less the benchmark's own; null when not loaded. */
  statementsPerJob: number | null;
  /**
   * Of those, the top-level ones: what clients sent (each a round trip, unless pipelined); the rest run inside
   * functions and triggers (`pg_stat_statements.track = all`). Null when not loaded.
   */
  topLevelStatementsPerJob: number | null;
  /** The most frequent statements, per job (top-level and nested), for finding where the count comes from. */
  statementsByCalls: Array<{ query: string; toplevel: boolean; callsPerJob: number; msPerJob: number }>;
  /** Redis commands (server-wide `INFO commandstats`, Lua-internal ones included); null for targets without Redis. */
  redisCommandsPerJob: number | null;
  /** The most frequent Redis commands, per job. */
  redisTopCommands: Record<string, number>;
  /** Every Redis command, per job, most frequent first. */
  redisCommandsByName: Record<string, number>;
  /** Claim requests per job, and those answered 204 (found nothing); pull targets only. */
  claimsPerJob?: number;
  emptyClaimsPerJob?: number;
}

export interface TargetResult {
  name: string;
  /** Why the target was not measured (e.g. the batch endpoints are missing); no phases then. */
  skipped?: string;
  peak: PhaseResult;
  paced: PhaseResult | null;
  audit: AuditCheck[];
  /**
   * CPU of each process while nothing happens but the workers' long-polls, the relay's polling
   * and the dispatcher's sweeps (and this benchmark's sampler), in % of one core: the fixed cost
   * that the latency phase's per-job CPU figures include.
   */
  idleCpuPercent?: Record<string, number>;
  /** Peak resident set of each hub process (VmHWM), MiB. */
  peakRssMiB?: Record<string, number>;
  /** Set by settleCosts() once the target has stopped. */
  costs?: RunCosts;
  /** Jobs created over both phases. */
  jobsCreated: number;
}
