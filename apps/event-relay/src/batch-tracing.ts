/**
 * The relay's part of a job's trace (CONTRACT §6.20), only while tracing is on:
 * - publishing a batch with job events is a `hub:events publish` span (kind producer): a child of
 *   the job's trace when the batch serves one job, else a root span linked to each job's;
 * - an event that ends an attempt (completed, failed, requeued, cancelled while running) records
 *   that attempt's `job.run <slug>` span, from its `job.started` event to the ending event, under
 *   the span id its claim handed out. The relay sees every ending, whichever process caused it
 *   (a worker's call, a lease lapse, a timeout, a cancel), which is why the span is recorded here.
 * Only jobs whose trace is sampled count: a span in (or linked to) a trace that is not sampled is
 * never recorded, so a batch of such jobs alone is published as an untraced one, and their
 * attempts' starts are not read. The batch's read says which jobs' traces those are (their
 * stored `traceparent`, read with the events: @hub/db events/outbox.ts), so a batch without a
 * sampled job costs no read of its own; the trace contexts of the sampled ones are read apart.
 * Tracing never fails or delays relaying beyond its reads: a failed read publishes untraced.
 * An at-least-once re-publish may record a span twice (same ids; backends keep one).
 */
import { type Executor, type HubEvent, jobs } from "@hub/db";
import type { Logger } from "@hub/shared";
import { activeTracing, isSampled, type HubTracing } from "@hub/tracing";
import type { StreamPublisher } from "./stream-publisher";

const ATTEMPT_ENDINGS = new Set(["job.completed", "job.failed", "job.requeued", "job.cancelled"]);
/** Reasons are a fixed vocabulary (lease_expired, timeout, …); anything else is left out of the span. */
const REASON = /^[a-z_]{1,64}$/;

/**
 * Publishes a batch; `jobTraceparents` (the stored `traceparent` of the batch's jobs, by job id, as
 * the batch's read returned them) spares the read of the jobs whose trace is not sampled.
 */
export type TracedStreamPublisher = (batch: readonly HubEvent[], jobTraceparents?: ReadonlyMap<string, string>) => Promise<void>;

export function tracedPublisher(options: { db: Executor; publish: StreamPublisher; stream: string; logger: Logger }): TracedStreamPublisher {
  const { db, publish, stream, logger } = options;
  return async (batch, jobTraceparents) => {
    const tracing = activeTracing();
    const jobEvents = tracing ? batch.filter((event) => event.eventType.startsWith("job.")) : [];
    if (!tracing || jobEvents.length === 0) return publish(batch);
    const jobIds = [...new Set(jobEvents.map((event) => event.aggregateId))];
    const maybeSampled = jobTraceparents ? jobIds.filter((id) => isSampledTraceparent(jobTraceparents.get(id))) : jobIds;
    if (maybeSampled.length === 0) return publish(batch);
    let traces: Map<string, jobs.JobTraceRow>;
    try {
      const read = await jobs.readTraceContexts(db, maybeSampled);
      traces = new Map([...read].filter(([, trace]) => isSampled(trace)));
    } catch (error) {
      logger.debug({ err: error }, "reading the batch's trace contexts failed; publishing untraced");
      return publish(batch);
    }
    if (traces.size === 0) return publish(batch);
    await tracing.inSpan(
      "hub:events publish",
      {
        kind: "producer",
        jobs: [...traces.values()],
        attributes: { "messaging.system": "redis", "messaging.destination.name": stream, "messaging.batch.message_count": batch.length },
      },
      () => publish(batch),
    );
    await recordEndedAttempts(tracing, db, jobEvents, traces).catch((error: unknown) =>
      logger.debug({ err: error }, "recording the batch's job.run spans failed"),
    );
  };
}

const isSampledTraceparent = (traceparent: string | undefined) => traceparent !== undefined && isSampled({ traceparent });

async function recordEndedAttempts(tracing: HubTracing, db: Executor, jobEvents: HubEvent[], traces: Map<string, jobs.JobTraceRow>): Promise<void> {
  const endings = jobEvents.filter((event) => ATTEMPT_ENDINGS.has(event.eventType) && traces.has(event.aggregateId));
  if (endings.length === 0) return;
  const starts = new Map(
    (
      await jobs.readAttemptStarts(
        db,
        endings.map((event) => event.id),
      )
    ).map((start) => [start.endingEventId, start]),
  );
  for (const event of endings) {
    const start = starts.get(event.id);
    const trace = traces.get(event.aggregateId);
    if (!start || !trace) continue;
    const reason = event.payload.reason;
    tracing.recordJobRun({
      trace,
      jobId: event.aggregateId,
      attempt: start.attempt,
      automationId: trace.automationId,
      automationSlug: trace.automationSlug,
      startedAt: start.startedAt,
      endedAt: event.createdAt,
      outcome: event.eventType.slice("job.".length),
      reason: typeof reason === "string" && REASON.test(reason) ? reason : undefined,
    });
  }
}
