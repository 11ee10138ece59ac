/** How the Alerts page says a rule and reads the form's threshold (CONTRACT §6.19 units). */
import type { components } from "@hub/client";

export type AlertRule = components["schemas"]["AlertRule"];
export type Alert = components["schemas"]["Alert"];
export type AlertKind = AlertRule["kind"];

export const KIND_LABELS: Record<AlertKind, string> = {
  queue_age: "Queue age",
  queue_depth: "Queue depth",
  failure_rate: "Failure rate",
  worker_offline: "Worker offline",
  job_duration: "Job duration",
};

/** The form's unit for a kind's threshold: minutes for times, jobs, percent for shares. */
export const THRESHOLD_UNITS: Record<AlertKind, string | undefined> = {
  queue_age: "minutes",
  job_duration: "minutes",
  queue_depth: "jobs",
  failure_rate: "percent",
  worker_offline: undefined,
};

/** The threshold the API takes from what the form holds; undefined when the field is empty. */
export function thresholdOf(kind: AlertKind, text: string): number | null | undefined {
  if (kind === "worker_offline") return null;
  if (text.trim() === "") return undefined;
  const value = Number(text);
  if (kind === "queue_age" || kind === "job_duration") return Math.round(value * 60);
  if (kind === "failure_rate") return value / 100;
  return value;
}

const minutes = (seconds: number) => (seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`);

/** "Queue age over 10 min, for 1 min" */
export function ruleSummary(rule: AlertRule): string {
  const t = rule.threshold ?? 0;
  const condition =
    rule.kind === "queue_age"
      ? `the oldest queued job waits over ${minutes(t)}`
      : rule.kind === "job_duration"
        ? `a job runs over ${minutes(t)}`
        : rule.kind === "queue_depth"
          ? `${t} or more jobs are queued`
          : rule.kind === "failure_rate"
            ? `${Math.round(t * 1000) / 10}% or more of at least ${rule.min_jobs} jobs failed in ${minutes(rule.window_seconds)}`
            : "jobs wait while the worker is offline";
  return rule.for_seconds > 0 ? `${condition}, for ${minutes(rule.for_seconds)}` : condition;
}
