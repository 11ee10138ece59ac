/**
 * A list of jobs: one automation's (its page) or every automation's (the Jobs page). Filters
 * (status, automation, created and finished between, created by, context values, error text),
 * keyset pages (the list's cursors), reschedule and run now on a queued job, and for admins bulk
 * cancel and retry of what the filters select, always counted by a dry run first.
 */
import { useEffect, useRef, useState } from "react";
import { call, describeError, hub, nextCursor, type Automation, type AutomationStats, type BulkActionResult, type Job } from "../api";
import { ago, count, dateTime, isoOfLocal, localOfIso, localZone, waitingExplanation } from "../format";
import { Link } from "../router";
import { useUser } from "../session";
import { ConfirmButton, CopyId, Empty, ErrorMessage, Field, JobStatus, Loading, ShortId, useNow, useResource, useSubmission } from "../ui";
import { listAllUsers } from "./UsersPage";
import { shown } from "../shown";

const PAGE_SIZE = 20;
const STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;
type Status = (typeof STATUSES)[number];
/** Most context filters one request takes (CONTRACT §6.14). */
const MAX_CONTEXT_FILTERS = 5;
/** How long typing in a text filter waits before the list is read again. */
const TYPING_PAUSE_MS = 350;

interface ContextFilter {
  key: number;
  name: string;
  value: string;
}

export interface Filters {
  status: Status | "";
  /** "" = every automation (the Jobs page only). */
  automationId: string;
  /** `datetime-local` values (local time), "" when unset. */
  createdAfter: string;
  createdBefore: string;
  finishedAfter: string;
  finishedBefore: string;
  /** A user id, or "". */
  createdBy: string;
  context: ContextFilter[];
  errorContains: string;
}

export const NO_FILTERS: Filters = {
  status: "",
  automationId: "",
  createdAfter: "",
  createdBefore: "",
  finishedAfter: "",
  finishedBefore: "",
  createdBy: "",
  context: [],
  errorContains: "",
};

/** The filters as GET /jobs's query (a context filter without a name is left out). */
function jobsQuery(filters: Filters) {
  const context = Object.fromEntries(filters.context.filter((row) => row.name.trim()).map((row) => [row.name.trim(), row.value]));
  return {
    ...(filters.automationId ? { automation_id: filters.automationId } : {}),
    ...(filters.status ? { status: [filters.status] } : {}),
    ...(filters.createdAfter ? { created_after: isoOfLocal(filters.createdAfter) } : {}),
    ...(filters.createdBefore ? { created_before: isoOfLocal(filters.createdBefore) } : {}),
    ...(filters.finishedAfter ? { finished_after: isoOfLocal(filters.finishedAfter) } : {}),
    ...(filters.finishedBefore ? { finished_before: isoOfLocal(filters.finishedBefore) } : {}),
    ...(filters.createdBy ? { created_by: filters.createdBy } : {}),
    ...(filters.errorContains.trim() ? { error_contains: filters.errorContains.trim() } : {}),
    ...(Object.keys(context).length > 0 ? { context } : {}),
  };
}

/** The filters as a URL query (`?status=failed&context.month=2026-10`), so a filtered list can be shared and reloaded. */
export function filtersToSearch(filters: Filters): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(jobsQuery(filters))) {
    if (name === "context") for (const [key, text] of Object.entries(value as Record<string, string>)) query.append(`context.${key}`, text);
    else query.set(name, String(value));
  }
  const text = query.toString();
  return text ? `?${text}` : "";
}

/** The filters a URL query names (the reverse of {@link filtersToSearch}); anything else is ignored. */
export function filtersFromSearch(search: string): Filters {
  const query = new URLSearchParams(search);
  const local = (name: string) => {
    const value = query.get(name);
    return value && !Number.isNaN(Date.parse(value)) ? localOfIso(value) : "";
  };
  const status = query.get("status") ?? "";
  return {
    status: (STATUSES as readonly string[]).includes(status) ? (status as Status) : "",
    automationId: query.get("automation_id") ?? "",
    createdAfter: local("created_after"),
    createdBefore: local("created_before"),
    finishedAfter: local("finished_after"),
    finishedBefore: local("finished_before"),
    createdBy: query.get("created_by") ?? "",
    errorContains: query.get("error_contains") ?? "",
    context: [...query.entries()]
      .filter(([name]) => name.startsWith("context."))
      .slice(0, MAX_CONTEXT_FILTERS)
      .map(([name, value], index) => ({ key: -(index + 1), name: name.slice("context.".length), value })),
  };
}

