/**
 * An automation's jobs: filters (status, created between), pages (the list's cursors), and for
 * admins bulk cancel and retry of what the filters select, always counted by a dry run first.
 */
import { useEffect, useState } from "react";
import { call, describeError, hub, nextCursor, type Automation, type AutomationStats, type BulkActionResult, type Job } from "../api";
import { ago, count, dateTime, waitingExplanation } from "../format";
import { Link } from "../router";
import { useUser } from "../session";
import { Empty, ErrorMessage, Field, JobStatus, Loading, useNow, useSubmission } from "../ui";

const PAGE_SIZE = 20;
const STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;
type Status = (typeof STATUSES)[number];

interface Filters {
  status: Status | "";
  /** `datetime-local` values (local time), "" when unset. */
  createdAfter: string;
  createdBefore: string;
}

const isoOf = (local: string) => (local ? new Date(local).toISOString() : undefined);

export function JobsSection({ automation, version, stats }: { automation: Automation; version: number; stats: AutomationStats | undefined }) {
  const user = useUser();
  const now = useNow();
  const [filters, setFilters] = useState<Filters>({ status: "", createdAfter: "", createdBefore: "" });
  /** Cursors of the pages before the current one (the first page has none). */
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<{ jobs: Job[]; next: string | undefined }>();
  const [error, setError] = useState<string>();
  const cursor = cursors[cursors.length - 1];

  useEffect(() => {
    let current = true;
    const query = {
      automation_id: automation.id,
      limit: PAGE_SIZE,
      ...(filters.status ? { status: filters.status } : {}),
      ...(filters.createdAfter ? { created_after: isoOf(filters.createdAfter) } : {}),
      ...(filters.createdBefore ? { created_before: isoOf(filters.createdBefore) } : {}),
      ...(cursor ? { cursor } : {}),
    };
    const request = hub.GET("/jobs", { params: { query } });
    call(request).then(
      async (jobs) => {
        const next = nextCursor((await request).response);
        if (!current) return;
        setPage({ jobs, next });
        setError(undefined);
      },
      (failure: unknown) => {
        if (current) setError(describeError(failure));
      },
    );
    return () => {
      current = false;
    };
  }, [automation.id, filters, cursor, version]);

  const changeFilters = (change: Partial<Filters>) => {
    setFilters((previous) => ({ ...previous, ...change }));
    setCursors([undefined]);
  };

  return (
    <section aria-labelledby="jobs-title">
      <h2 id="jobs-title">Jobs</h2>
      <form className="filters" aria-label="Job filters" onSubmit={(event) => event.preventDefault()}>
        <Field label="Status">
          {(props) => (
            <select {...props} value={filters.status} onChange={(event) => changeFilters({ status: event.target.value as Status | "" })}>
              <option value="">Any status</option>
              {STATUSES.map((status) => (
                <option key={status} value={status}>
                  {status}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Created after">
          {(props) => <input {...props} type="datetime-local" value={filters.createdAfter} onChange={(event) => changeFilters({ createdAfter: event.target.value })} />}
        </Field>
        <Field label="Created before">
          {(props) => <input {...props} type="datetime-local" value={filters.createdBefore} onChange={(event) => changeFilters({ createdBefore: event.target.value })} />}
        </Field>
      </form>
      {user.isAdmin && <BulkActions automationId={automation.id} filters={filters} />}
      {error && <ErrorMessage error={error} />}
      {page === undefined ? (
        !error && <Loading what="jobs" />
      ) : page.jobs.length === 0 ? (
        <Empty>{filters.status || filters.createdAfter || filters.createdBefore ? "No job matches these filters." : "No jobs yet."}</Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Jobs of {automation.name}, newest first, updated live</caption>
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Finished</th>
                <th scope="col" className="num">
                  Attempts
                </th>
                <th scope="col">Note</th>
              </tr>
            </thead>
            <tbody>
              {page.jobs.map((job) => (
                <tr key={job.id} data-job={job.id}>
                  <th scope="row">
                    <Link to={`/jobs/${job.id}`}>
                      <code>{job.id.slice(0, 8)}</code>
                    </Link>
                  </th>
                  <td>
                    <JobStatus status={job.status} />
                  </td>
                  <td title={dateTime(job.created_at)}>{ago(job.created_at, now)}</td>
                  <td title={dateTime(job.finished_at)}>{job.finished_at ? ago(job.finished_at, now) : "—"}</td>
                  <td className="num">{job.attempts}</td>
                  <td className="note">
                    {job.status === "queued"
                      ? waitingExplanation(job, { maxConcurrentJobs: automation.max_concurrent_jobs, running: stats?.running, workerLastSeenAt: stats?.worker_last_seen_at, now })
                      : (job.error ?? "")}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav className="pager" aria-label="Job pages">
        <button type="button" disabled={cursors.length <= 1} onClick={() => setCursors((stack) => stack.slice(0, -1))}>
          Previous page
        </button>
        <span>Page {cursors.length}</span>
        <button type="button" disabled={!page?.next} onClick={() => page?.next && setCursors((stack) => [...stack, page.next])}>
          Next page
        </button>
      </nav>
    </section>
  );
}

type BulkKind = "cancel" | "retry";
const BULK = {
  cancel: { statuses: ["queued", "running"], verb: "Cancel", done: "Cancelled" },
  retry: { statuses: ["failed", "cancelled"], verb: "Retry", done: "Retried" },
} as const;
/** Most jobs one bulk action takes (the API's maximum). */
const BULK_LIMIT = 10_000;

function BulkActions({ automationId, filters }: { automationId: string; filters: Filters }) {
  const [preview, setPreview] = useState<{ kind: BulkKind; statuses: string[]; result: BulkActionResult }>();
  const [outcome, setOutcome] = useState<string>();
  const submission = useSubmission();
  const { busy, error } = submission;

  // Another filter makes the preview's count stale.
  useEffect(() => setPreview(undefined), [filters]);

  const run = async (kind: BulkKind, dryRun: boolean) => {
    const applicable: readonly string[] = BULK[kind].statuses;
    const statuses = filters.status && applicable.includes(filters.status) ? [filters.status] : [...applicable];
    const common = {
      automation_id: automationId,
      ...(filters.createdAfter ? { created_after: isoOf(filters.createdAfter) } : {}),
      ...(filters.createdBefore ? { created_before: isoOf(filters.createdBefore) } : {}),
      dry_run: dryRun,
      limit: BULK_LIMIT,
    };
    setOutcome(undefined);
    await submission.run(async () => {
      const result =
        kind === "cancel"
          ? await call(hub.POST("/jobs/bulk-cancel", { body: { ...common, status: statuses as ("queued" | "running")[] } }))
          : await call(hub.POST("/jobs/bulk-retry", { body: { ...common, status: statuses as ("failed" | "cancelled")[] } }));
      if (dryRun) setPreview({ kind, statuses, result });
      else {
        setPreview(undefined);
        setOutcome(`${BULK[kind].done} ${count(result.affected, "job")}.`);
      }
    });
  };

  const statusFilterFits = (kind: BulkKind) => !filters.status || (BULK[kind].statuses as readonly string[]).includes(filters.status);

  return (
    <div className="bulk" role="group" aria-label="Bulk actions">
      {!preview && (
        <>
          <button type="button" disabled={busy || !statusFilterFits("cancel")} onClick={() => void run("cancel", true)}>
            Cancel matching jobs…
          </button>
          <button type="button" disabled={busy || !statusFilterFits("retry")} onClick={() => void run("retry", true)}>
            Retry matching jobs…
          </button>
        </>
      )}
      {preview && (
        <div className="preview" role="alert">
          {preview.result.matched === 0 ? (
            <>
              <span>No {preview.statuses.join(" or ")} job matches the filters.</span>
              <button type="button" onClick={() => setPreview(undefined)}>
                OK
              </button>
            </>
          ) : (
            <>
              <span>
                {`Dry run: ${count(preview.result.matched, `${preview.statuses.join(" or ")} job`)}${preview.result.matched >= BULK_LIMIT ? " (or more)" : ""} would be ${preview.kind === "cancel" ? "cancelled" : "retried"}.`}
              </span>
              <button type="button" className={preview.kind === "cancel" ? "danger" : "primary"} disabled={busy} onClick={() => void run(preview.kind, false)}>
                {BULK[preview.kind].verb} {count(preview.result.matched, "job")}
              </button>
              <button type="button" disabled={busy} onClick={() => setPreview(undefined)}>
                Keep them
              </button>
            </>
          )}
        </div>
      )}
      {outcome && (
        <p role="status" className="notice">
          {outcome}
        </p>
      )}
      {error && <ErrorMessage error={error} />}
    </div>
  );
}
