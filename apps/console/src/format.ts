/** How times, durations and the hub's reasons read in the console. */
import type { Job } from "./api";

/** "12 s", "4 min", "3 h 5 min", "2 d 4 h". */
export function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

/**
 * The one way a time relative to now reads: "3 min ago", "in 5 min", "just now" (within a second),
 * or "never". Every relative time of the console goes through it, with `now` from the console's one
 * clock (clock.tsx), so the same time reads the same on every page.
 *
 * `expected` says which side of now the time belongs on. "past" (what happened): the hub's clock
 * (PostgreSQL's) may run a little ahead of the browser's, so a time slightly in the future reads
 * "just now", never "in 1 s". "future" (what is due): a time already passed reads "any moment now",
 * since the hub has not yet said what happened, never "15 s ago".
 */
export function relative(iso: string | null | undefined, now: number, expected: "past" | "future" | "either" = "either"): string {
  if (!iso) return "never";
  const delta = Date.parse(iso) - now;
  if (expected === "past" && delta > 0) return "just now";
  if (expected === "future" && delta < 0) return "any moment now";
  if (Math.abs(delta) < 1000) return "just now";
  return delta < 0 ? `${duration(-delta)} ago` : `in ${duration(delta)}`;
}

/** How long ago something happened: "3 min ago" ({@link relative} of a past time). */
export function ago(iso: string | null | undefined, now: number): string {
  return relative(iso, now, "past");
}

/** When something is due: "in 5 min" ({@link relative} of a future time). */
export function due(iso: string | null | undefined, now: number): string {
  return relative(iso, now, "future");
}

/** A full local date and time, for titles and tables. */
export function dateTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

/** `n thing` / `n things`. */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

/** A rate limit in words: "100 starts per 1 min", "5 starts per 30 s for each customer". */
export function rateLimitText(rateLimit: { count: number; period_seconds: number; per_key: boolean } | null, concurrencyKey: string | null): string {
  if (rateLimit === null) return "none";
  const window = `${count(rateLimit.count, "start")} per ${duration(rateLimit.period_seconds * 1000)}`;
  return rateLimit.per_key && concurrencyKey ? `${window} for each ${concurrencyKey}` : window;
}

/** A concurrency_key value as shown: jobs whose context lacks the key form the group "(none)". */
export function keyValueText(key: string | null): string {
  return key === null ? "(none)" : key;
}

export interface WaitingContext {
  maxConcurrentJobs: number | undefined;
  running: number | undefined;
  /** When the worker last called the hub; null: never; undefined: not known (yet). */
  workerLastSeenAt: string | null | undefined;
  now: number;
  /** The automation's limits per key (CONTRACT §6.13), when known. */
  concurrencyKey?: string | null | undefined;
  maxConcurrentPerKey?: number | null | undefined;
}

/**
 * Why a queued job is not running, in plain words: "Waiting: all 4 slots are busy; 12 jobs ahead".
 * `queue_position` counts the job itself (1 = next), so the jobs ahead are one fewer.
 */
