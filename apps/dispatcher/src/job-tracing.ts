/**
 * The dispatcher's part of a job's trace (CONTRACT §6.20), only while tracing is on:
 * - the hand-off of committed jobs to their ready sets (a dispatch queue message) is a `job.offer`
 *   span (kind producer) of their traces, placed as the relay's publishing is: a child of the job's
 *   trace for one job, else a root linked to each. Its trace contexts are read by primary key
 *   apart from the offer (only a tracing dispatcher asks), for the jobs the message does not say
 *   are unsampled (a tracing API says so of the jobs it creates: DispatchableJob.traceSampled);
 *   a failed read offers untraced;
 * - a sweep that ends jobs (lapsed leases, timeouts, expired approvals) is a span of the job's trace — a child of
 *   the span that created the job when the sweep ended one job, else a root span linked to each
 *   job's — from the sweep's statement to the hand-off of what it ended (its Redis calls are the
 *   span's children). A sweep that ended nothing is no span: the idle timer makes no traces;
 * - each fire of a schedule starts a trace of its own: a `schedule.fire` root span (kind
 *   producer), whose context the job it creates stores, so the job's claims and `job.run` spans
 *   are of the fire's trace.
 * Only jobs whose trace is sampled count: a span in (or linked to) a trace that is not sampled is
 * never recorded, so an offer or sweep of such jobs alone is no span, as one of untraced jobs.
 * With tracing off, {@link activeTracing} is undefined and each path below is that one check: no
 * clock read, no allocation, and the statements sent are the ones sent without tracing.
 */
import { type Executor, jobs, type schedules } from "@hub/db";
import type { Logger } from "@hub/shared";
import { activeTracing, isSampled, type HubTracing, type OpenSpan } from "@hub/tracing";

/** Runs `offer` (committed jobs to their ready sets) inside the `job.offer` span of their traces; only `offer` when tracing is off. */
export function inOfferSpan(
  db: Executor,
  logger: Logger,
  offered: readonly { id: string; traceSampled?: boolean }[],
  offer: () => Promise<void>,
): Promise<void> {
  const tracing = activeTracing();
  if (!tracing) return offer();
  const maybeSampled = offered.filter((job) => job.traceSampled !== false);
  if (maybeSampled.length === 0) return offer();
  return offerTraced(tracing, db, logger, offered.length, maybeSampled, offer);
}

async function offerTraced(
  tracing: HubTracing,
  db: Executor,
  logger: Logger,
  offeredCount: number,
  maybeSampled: readonly { id: string }[],
  offer: () => Promise<void>,
): Promise<void> {
  let traces: jobs.JobTraceRow[];
  try {
    const read = await jobs.readTraceContexts(
      db,
      maybeSampled.map((job) => job.id),
    );
    traces = [...read.values()].filter(isSampled);
  } catch (error) {
    logger.debug({ err: error }, "reading the offered jobs' trace contexts failed; offering untraced");
    return offer();
  }
  if (traces.length === 0) return offer();
  const [only] = traces.length === 1 ? traces : [];
  return tracing.inSpan(
    "job.offer",
    {
      kind: "producer",
      jobs: traces,
      attributes: { "hub.jobs.offered": offeredCount, ...(only ? { "hub.job.id": only.id, "hub.automation.id": only.automationId } : {}) },
    },
    offer,
  );
}

/** The span names, by what ended the jobs (the reason their events name). */
export const SWEEP_SPANS = { lease_expired: "job.lease_expired", timeout: "job.timed_out", approval_expired: "job.approval_expired" } as const;

/** A job a sweep ended, as the sweeping statement returned it. */
interface SweptJob {
  id: string;
  automationId: string;
  traceparent: string | null;
  tracestate: string | null;
}

/** The moment a sweep began, when tracing is on (the start of its spans); undefined when off. */
export function sweepStart(): Date | undefined {
  return activeTracing() ? new Date() : undefined;
}

/**
 * Runs `handOff` (offering what the sweep ended) inside the sweep's span of the jobs it ended;
 * only `handOff` when tracing is off. `swept` holds the ended jobs by where they went (requeued,
 * failed, cancelled): each list's length is the span's `hub.jobs.<outcome>`.
 */
export function inSweepSpan<Outcome extends string>(
  reason: keyof typeof SWEEP_SPANS,
  swept: Readonly<Record<Outcome, readonly SweptJob[]>>,
  startTime: Date | undefined,
  handOff: () => Promise<void>,
): Promise<void> {
  const tracing = activeTracing();
  if (!tracing || !startTime) return handOff();
  const byOutcome: [string, readonly SweptJob[]][] = Object.entries(swept);
  const ended = byOutcome.flatMap(([, jobs]) => jobs);
  const traces = ended.flatMap((job) => (job.traceparent ? [{ traceparent: job.traceparent, tracestate: job.tracestate }] : [])).filter(isSampled);
  if (traces.length === 0) return handOff();
  return tracing.inSpan(
    SWEEP_SPANS[reason],
    {
      startTime,
      jobs: traces,
      attributes: {
        "hub.job.reason": reason,
        ...Object.fromEntries(byOutcome.map(([outcome, jobs]) => [`hub.jobs.${outcome}`, jobs.length])),
        ...(ended.length === 1 ? { "hub.job.id": ended[0]!.id, "hub.automation.id": ended[0]!.automationId } : {}),
      },
    },
    handOff,
  );
}

/** The open `schedule.fire` spans of one fire pass, by schedule and fire time. */
export class FireSpans {
  readonly #spans = new Map<string, OpenSpan>();

  private constructor(private readonly tracing: HubTracing) {}

  /** Spans for a pass when tracing is on; undefined when off. */
  static forPass(): FireSpans | undefined {
    const tracing = activeTracing();
    return tracing ? new FireSpans(tracing) : undefined;
  }

  /** Starts a trace for each fire the pass decided and gives the fire its context (stored with its job). */
  open(due: readonly schedules.DueSchedule[], advances: schedules.ScheduleAdvance[]): schedules.ScheduleAdvance[] {
    const automationOf = new Map(due.map((schedule) => [schedule.id, schedule.automationId]));
    return advances.map((advance) => ({
      ...advance,
      fires: advance.fires.map((fire) => {
        const span = this.tracing.startSpan("schedule.fire", {
          kind: "producer",
          attributes: {
            "hub.schedule.id": advance.scheduleId,
            "hub.automation.id": automationOf.get(advance.scheduleId) ?? "",
            "hub.schedule.fire_time": fire.fireTime.toISOString(),
            "hub.schedule.outcome": fire.outcome,
          },
        });
        this.#spans.set(FireSpans.#key(advance.scheduleId, fire.fireTime), span);
        return span.traceContext ? { ...fire, trace: span.traceContext } : fire;
      }),
    }));
  }

  /** Ends every span of the pass: with the id of the job each fire made, or failed with `error` (the pass rolled back). */
  close(outcome: schedules.FirePassOutcome | undefined, error?: unknown): void {
    const jobOf = new Map((outcome?.created ?? []).map((job) => [FireSpans.#key(job.scheduleId, job.fireTime), job.id]));
    for (const [key, span] of this.#spans) {
      const jobId = jobOf.get(key);
      if (error !== undefined) span.end({ error: error instanceof Error ? error.name : "error" });
      else span.end(jobId ? { attributes: { "hub.job.id": jobId } } : {});
    }
    this.#spans.clear();
  }

  static #key(scheduleId: string, fireTime: Date): string {
    return `${scheduleId} ${fireTime.getTime()}`;
  }
}