/** Whether any filter narrows the list (the automation a page is about does not count). */
function filtered(filters: Filters, fixedAutomation: boolean): boolean {
  return Object.keys(jobsQuery({ ...filters, automationId: fixedAutomation ? "" : filters.automationId })).length > 0;
}

/** What is typed into the filters (error text, context values), as opposed to what is picked. */
const typedOf = (filters: Filters) => JSON.stringify([filters.errorContains, filters.context]);

/**
 * The filters the list and the bulk actions use: a pick (status, automation, a time) at once, a
 * change of what is typed once the typing pauses for `ms`.
 */
function useSettled(filters: Filters, ms: number): Filters {
  const [settled, setSettled] = useState(filters);
  useEffect(() => {
    if (typedOf(filters) === typedOf(settled)) {
      setSettled(filters);
      return;
    }
    const timer = setTimeout(() => setSettled(filters), ms);
    return () => clearTimeout(timer);
    // Only a change of the filters starts a wait; `settled` catching up must not restart it.
  }, [filters, ms]);
  return settled;
}

export function JobsSection({
  automation,
  automations,
  version,
  stats,
  initialFilters = NO_FILTERS,
  onFiltersSettled,
}: {
  /** The automation whose jobs these are; absent: every automation's, with an automation filter. */
  automation?: Automation;
  /** Every automation, for the filter and the names in the list (without `automation`). */
  automations?: Automation[];
  /** Changes when the list should be read again (live events). */
  version: number;
  stats?: AutomationStats | undefined;
  initialFilters?: Filters;
  /** Told the filters once they settle (the Jobs page keeps them in its URL). */
  onFiltersSettled?: (filters: Filters) => void;
}) {
  const user = useUser();
  const now = useNow();
  const [filters, setFilters] = useState<Filters>(() => (automation ? { ...initialFilters, automationId: automation.id } : initialFilters));
  const settled = useSettled(filters, TYPING_PAUSE_MS);
  /** Cursors of the pages before the current one (the first page has none). */
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<{ jobs: Job[]; next: string | undefined }>();
  const [error, setError] = useState<string>();
  const [nextKey, setNextKey] = useState(1);
  /** Bumped to read the current page again after an action. */
  const [refresh, setRefresh] = useState(0);
  const cursor = cursors[cursors.length - 1];
  const users = useResource(async () => (user.isAdmin ? listAllUsers(true) : []), [user.isAdmin]);
  const moreCount = [filters.createdAfter, filters.createdBefore, filters.finishedAfter, filters.finishedBefore, filters.errorContains.trim()].filter(Boolean).length + filters.context.length;
  const [moreOpen, setMoreOpen] = useState(moreCount > 0);

  const latestOnSettled = useRef(onFiltersSettled);
  latestOnSettled.current = onFiltersSettled;
  useEffect(() => latestOnSettled.current?.(settled), [settled]);

  useEffect(() => {
    let current = true;
    const request = hub.GET("/jobs", { params: { query: { ...jobsQuery(settled), limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } } });
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
  }, [settled, cursor, version, refresh]);

  const changeFilters = (change: Partial<Filters>) => {
    setFilters((previous) => ({ ...previous, ...change }));
    setCursors([undefined]);
  };
  const changeContext = (key: number, change: Partial<ContextFilter>) =>
    changeFilters({ context: filters.context.map((row) => (row.key === key ? { ...row, ...change } : row)) });
  const reloadPage = () => setRefresh((value) => value + 1);

  const automationsById = new Map((automations ?? []).map((candidate) => [candidate.id, candidate]));
  const emailsById = new Map((users.data ?? []).map((candidate) => [candidate.id, candidate.email]));
  const creatorName = (id: string | null) => (id === null ? "a schedule" : id === user.id ? "you" : (emailsById.get(id) ?? "another user"));
  const zone = localZone();
  const parameterNames = automation ? automation.parameters.map((parameter) => parameter.name) : [...new Set((automations ?? []).flatMap((candidate) => candidate.parameters.map((parameter) => parameter.name)))];
  const listId = automation ? `context-names-${automation.id}` : "context-names";

  return (
    <section aria-labelledby={automation ? "jobs-title" : undefined} aria-label={automation ? undefined : "Jobs"}>
      {automation && <h2 id="jobs-title">Jobs</h2>}
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
        {!automation && (
          <Field label="Automation">
            {(props) => (
              <select {...props} value={filters.automationId} onChange={(event) => changeFilters({ automationId: event.target.value })}>
                <option value="">Every automation</option>
                {(automations ?? []).map((candidate) => (
                  <option key={candidate.id} value={candidate.id}>
                    {shown(candidate.name)}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
        <Field label="Created by">
          {(props) => (
            <select {...props} value={filters.createdBy} onChange={(event) => changeFilters({ createdBy: event.target.value })}>
              <option value="">Anyone</option>
              <option value={user.id}>Me</option>
              {(users.data ?? [])
                .filter((candidate) => candidate.id !== user.id)
                .map((candidate) => (
                  <option key={candidate.id} value={candidate.id}>
                    {shown(candidate.email)}
                  </option>
                ))}
            </select>
          )}
        </Field>
        <details className="more-filters" open={moreOpen} onToggle={(event) => setMoreOpen(event.currentTarget.open)}>
          <summary>More filters: time, context values, error text{moreCount > 0 ? ` (${moreCount} set)` : ""}</summary>
          <div className="filters">
            <Field label="Error contains">
              {(props) => <input {...props} type="search" maxLength={100} value={filters.errorContains} onChange={(event) => changeFilters({ errorContains: event.target.value })} />}
            </Field>
            <fieldset className="filter-group">
              <legend>Created ({zone})</legend>
              <Field label="Created after">
                {(props) => <input {...props} type="datetime-local" value={filters.createdAfter} onChange={(event) => changeFilters({ createdAfter: event.target.value })} />}
              </Field>
              <Field label="Created before">
                {(props) => <input {...props} type="datetime-local" value={filters.createdBefore} onChange={(event) => changeFilters({ createdBefore: event.target.value })} />}
              </Field>
            </fieldset>
            <fieldset className="filter-group">
              <legend>Finished ({zone})</legend>
              <Field label="Finished after">
                {(props) => <input {...props} type="datetime-local" value={filters.finishedAfter} onChange={(event) => changeFilters({ finishedAfter: event.target.value })} />}
              </Field>
              <Field label="Finished before">
                {(props) => <input {...props} type="datetime-local" value={filters.finishedBefore} onChange={(event) => changeFilters({ finishedBefore: event.target.value })} />}
              </Field>
            </fieldset>
            <fieldset className="filter-group">
              <legend>Context values</legend>
              {filters.context.length === 0 && <span className="hint">Jobs whose context has a value, e.g. month = 2026-10.</span>}
              {filters.context.map((row, index) => (
                <div className="context-filter" key={row.key}>
                  <Field label={`Context name ${index + 1}`}>
                    {(props) => <input {...props} list={listId} maxLength={100} value={row.name} onChange={(event) => changeContext(row.key, { name: event.target.value })} />}
                  </Field>
                  <Field label={`Context value ${index + 1}`}>
                    {(props) => <input {...props} value={row.value} onChange={(event) => changeContext(row.key, { value: event.target.value })} />}
                  </Field>
                  <button type="button" onClick={() => changeFilters({ context: filters.context.filter((candidate) => candidate.key !== row.key) })}>
                    Remove<span className="visually-hidden"> context filter {index + 1}</span>
                  </button>
                </div>
              ))}
              <datalist id={listId}>
                {parameterNames.map((name) => (
                  <option key={name} value={name} />
                ))}
              </datalist>
              {filters.context.length < MAX_CONTEXT_FILTERS && (
                <button
                  type="button"
                  onClick={() => {
                    changeFilters({ context: [...filters.context, { key: nextKey, name: parameterNames[0] ?? "", value: "" }] });
                    setNextKey(nextKey + 1);
                  }}
                >
                  Add context filter
                </button>
              )}
            </fieldset>
          </div>
        </details>
        {filtered(filters, automation !== undefined) && (
          <button type="button" onClick={() => changeFilters({ ...NO_FILTERS, automationId: automation?.id ?? "" })}>
            Clear filters
          </button>
        )}
      </form>
      {user.isAdmin && <BulkActions filters={settled} fixedAutomation={automation !== undefined} onDone={reloadPage} />}
      {error && <ErrorMessage error={error} />}
      {page === undefined ? (
        !error && <Loading what="jobs" />
      ) : page.jobs.length === 0 ? (
        <Empty>{filtered(settled, automation !== undefined) ? "No job matches these filters." : "No jobs yet."}</Empty>
      ) : (
        <div className="table-wrap" tabIndex={0}>
          <table className="jobs">
            <caption className="visually-hidden">{automation ? `Jobs of ${automation.name}` : "Jobs of every automation"}, newest first, updated live</caption>
            <thead>
              <tr>
                <th scope="col">Job</th>
                {!automation && <th scope="col">Automation</th>}
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
              {page.jobs.map((job) => {
                const owner = automation ?? automationsById.get(job.automation_id);
                const mayAct = user.isAdmin || job.created_by === user.id;
                return (
                  <tr key={job.id} data-job={job.id}>
                    <th scope="row">
                      <span className="id-cell">
                        <Link to={`/jobs/${job.id}`}>
                          <ShortId id={job.id} />
                        </Link>
                        <CopyId id={job.id} what="job" />
                      </span>
                    </th>
                    {!automation && <td data-label="Automation">{owner ? <Link to={`/automations/${owner.id}`}>{shown(owner.name)}</Link> : <ShortId id={job.automation_id} />}</td>}
                    <td data-label="Status">
                      <JobStatus status={job.status} />
                    </td>
                    <td data-label="Created" title={dateTime(job.created_at)}>
                      {ago(job.created_at, now)}
                      <span className="sub">by {creatorName(job.created_by)}</span>
                    </td>
                    <td data-label="Finished" title={dateTime(job.finished_at)}>{job.finished_at ? ago(job.finished_at, now) : "—"}</td>
                    <td className="num" data-label="Attempts">
                      {job.attempts}
                    </td>
                    <td className="note">
                      {job.status === "queued"
                        ? waitingExplanation(job, {
                            maxConcurrentJobs: owner?.max_concurrent_jobs,
                            running: automation ? stats?.running : undefined,
                            workerLastSeenAt: automation ? stats?.worker_last_seen_at : undefined,
                            now,
                          })
                        : shown(job.error ?? "")}
                      {job.status === "queued" && mayAct && <QueuedJobActions job={job} onDone={reloadPage} />}
                    </td>
                  </tr>
                );
              })}
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

/** Run a queued job now, or move it to another time or priority (POST /jobs/{id}/reschedule). */
function QueuedJobActions({ job, onDone }: { job: Job; onDone: () => void }) {
  const [open, setOpen] = useState(false);
  const [runAt, setRunAt] = useState("");
  const [priority, setPriority] = useState(String(job.priority));
  const { busy, error, issues, run } = useSubmission();
  const path = { params: { path: { job_id: job.id } } };
  const reschedule = async (body: { run_at?: string | null; priority?: number }) => {
    if (await run(() => call(hub.POST("/jobs/{job_id}/reschedule", { ...path, body })))) {
      setOpen(false);
      onDone();
    }
  };
  // Its run time (or retry back-off) is ahead: "run now" brings it forward.
  const waitsForTime = job.available_at !== null && Date.parse(job.available_at) > Date.now();
  return (
    <div className="row-actions">
      {waitsForTime && (
        <ConfirmButton
          label="Run now"
          question="Run this job as soon as a slot is free?"
          confirmLabel="Run it now"
          keepLabel="Keep its time"
          onConfirm={() => reschedule({ run_at: null })}
        />
      )}
      {!open ? (
        <button type="button" onClick={() => setOpen(true)}>
          Reschedule…<span className="visually-hidden"> job {job.id}</span>
        </button>
      ) : (
        <form
          className="inline-form reschedule"
          aria-label={`Reschedule job ${job.id}`}
          onSubmit={(event) => {
            event.preventDefault();
            // An empty time keeps the job's time; "Run now" is what brings it forward.
            void reschedule({ ...(runAt ? { run_at: isoOfLocal(runAt) } : {}), priority: Number(priority) });
          }}
        >
          <Field label={`Run at (${localZone()})`} hint="Empty: its time stays as it is." error={issues.run_at}>
            {(props) => <input {...props} type="datetime-local" value={runAt} onChange={(event) => setRunAt(event.target.value)} />}
          </Field>
          <Field label="Priority" error={issues.priority}>
            {(props) => <input {...props} type="number" min={-100} max={100} value={priority} onChange={(event) => setPriority(event.target.value)} />}
          </Field>
          <button type="submit" className="primary" disabled={busy}>
            Reschedule job
          </button>
          <button type="button" disabled={busy} onClick={() => setOpen(false)}>
            Keep as it is
          </button>
        </form>
      )}
      {error && <ErrorMessage error={error} />}
    </div>
  );
}

type BulkKind = "cancel" | "retry";
const BULK = {
  cancel: { statuses: ["queued", "running"], verb: "Cancel", done: "Cancelled", keep: "Keep them" },
  retry: { statuses: ["failed", "cancelled"], verb: "Retry", done: "Retried", keep: "Leave them" },
} as const;
/** Most jobs one bulk action takes (the API's maximum). */
const BULK_LIMIT = 10_000;

/**
 * The bulk endpoints select by automation, status and creation time only: with any other filter
 * set they would act on more jobs than the list shows, so they are offered only without one.
 */
function BulkActions({ filters, fixedAutomation, onDone }: { filters: Filters; fixedAutomation: boolean; onDone: () => void }) {
  const [preview, setPreview] = useState<{ kind: BulkKind; statuses: string[]; result: BulkActionResult }>();
  const [outcome, setOutcome] = useState<string>();
  const submission = useSubmission();
  const { busy, error } = submission;
  const narrowerFilters =
    filters.finishedAfter || filters.finishedBefore || filters.createdBy || filters.errorContains.trim() || filters.context.some((row) => row.name.trim());

  // Another filter makes the preview's count stale.
  useEffect(() => setPreview(undefined), [filters]);

  const run = async (kind: BulkKind, dryRun: boolean) => {
    const applicable: readonly string[] = BULK[kind].statuses;
    const statuses = filters.status && applicable.includes(filters.status) ? [filters.status] : [...applicable];
    const common = {
      ...(filters.automationId ? { automation_id: filters.automationId } : {}),
      ...(filters.createdAfter ? { created_after: isoOfLocal(filters.createdAfter) } : {}),
      ...(filters.createdBefore ? { created_before: isoOfLocal(filters.createdBefore) } : {}),
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
        onDone();
      }
    });
  };

  const statusFilterFits = (kind: BulkKind) => !filters.status || (BULK[kind].statuses as readonly string[]).includes(filters.status);
  const scope = filters.automationId ? "" : fixedAutomation ? "" : " of every automation";

  return (
    <div className="bulk" role="group" aria-label="Bulk actions">
      {!preview && (
        <>
          <button type="button" disabled={busy || Boolean(narrowerFilters) || !statusFilterFits("cancel")} onClick={() => void run("cancel", true)}>
            Cancel matching jobs…
          </button>
          <button type="button" disabled={busy || Boolean(narrowerFilters) || !statusFilterFits("retry")} onClick={() => void run("retry", true)}>
            Retry matching jobs…
          </button>
          {narrowerFilters && <span className="hint">Bulk actions select by status, automation and creation time only: clear the other filters to use them.</span>}
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
                {`Dry run: ${count(preview.result.matched, `${preview.statuses.join(" or ")} job`)}${scope}${preview.result.matched >= BULK_LIMIT ? " (or more)" : ""} would be ${preview.kind === "cancel" ? "cancelled" : "retried"}.`}
              </span>
              <button type="button" className={preview.kind === "cancel" ? "danger" : "primary"} disabled={busy} onClick={() => void run(preview.kind, false)}>
                {BULK[preview.kind].verb} {count(preview.result.matched, "job")}
              </button>
              <button type="button" disabled={busy} onClick={() => setPreview(undefined)}>
                {BULK[preview.kind].keep}
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
