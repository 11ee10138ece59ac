/**
 * One job: status, why it waits (in words), its progress, context, result or error, attempts, its
 * live log (./JobLog.tsx), its event timeline, and retry or cancel. Live: its own events extend
 * the timeline and re-read it; while it waits, its automation's events re-read it too (its place
 * in the queue moves).
 */
import { useState, type FormEvent } from "react";
import { call, hub, type Automation, type HubEvent, type Job } from "../api";
import { count, dateTime, errorText, localZone, noRetryReason, relative, shortId, waitingExplanation } from "../format";
import { useJobLog } from "../job-log";
import { automationIdOf, useLiveEvents } from "../live";
import { Link, navigate } from "../router";
import { useUser } from "../session";
import { ConfirmButton, CopyId, Empty, ErrorMessage, Field, Json, JobStatus, Loading, ShortId, useCoalesced, useResource, useSubmission } from "../ui";
import { Ago, Clocked, useNow } from "../clock";
import { readStats } from "./AutomationsPage";
import { JobLogSection, JobProgressBar } from "./JobLog";
import { RetriedAs } from "./jobs/RetriedAs";
import { shown } from "../shown";
import { ApprovalSection } from "./approvals/ApprovalSection";
import { JobFlow } from "./jobs/JobFlow";

/** Most events of one job the timeline reads at first (a job has a handful per attempt). */
const TIMELINE_LIMIT = 1000;

