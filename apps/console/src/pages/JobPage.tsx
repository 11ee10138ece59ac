/**
 * One job: status, why it waits (in words), its progress, context, result or error, attempts, its
 * live log (./JobLog.tsx), its event timeline, and retry or cancel. Live: its own events extend
 * the timeline and re-read it; while it waits, its automation's events re-read it too (its place
 * in the queue moves).
 */
import { useState } from "react";
import { call, hub, type HubEvent, type Job } from "../api";
import { ago, dateTime, relative, waitingExplanation } from "../format";
import { useJobLog } from "../job-log";
import { automationIdOf, useLiveEvents } from "../live";
import { Link, navigate } from "../router";
import { useUser } from "../session";
import { ConfirmButton, Empty, ErrorMessage, Json, JobStatus, Loading, useCoalesced, useNow, useResource } from "../ui";
import { readStats } from "./AutomationsPage";
import { JobLogSection, JobProgressBar } from "./JobLog";

/** Most events of one job the timeline reads at first (a job has a handful per attempt). */
const TIMELINE_LIMIT = 1000;

export function JobPage({ jobId }: { jobId: string }) {
  const user = useUser();
  const now = useNow(5_000);
  const job = useResource(() => call(hub.GET("/jobs/{job_id}", { params: { path: { job_id: jobId } } })), [jobId]);
  const automationId = job.data?.automation_id;
  const automation = useResource(
    async () => (automationId ? call(hub.GET("/automations/{automation_id}", { params: { path: { automation_id: automationId } } })) : undefined),
    [automationId],
  );
  const stats = useResource(async () => (automationId ? readStats(automationId) : undefined), [automationId]);
  const history = useResource(() => call(hub.GET("/events", { params: { query: { aggregate_id: jobId, limit: TIMELINE_LIMIT } } })), [jobId]);
  const [liveEvents, setLiveEvents] = useState<HubEvent[]>([]);
  const log = useJobLog(jobId);

  const reloadJob = useCoalesced(() => job.reload());
  const reloadQueue = useCoalesced(() => {
    job.reload();
    stats.reload();
    automation.reload();
  });

  useLiveEvents((event) => {
    if (event === "reset") {
      setLiveEvents([]);
      history.reload();
      reloadQueue();
      return;
    }
    if (event.aggregate_id === jobId) {
      setLiveEvents((previous) => [...previous, event]);
      reloadJob();
    } else if (automationId && automationIdOf(event) === automationId && job.data?.status === "queued") {
      reloadQueue();
    }
  });

  if (job.error && !job.data) return <ErrorMessage error={job.error} onRetry={job.reload} />;
  if (!job.data) return <Loading what="the job" />;
  const record: Job = job.data;
  const timeline = mergeEvents(history.data ?? [], liveEvents);
  const mayAct = user.isAdmin || record.created_by === user.id;
  // The stream's progress is the newer once it said anything; until then the record's.
  const progress = log.progress !== undefined ? log.progress : record.progress;
  const waiting = waitingExplanation(record, {
    maxConcurrentJobs: automation.data?.max_concurrent_jobs,
    running: stats.data?.running,
    workerLastSeenAt: stats.data?.worker_last_seen_at,
    now,
    concurrencyKey: automation.data?.concurrency_key,
    maxConcurrentPerKey: automation.data?.max_concurrent_per_key,
  });

  return (
    <>
      <p className="crumbs">
        <Link to="/automations">Automations</Link> /{" "}
        {automation.data ? <Link to={`/automations/${record.automation_id}`}>{automation.data.name}</Link> : "…"} /
      </p>
      <div className="page-head">
        <h1>
          Job <code>{record.id.slice(0, 8)}</code>
        </h1>
        <span aria-live="polite" data-testid="job-status">
          <JobStatus status={record.status} />
        </span>
      </div>
      {waiting && (
        <p className="waiting" role="status">
          {waiting}
        </p>
      )}
      {progress && <JobProgressBar progress={progress} />}
      {mayAct && (
        <div className="actions">
          {(record.status === "queued" || record.status === "running") && (
            <ConfirmButton
              label="Cancel job"
              danger
              question={record.status === "running" ? "Cancel this running job? Its slot frees at once; the worker's result will be refused." : "Cancel this job?"}
              confirmLabel="Cancel it"
              onConfirm={async () => {
                await call(hub.POST("/jobs/{job_id}/cancel", { params: { path: { job_id: jobId } } }));
                reloadJob();
              }}
            />
          )}
          {(record.status === "failed" || record.status === "cancelled") && (
            <ConfirmButton
              label="Retry job"
              question="Create a new job with the same context?"
              confirmLabel="Retry it"
              onConfirm={async () => {
                const created = await call(hub.POST("/jobs/{job_id}/retry", { params: { path: { job_id: jobId } } }));
                navigate(`/jobs/${created.id}`);
              }}
            />
          )}
        </div>
      )}

      <section aria-labelledby="details-title">
        <h2 id="details-title">Details</h2>
        <dl className="settings">
          <dt>Job id</dt>
          <dd>
            <code>{record.id}</code>
          </dd>
          <dt>Attempts</dt>
          <dd>
            {record.attempts}
            {automation.data && ` of ${automation.data.max_attempts}`}
          </dd>
          <dt>Created</dt>
          <dd title={dateTime(record.created_at)}>{ago(record.created_at, now)}</dd>
          <dt>Started</dt>
          <dd title={dateTime(record.started_at)}>{record.started_at ? ago(record.started_at, now) : "—"}</dd>
          <dt>Finished</dt>
          <dd title={dateTime(record.finished_at)}>{record.finished_at ? ago(record.finished_at, now) : "—"}</dd>
          <dt>Priority</dt>
          <dd>{record.priority}</dd>
          {record.run_at && (
            <>
              <dt>Run at</dt>
              <dd>{dateTime(record.run_at)}</dd>
            </>
          )}
          {record.lease_expires_at && record.status === "running" && (
            <>
              <dt>Lease expires</dt>
              <dd>{relative(record.lease_expires_at, now)}</dd>
            </>
          )}
          {record.retry_of && (
            <>
              <dt>Retry of</dt>
              <dd>
                <Link to={`/jobs/${record.retry_of}`}>
                  <code>{record.retry_of.slice(0, 8)}</code>
                </Link>
              </dd>
            </>
          )}
          {record.schedule_id && (
            <>
              <dt>Made by schedule</dt>
              <dd>for {dateTime(record.fire_time)}</dd>
            </>
          )}
        </dl>
      </section>

      <section aria-labelledby="context-title">
        <h2 id="context-title">Context</h2>
        <Json value={record.context} />
      </section>
      {record.result !== null && (
        <section aria-labelledby="result-title">
          <h2 id="result-title">Result</h2>
          <Json value={record.result} />
        </section>
      )}
      {record.error !== null && (
        <section aria-labelledby="error-title">
          <h2 id="error-title">Error</h2>
          <pre className="json error-text" tabIndex={0}>
            {record.error}
          </pre>
        </section>
      )}

      <JobLogSection key={jobId} jobId={jobId} log={log} />

      <section aria-labelledby="timeline-title">
        <h2 id="timeline-title">Timeline</h2>
        {history.error && <ErrorMessage error={history.error} onRetry={history.reload} />}
        {history.loading && !history.data ? (
          <Loading what="the timeline" />
        ) : timeline.length === 0 ? (
          <Empty>No events yet.</Empty>
        ) : (
          <ol className="timeline">
            {timeline.map((event) => (
              <li key={event.id}>
                <time dateTime={event.created_at} title={dateTime(event.created_at)}>
                  {new Date(event.created_at).toLocaleTimeString()}
                </time>{" "}
                <strong>{event.event_type}</strong> <span className="sub">{summarize(event)}</span>
              </li>
            ))}
          </ol>
        )}
      </section>
    </>
  );
}

/** History and live events, once each, oldest first. */
function mergeEvents(history: HubEvent[], live: HubEvent[]): HubEvent[] {
  const byId = new Map<string, HubEvent>();
  for (const event of [...history, ...live]) byId.set(event.id, event);
  return [...byId.values()].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/** A job event's payload in a few words. */
function summarize(event: HubEvent): string {
  const payload = event.payload as Record<string, unknown>;
  switch (event.event_type) {
    case "job.started":
      return `attempt ${String(payload.attempt)}`;
    case "job.failed":
      return `${String(payload.error)} (after ${String(payload.attempts)} attempts)`;
    case "job.requeued":
      return `${String(payload.reason)}; again ${payload.available_at ? `at ${new Date(String(payload.available_at)).toLocaleTimeString()}` : "soon"}`;
    case "job.cancelled":
      return String(payload.reason);
    case "job.created":
      return payload.retry_of ? `retry of ${String(payload.retry_of).slice(0, 8)}` : payload.schedule_id ? "by a schedule" : "";
    case "job.rescheduled":
      return `priority ${String(payload.priority)}`;
    default:
      return "";
  }
}
