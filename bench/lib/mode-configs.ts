/** The settings of each benchmark mode beyond the e2e one (config.ts reads them from the environment). */

/**
 * The `keys` mode: one automation, `max_concurrent_jobs` BENCH_KEYS_LIMIT, BENCH_KEYS_VALUES
 * key values with `max_concurrent_per_key` BENCH_KEYS_PER_KEY; one value's backlog of BENCH_KEYS_BIG
 * jobs is queued first, then each other value submits one job per round, BENCH_KEYS_SMALL rounds
 * BENCH_KEYS_ROUND_MS apart; the same arrivals run once more without a key ("plain") on a fresh hub
 * for the same-run ratios.
 */
export interface KeysConfig {
  values: number;
  perKeyLimit: number;
  limit: number;
  bigBacklog: number;
  smallJobs: number;
  /** BENCH_KEYS_WORKERS: claim-batch loops (of BENCH_KEYS_CLAIM_BATCH jobs) completing what they claim. */
  workers: number;
  claimBatch: number;
  /**
   * BENCH_KEYS_ROUND_MS: after the backlog, each other value submits one job per round, a round every this many ms.
   * Null (the default outside --smoke): derived from the plain run's throughput while only the backlog runs, so the
   * small values arrive at BENCH_KEYS_LOAD_FRACTION of what the hub completes on this machine now.
   */
  roundMs: number | null;
  loadFraction: number;
}

/**
 * The `console` mode: the console in headless Chromium over a seeded hub — time to the
 * first rendered rows of the Jobs and Automations pages, and the bundle's size. The scale mode
 * measures the Jobs page too, over its own history.
 */
export interface ConsoleConfig {
  /** BENCH_CONSOLE_AUTOMATIONS: automations seeded (each with a worker) for the Automations page. */
  automations: number;
  /** BENCH_CONSOLE_JOBS: finished jobs seeded with seedHistory (spread over those automations). */
  jobs: number;
  /** BENCH_CONSOLE_LOADS: page loads timed per case, cold and warm each. */
  loads: number;
}

/** The `timed` mode: jobs that wait for their time, and schedules, on one hub. */
export interface TimedConfig {
  /** BENCH_TIMED_JOBS: jobs created up front, each due at a time of its own. */
  jobs: number;
  /** BENCH_TIMED_SCHEDULES: schedules (seconds field allowed), each firing once in the due window. */
  schedules: number;
  /** BENCH_TIMED_SETUP_SECONDS: how far ahead of the creation's start the clock of the run starts (time to create everything). */
  setupSeconds: number | undefined;
  /** BENCH_TIMED_WAIT_SECONDS: the first part of the window, in which nothing is due: CPU is measured then. */
  waitSeconds: number;
  /** BENCH_TIMED_SPAN_SECONDS: every job and fire is due within this many seconds of the run's clock start (after the wait). */
  spanSeconds: number;
  /** BENCH_TIMED_AUTOMATIONS / BENCH_TIMED_LIMIT: automations the jobs are spread over, and their `max_concurrent_jobs`. */
  automations: number;
  limit: number;
  /** BENCH_TIMED_WORKERS: long-polling claim loops (spread over the automations) held open throughout, idle window included. */
  workers: number;
}

/**
 * The `logs` mode: peak jobs/s with and without log lines, cancel-to-signal latency over
 * many held signals streams, the API's memory per stream, and log-stream latency at half load.
 */
export interface LogsConfig {
  /** BENCH_LOGS_N: jobs of each peak phase (without logs, with logs, without logs again). */
  peakJobs: number;
  /** BENCH_LOGS_LINES: log lines each job writes with `job.log` in the phases with logs. */
  linesPerJob: number;
  /** BENCH_LOGS_PACED_N: jobs of the half-load phase in which readers follow log streams. */
  pacedJobs: number;
  /** BENCH_LOGS_FOLLOWED: jobs of the half-load phase whose log stream a reader follows. */
  followedJobs: number;
  /** BENCH_LOGS_FOLLOWED_LINES: lines posted one request each to every followed job, timed to their arrival on the stream. */
  followedLines: number;
  /** BENCH_LOGS_CANCEL_JOBS: running jobs cancelled while their workers hold signals streams. */
  cancelJobs: number;
  /** BENCH_LOGS_CANCEL_WORKERS: workers (one automation each) the cancelled jobs run on. */
  cancelWorkers: number;
  /** BENCH_LOGS_STREAMS: open signals streams at which the API's RSS is read (comma-separated, ascending). */
  streamCounts: number[];
}

/**
 * How the `burst` mode's jobs are created, claimed and completed: the hub batched or one job per
 * request, or its peer graphile-worker plain (`add_job` per job, its own runner), measured the same way.
 */