export function JobPage({ jobId }: { jobId: string }) {
  const user = useUser();
  const now = useNow();
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
  // Why it waits, in words that move with the console's clock ("in 5 s"); null: it does not wait.
  const waitingAt = (now: number) =>
    waitingExplanation(record, {
      maxConcurrentJobs: automation.data?.max_concurrent_jobs,
      running: stats.data?.running,
      workerLastSeenAt: stats.data?.worker_last_seen_at,
      now,
      concurrencyKey: automation.data?.concurrency_key,
      maxConcurrentPerKey: automation.data?.max_concurrent_per_key,
    });
  const waiting = record.waiting_reason !== null;

  return (
    <>
      <p className="crumbs">
        <Link to="/automations">Automations</Link> /{" "}
        {automation.data ? <Link to={`/automations/${record.automation_id}`}>{shown(automation.data.name)}</Link> : "…"} /
      </p>
      <div className="page-head">
        <h1>
          Job <ShortId id={record.id} />
        </h1>
        <span aria-live="polite" data-testid="job-status">
          <JobStatus status={record.status} />
        </span>
      </div>
      {waiting && (
        <p className="waiting" role="status">
          <Clocked text={(now) => waitingAt(now) ?? ""} />
        </p>
      )}
      {progress && <JobProgressBar progress={progress} />}
      {mayAct && (
        <div className="actions">
          {(record.status === "queued" || record.status === "running") && (
            <ConfirmButton
              label="Cancel job"
              danger
              question={
                record.status === "running" ? "Cancel this running job? Its slot frees at once; the worker's result will be refused." : "Cancel this job?"
              }
              confirmLabel="Cancel job"
              keepLabel={record.status === "running" ? "Keep running" : "Keep it queued"}
              onConfirm={async () => {
                await call(hub.POST("/jobs/{job_id}/cancel", { params: { path: { job_id: jobId } } }));
                reloadJob();
              }}
            />
          )}
          {(record.status === "failed" || record.status === "cancelled") && <RetryJob job={record} automation={automation.data} />}
        </div>
      )}

      <ApprovalSection job={record} automation={automation.data} now={now} onDecided={reloadJob} />

      <section aria-labelledby="details-title">
        <h2 id="details-title">Details</h2>
        <dl className="settings">
          <dt>Job id</dt>
          <dd>
            <code>{record.id}</code> <CopyId id={record.id} what="job" />
          </dd>
          <dt>Attempts</dt>
          <dd>
            {record.attempts}
            {automation.data && ` of ${automation.data.max_attempts}`}
          </dd>
          <dt>Created</dt>
          <dd title={dateTime(record.created_at)}>
            <Ago iso={record.created_at} />
          </dd>
          <dt>Started</dt>
          <dd title={dateTime(record.started_at)}>{record.started_at ? <Ago iso={record.started_at} /> : "—"}</dd>
          <dt>Finished</dt>
          <dd title={dateTime(record.finished_at)}>{record.finished_at ? <Ago iso={record.finished_at} /> : "—"}</dd>
          <dt>Priority</dt>
          <dd>{record.priority}</dd>
          {record.run_at && (
            <>
              <dt>Run at ({localZone()})</dt>
              <dd>{dateTime(record.run_at)}</dd>
            </>
          )}
          {record.lease_expires_at && record.status === "running" && (
            <>
              <dt>Lease expires</dt>
              <dd>
                <Clocked text={(now) => relative(record.lease_expires_at, now)} />
              </dd>
            </>
          )}
          {record.retry_of && (
            <>
              <dt>Retry of</dt>
              <dd>
                <Link to={`/jobs/${record.retry_of}`}>
                  <ShortId id={record.retry_of} />
                </Link>
              </dd>
            </>
          )}
          <RetriedAs job={record} />
          {record.schedule_id && (
            <>
              <dt>Made by schedule</dt>
              <dd>for {dateTime(record.fire_time)}</dd>
            </>
          )}
        </dl>
      </section>

      <JobFlow job={record} mayAct={mayAct} />

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
          {noRetryReason(record, automation.data?.max_attempts) && <p className="sub">{noRetryReason(record, automation.data?.max_attempts)}</p>}
          <pre className="json error-text" tabIndex={0}>
            {shown(errorText(record.error))}
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
  // Events written by one statement share their time: a job's creation still reads first.
  const first = (event: HubEvent) => (event.event_type === "job.created" ? 0 : 1);
  return [...byId.values()].sort((a, b) => a.created_at.localeCompare(b.created_at) || first(a) - first(b) || a.id.localeCompare(b.id));
}

/** A job event's payload in a few words. */
function summarize(event: HubEvent): string {
  const payload = event.payload as Record<string, unknown>;
  switch (event.event_type) {
    case "job.started":
      return `attempt ${String(payload.attempt)}`;
    case "job.failed":
      // The error itself is shown once, in its own section above.
      return `after ${count(Number(payload.attempts), "attempt")}`;
    case "job.requeued":
      return `${String(payload.reason)}; again ${payload.available_at ? `at ${new Date(String(payload.available_at)).toLocaleTimeString()}` : "soon"}`;
    case "job.cancelled":
      return payload.dependency_id ? `${String(payload.reason)}: ${shortId(String(payload.dependency_id))}` : String(payload.reason);
    case "job.created":
      return payload.retry_of
        ? `retry of ${shortId(String(payload.retry_of))}${payload.context_changed ? " with a changed context" : ""}`
        : payload.schedule_id
          ? "by a schedule"
          : "";
    case "job.rescheduled":
      return `priority ${String(payload.priority)}`;
    case "job.approved":
    case "job.rejected":
      return payload.comment ? shown(String(payload.comment)) : "";
    default:
      return "";
  }
}

/**
 * Retry: a new job of the same automation, with the old context in a form to correct first (the
 * input that made the job fail). Unchanged, the retry sends no context and copies the old one.
 */
function RetryJob({ job, automation }: { job: Job; automation: Automation | undefined }) {
  const [open, setOpen] = useState(false);
  const parameters = automation?.parameters ?? [];
  const initial = Object.fromEntries(
    parameters.map((parameter) => [parameter.name, typeof job.context[parameter.name] === "string" ? (job.context[parameter.name] as string) : ""]),
  );
  const [values, setValues] = useState<Record<string, string>>({});
  const { busy, error, issues, run } = useSubmission();
  const changed = parameters.some((parameter) => values[parameter.name] !== initial[parameter.name] || typeof job.context[parameter.name] !== "string");

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      const path = { params: { path: { job_id: job.id } } };
      const created = changed
        ? await call(hub.POST("/jobs/{job_id}/retry", { ...path, body: { context: { ...job.context, ...values } } }))
        : await call(hub.POST("/jobs/{job_id}/retry", path));
      navigate(`/jobs/${created.id}`);
    });
  };

  if (!open) {
    return (
      <button
        type="button"
        disabled={!automation}
        onClick={() => {
          // Filled when opened: the automation (its parameters) has been read by then.
          setValues(initial);
          setOpen(true);
        }}
      >
        Retry job…
      </button>
    );
  }
  return (
    <form className="form panel" aria-label="Retry job" onSubmit={(event) => void submit(event)}>
      <h2>Retry with this context</h2>
      <p className="hint">A new job of the same automation; correct the values that made this one fail, or retry as it was.</p>
      {parameters.length === 0 ? (
        <p className="muted">The automation has no parameters: the new job carries this job&apos;s context.</p>
      ) : (
        parameters.map((parameter) => (
          <Field key={parameter.name} label={parameter.name} hint={parameter.description || undefined} error={issues[`context.${parameter.name}`]}>
            {(props) => (
              <input
                {...props}
                required
                value={values[parameter.name] ?? ""}
                onChange={(event) => setValues((previous) => ({ ...previous, [parameter.name]: event.target.value }))}
              />
            )}
          </Field>
        ))
      )}
      {error && <ErrorMessage error={error} />}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {changed ? "Retry with the changed context" : "Retry job"}
        </button>
        <button type="button" disabled={busy} onClick={() => setOpen(false)}>
          Don&apos;t retry
        </button>
      </div>
    </form>
  );
}