export function waitingExplanation(job: Job, context: WaitingContext): string | undefined {
  const ahead = job.queue_position === null ? undefined : Math.max(0, job.queue_position - 1);
  const aheadText = ahead === undefined ? "" : `; ${count(ahead, "job")} ahead`;
  switch (job.waiting_reason) {
    case null:
      return undefined;
    case "dependencies":
      return `Waiting: ${count(job.pending_dependencies, "job")} it depends on ${job.pending_dependencies === 1 ? "has" : "have"} not finished yet.`;
    case "awaiting_approval":
      return job.approval?.expires_at
        ? `Waiting for an approval: an admin or one of the automation's approvers decides, or the request expires ${relative(job.approval.expires_at, context.now)}.`
        : "Waiting for an approval: an admin or one of the automation's approvers decides.";
    case "development_mode":
      return "Waiting: the automation is in development mode, so no job is handed to its worker.";
    case "maintenance_window":
      return job.resumes_at
        ? `Waiting: a maintenance window holds this automation; it resumes at ${dateTime(job.resumes_at)} (${relative(job.resumes_at, context.now)}).`
        : "Waiting: a maintenance window holds this automation.";
    case "no_worker":
      return "Waiting: no worker is registered for this automation.";
    case "worker_offline":
      if (context.workerLastSeenAt === undefined) return "Waiting: the worker is offline.";
      return context.workerLastSeenAt === null
        ? "Waiting: the worker is offline (it has not called the hub yet)."
        : `Waiting: the worker is offline (last seen ${ago(context.workerLastSeenAt, context.now)}).`;
    case "scheduled":
      return `Waiting: scheduled to run ${due(job.available_at, context.now)} (${dateTime(job.available_at)}).`;
    case "scheduled_retry":
      return `Waiting: retrying after a failed attempt, ${due(job.available_at, context.now)} (${dateTime(job.available_at)}).`;
    case "concurrency_limit": {
      const { maxConcurrentJobs: limit, running } = context;
      if (limit === undefined) return `Waiting: every slot is taken${aheadText}.`;
      const slots = count(limit, "slot");
      if (running === undefined || running >= limit) return `Waiting: all ${slots} are busy${aheadText}.`;
      return `Waiting: ${running} of ${slots} are busy and the jobs ahead take the rest${aheadText}.`;
    }
    case "rate_limited":
      return `Waiting: the rate limit allows no more starts for now; the next start is allowed ${due(job.available_at, context.now)} (${dateTime(job.available_at)}).`;
    case "key_concurrency_limit": {
      const { concurrencyKey: key, maxConcurrentPerKey: limit } = context;
      if (!key || !limit) return `Waiting: the jobs of its key value fill that value's limit${aheadText}.`;
      const value = job.context[key];
      const named = typeof value === "string" ? `${key} "${value}"` : `jobs without a ${key}`;
      const sameKeyAhead = ahead === undefined ? "" : `; ${count(ahead, "job")} of the same ${key} ahead`;
      return `Waiting: ${named} may run ${count(limit, "job")} at a time, and its jobs running or ahead take them${sameKeyAhead}.`;
    }
    case "next_in_line":
      return "Next in line: a slot is free, and the worker's next claim takes this job.";
    default: {
      const unknown: never = job.waiting_reason;
      return `Waiting: ${String(unknown)}.`;
    }
  }
}

/** Pretty JSON for context, result and payloads. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** The browser's time zone ("Europe/Berlin"), which `datetime-local` fields are read in. */
export function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** A full date and time in `timeZone`, naming the zone: "Mon 24 Nov 2026, 06:00 CET". */
export function zonedDateTime(iso: string, timeZone: string): string {
  return new Date(iso).toLocaleString(undefined, {
    timeZone,
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short",
  });
}

/** A `datetime-local` value (the browser's zone) as RFC 3339, or undefined when empty. */
export function isoOfLocal(local: string): string | undefined {
  return local ? new Date(local).toISOString() : undefined;
}

/** An instant as a `datetime-local` value in the browser's zone (minutes). */
export function localOfIso(iso: string): string {
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/**
 * An id short enough for a table that still tells ids apart: the hub's ids are time-ordered
 * (uuid v7), so jobs made together share their first characters and differ at the end. Shows
 * the first 4 and the last 8 characters around an ellipsis; the whole id is in the title and
 * for screen readers.
 */
export function shortId(id: string): string {
  return id.length <= 13 ? id : `${id.slice(0, 4)}…${id.slice(-8)}`;
}

/** A level prefix hub-worker's commands write on a standard-error line (`::warn disk almost full`). */
const LEVEL_PREFIX = /^::(?:debug|info|warn|error)[ \t]+/gm;

/**
 * A failed job's error as a person reads it: the CLI worker keeps the end of the command's standard
 * error, where a line may start with the `::warn` (…) prefix that set its log level; the log shows
 * the level, so the error shows the words.
 */
export function errorText(error: string): string {
  return error.replace(LEVEL_PREFIX, "");
}

/**
 * Why a failed job was not tried again: it used every attempt, or its worker reported the failure
 * as final (`retryable: false`; hub-worker does so for an exit code the automation treats as final).
 */
export function noRetryReason(job: Pick<Job, "status" | "attempts">, maxAttempts: number | undefined): string | undefined {
  if (job.status !== "failed") return undefined;
  if (maxAttempts !== undefined && job.attempts >= maxAttempts) return `Not tried again: it used all ${count(maxAttempts, "attempt")}.`;
  const left = maxAttempts === undefined ? "" : ` (${count(maxAttempts - job.attempts, "attempt")} left)`;
  return `Not tried again${left}: the worker reported this failure as final, not retryable (for hub-worker, an exit code the automation treats as final).`;
}