export const BURST_PROTOCOLS = ["batched", "single", "graphile"] as const;
export type BurstProtocol = (typeof BURST_PROTOCOLS)[number];

/**
 * The `burst` mode: on one fresh hub, a small burst, a large burst and, right after it,
 * a phase paced at a fraction (BENCH_LOAD_FRACTION) of the large burst's throughput; per protocol.
 */
export interface BurstConfig {
  /** BENCH_BURST_SCALE: multiplies the three phase sizes below (default 1; e.g. 0.2 for 500 / 8,000 / 1,200). */
  scale: number;
  /** BENCH_BURST_SMALL / BENCH_BURST_LARGE / BENCH_BURST_HALF_N: jobs of each phase, before the scale. */
  smallJobs: number;
  largeJobs: number;
  halfLoadJobs: number;
  /** BENCH_BURST_WARMUP: jobs created (as the protocol creates them) before the small burst, not scaled; their figures are not in the ratios. */
  warmupJobs: number;
  /** BENCH_BURST_LIMIT: `max_concurrent_jobs` of every automation (BENCH_A of them). */
  limit: number;
  /** BENCH_BURST_CLAIM_BATCH: `max_jobs` of each claim-batch (the hub caps it at the free slots). */
  claimBatch: number;
  /**
   * BENCH_BURST_LEASE_SECONDS: the hub's HUB_JOB_LEASE_SECONDS in this mode (default: the hub's own
   * default). The e2e mode's short lease is there for its slow jobs; the bursts have none, and on
   * an overloaded machine a 5 s lease lapses under the workers of a 40,000-job backlog.
   */
  leaseSeconds: number;
  /** BENCH_BURST_PROTOCOLS: "batched" (POST /jobs/batch, claim-batch, complete-batch), "single" (one job per request), "graphile" (the peer). */
  protocols: BurstProtocol[];
}

/**
 * The `scale` mode: 10,000 automations, 5M jobs and 20M events at BENCH_SCALE=1, seeded with
 * generate_series; never in CI.
 */
export interface ScaleConfig {
  /** BENCH_SCALE: multiplies the seeded counts (default 0.1: 1,000 automations, 500,000 jobs, 2,000,000 events). */
  scale: number;
  /** BENCH_SCALE_RATE: jobs/s created through the API while create→claim is measured. */
  rate: number;
  /** BENCH_SCALE_PHASE_SECONDS: length of the create→claim phase without the sweep (the one with it lasts as long as the sweep, at least this). */
  phaseSeconds: number;
  /** BENCH_SCALE_REQUESTS: GET /jobs and GET /events requests timed (each). */
  requests: number;
  /** BENCH_SCALE_SCRAPES: /metrics scrapes timed, 2.1 s apart (the API caches its gauges for 2 s). */
  scrapes: number;
}

/**
 * The `flows` mode (job dependencies, CONTRACT §6.16): on one hub, a phase of plain jobs, a phase of
 * fan-outs with a fan-in each, and plain jobs again, all through `POST /jobs/batch`, claim-batch and
 * complete-batch; then one job with `releaseDependents` dependents is completed and the release timed.
 */
export interface FlowsConfig {
  /** BENCH_FLOW_FANOUTS: fan-outs of the flow phase, one `POST /jobs/batch` each. */
  fanouts: number;
  /** BENCH_FLOW_WIDTH: jobs depending on each fan-out's root (1–100: the fan-in depends on all of them, and `depends_on` takes at most 100). */
  width: number;
  /** BENCH_FLOW_RELEASE: dependents of the one job whose completion releases them (0 skips that measurement). */
  releaseDependents: number;
  /** BENCH_FLOW_LIMIT: `max_concurrent_jobs` of every automation (BENCH_A of them). */
  limit: number;
  /** BENCH_FLOW_CLAIM_BATCH: `max_jobs` of each claim-batch. */
  claimBatch: number;
  /** BENCH_FLOW_CREATORS: batches in flight at once while a phase creates its jobs. */
  creators: number;
}

/**
 * The `alerts` mode (CONTRACT §6.19): the hub's idle CPU per second with no alert rule, with
 * BENCH_ALERTS_RULES rules (a few of them firing), and with none again.
 */
export interface AlertsConfig {
  /** BENCH_ALERTS_RULES: rules created (a mix of every kind, some for every automation). */
  rules: number;
  /** BENCH_ALERTS_AUTOMATIONS: automations the rules watch. */
  automations: number;
  /** BENCH_ALERTS_FIRING: rules made to fire (each on an automation of its own with queued jobs). */
  firing: number;
  /** BENCH_ALERTS_SECONDS: length of each idle window. */
  seconds: number;
}
