/**
 * Alerts (CONTRACT §6.19): the kinds of rule, their thresholds' units and ranges, and the sentences
 * a person reads in `alert.firing` / `alert.resolved`, `GET /alerts`, the console's bar and a Slack
 * channel. Pure: the dispatcher's evaluation measures, this module says it in words.
 */

export const ALERT_KINDS = ["queue_age", "queue_depth", "failure_rate", "worker_offline", "job_duration"] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const ALERT_STATES = ["firing", "resolved"] as const;
export type AlertState = (typeof ALERT_STATES)[number];

/** What a rule's `threshold` is, by kind (CONTRACT §6.19); `worker_offline` takes none. */
export const ALERT_THRESHOLDS: Record<
  AlertKind,
  { unit: "seconds" | "jobs" | "share"; min: number; max: number; minExclusive?: true; integer: boolean } | null
> = {
  queue_age: { unit: "seconds", min: 1, max: 2_592_000, integer: true },
  job_duration: { unit: "seconds", min: 1, max: 2_592_000, integer: true },
  queue_depth: { unit: "jobs", min: 1, max: 1_000_000, integer: true },
  failure_rate: { unit: "share", min: 0, max: 1, minExclusive: true, integer: false },
  worker_offline: null,
};

export const ALERT_LIMITS = {
  forSeconds: { min: 0, max: 86_400, default: 0 },
  windowSeconds: { min: 60, max: 86_400, default: 900 },
  minJobs: { min: 1, max: 10_000, default: 10 },
} as const;

/** Seconds as a person reads them: "90 s", from 120 s on "12 min", from 7,200 s on "2 h" or "2.5 h". */
export function formatAlertSeconds(seconds: number): string {
  const s = Math.max(0, seconds);
  if (s < 120) return `${Math.floor(s)} s`;
  if (s < 7200) return `${Math.floor(s / 60)} min`;
  const hours = Math.floor((s / 3600) * 10) / 10;
  return `${Number.isInteger(hours) ? hours.toFixed(0) : hours.toFixed(1)} h`;
}

/** A share as percent: "25%", "12.5%". */
export function formatAlertShare(share: number): string {
  const percent = Math.round(share * 1000) / 10;
  return `${Number.isInteger(percent) ? percent.toFixed(0) : percent.toFixed(1)}%`;
}

const count = (n: number) => Math.round(n).toLocaleString("en-US");
const jobs = (n: number) => `${count(n)} job${Math.round(n) === 1 ? "" : "s"}`;

/** The leading waiting reason of an alert's queue as a clause (CONTRACT §6.21's reasons). */
const REASON_CLAUSES: Record<string, string> = {
  dependencies: "it waits for the jobs it depends on",
  awaiting_approval: "it awaits approval",
  development_mode: "the automation is in development mode",
  maintenance_window: "a maintenance window is in effect",
  scheduled: "it is scheduled for later",
  scheduled_retry: "it waits to be retried",
  no_worker: "no worker is registered",
  worker_offline: "the worker is offline",
  rate_limited: "the rate limit is reached",
  concurrency_limit: "the automation runs as many jobs as it may at once",
  key_concurrency_limit: "its concurrency key runs as many jobs as it may at once",
  next_in_line: "it is next in line",
};

export function waitingReasonClause(reason: string): string {
  return REASON_CLAUSES[reason] ?? reason.replaceAll("_", " ");
}

export interface AlertObservation {
  kind: AlertKind;
  automationName: string;
  /** In the kind's unit (CONTRACT §6.19 `value`). */
  value: number;
  threshold: number | null;
  /** failure_rate: the jobs finished in the window, and the window. */
  finishedJobs?: number;
  windowSeconds?: number;
  /** worker_offline: whether a worker is registered (else the value counts from the oldest due job). */
  workerRegistered?: boolean;
  /** queue kinds: the due queued jobs, and the leading waiting reason of the first in line. */
  dueJobs?: number;
  waitingReason?: string | null;
}

/** What the observation says, without the automation's name. */
function statement(o: AlertObservation): string {
  const t = o.threshold ?? 0;
  switch (o.kind) {
    case "queue_age":
      return `the oldest queued job has waited ${formatAlertSeconds(o.value)} (alert at ${formatAlertSeconds(t)})`;
    case "queue_depth":
      return `${jobs(o.value)} ${Math.round(o.value) === 1 ? "is" : "are"} queued (alert at ${count(t)})`;
    case "failure_rate":
      return `${formatAlertShare(o.value)} of the ${jobs(o.finishedJobs ?? 0)} finished in the last ${formatAlertSeconds(o.windowSeconds ?? 0)} failed (alert at ${formatAlertShare(t)})`;
    case "worker_offline":
      return o.workerRegistered
        ? `${jobs(o.dueJobs ?? 0)} wait${o.dueJobs === 1 ? "s" : ""} and the worker is offline, last seen ${formatAlertSeconds(o.value)} ago`
        : `${jobs(o.dueJobs ?? 0)} wait${o.dueJobs === 1 ? "s" : ""} and no worker is registered (the oldest for ${formatAlertSeconds(o.value)})`;
    case "job_duration":
      return `a job has been running for ${formatAlertSeconds(o.value)} (alert at ${formatAlertSeconds(t)})`;
  }
}

/**
 * The sentence of a firing alert: "Invoice export: the oldest queued job has waited 12 min (alert
 * at 10 min); the worker is offline". The waiting reason is added when jobs wait and it says more
 * than the statement already does.
 */
export function alertFiringMessage(o: AlertObservation): string {
  let message = `${o.automationName}: ${statement(o)}`;
  const reason = o.waitingReason;
  if (reason && !(o.kind === "worker_offline" && (reason === "worker_offline" || reason === "no_worker"))) message += `; ${waitingReasonClause(reason)}`;
  return message;
}

/** Why an alert resolved: its condition no longer holds, or its rule or automation changed. */
export type AlertResolution = "cleared" | "rule_deleted" | "rule_changed" | "automation_deactivated";

const KIND_NAMES: Record<AlertKind, string> = {
  queue_age: "queue age",
  queue_depth: "queue depth",
  failure_rate: "failure rate",
  worker_offline: "worker offline",
  job_duration: "job duration",
};

/** The sentence of a resolution: "Invoice export: resolved, the queue age alert no longer holds (…)". */
export function alertResolvedMessage(kind: AlertKind, automationName: string, resolution: AlertResolution, now?: AlertObservation): string {
  const head = `${automationName}: the ${KIND_NAMES[kind]} alert is resolved`;
  switch (resolution) {
    case "rule_deleted":
      return `${head}: its rule was deleted`;
    case "rule_changed":
      return `${head}: its rule was changed`;
    case "automation_deactivated":
      return `${head}: the automation was deactivated`;
    case "cleared":
      return now ? `${head}: ${resolvedDetail(now)}` : head;
  }
}

function resolvedDetail(o: AlertObservation): string {
  switch (o.kind) {
    case "queue_age":
      return o.dueJobs ? `the oldest queued job has waited ${formatAlertSeconds(o.value)}` : "no job waits";
    case "queue_depth":
      return `${jobs(o.value)} queued`;
    case "failure_rate":
      return `${formatAlertShare(o.value)} of the ${jobs(o.finishedJobs ?? 0)} finished in the last ${formatAlertSeconds(o.windowSeconds ?? 0)} failed`;
    case "worker_offline":
      return o.dueJobs ? "the worker is back" : "no job waits";
    case "job_duration":
      return o.value > 0 ? `the longest-running job has run ${formatAlertSeconds(o.value)}` : "no job runs too long";
  }
}
