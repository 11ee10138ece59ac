/**
 * A list of jobs: one automation's (its page) or every automation's (the Jobs page). Filters
 * (status, automation, created and finished between, created by, context values, error text),
 * keyset pages (the list's cursors), reschedule and run now on a queued job, and for admins bulk
 * cancel and retry of what the filters select, always counted by a dry run first.
 */
import { useEffect, useRef, useState } from "react";
import { call, describeError, hub, nextCursor, type Automation, type AutomationStats, type Job } from "../api";
import { dateTime, errorText, localZone, waitingExplanation } from "../format";
import { Ago, Clocked } from "../clock";
import { Link } from "../router";
import { useUser } from "../session";
import { CopyId, Empty, ErrorMessage, Field, JobStatus, Loading, ShortId, useResource } from "../ui";
import { listAllUsers } from "./UsersPage";
import { shown } from "../shown";
import { BulkActions } from "./jobs/BulkActions";
import {
  filtered,
  jobsQuery,
  MAX_CONTEXT_FILTERS,
  NO_FILTERS,
  STATUSES,
  TYPING_PAUSE_MS,
  useSettled,
  type ContextFilter,
  type Filters,
  type Status,
} from "./jobs/job-filters";
import { QueuedJobActions } from "./jobs/QueuedJobActions";

export { filtersFromSearch, filtersToSearch, NO_FILTERS, type Filters } from "./jobs/job-filters";

const PAGE_SIZE = 20;

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
  const moreCount =
    [filters.createdAfter, filters.createdBefore, filters.finishedAfter, filters.finishedBefore, filters.errorContains.trim()].filter(Boolean).length +
    filters.context.length;
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
  const parameterNames = automation
    ? automation.parameters.map((parameter) => parameter.name)
    : [...new Set((automations ?? []).flatMap((candidate) => candidate.parameters.map((parameter) => parameter.name)))];
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
              {(props) => (
                <input
                  {...props}
                  type="search"
                  maxLength={100}
                  value={filters.errorContains}
                  onChange={(event) => changeFilters({ errorContains: event.target.value })}
                />
              )}
            </Field>
            <fieldset className="filter-group">
              <legend>Created ({zone})</legend>
              <Field label="Created after">
                {(props) => (
                  <input
                    {...props}
                    type="datetime-local"
                    value={filters.createdAfter}
                    onChange={(event) => changeFilters({ createdAfter: event.target.value })}
                  />
                )}
              </Field>
              <Field label="Created before">
                {(props) => (
                  <input
                    {...props}
                    type="datetime-local"
                    value={filters.createdBefore}
                    onChange={(event) => changeFilters({ createdBefore: event.target.value })}
                  />
                )}
              </Field>
            </fieldset>
            <fieldset className="filter-group">
              <legend>Finished ({zone})</legend>
              <Field label="Finished after">
                {(props) => (
                  <input
                    {...props}
                    type="datetime-local"
                    value={filters.finishedAfter}
                    onChange={(event) => changeFilters({ finishedAfter: event.target.value })}
                  />
                )}
              </Field>
              <Field label="Finished before">
                {(props) => (
                  <input
                    {...props}
                    type="datetime-local"
                    value={filters.finishedBefore}
                    onChange={(event) => changeFilters({ finishedBefore: event.target.value })}
                  />
                )}
              </Field>
            </fieldset>
            <fieldset className="filter-group">
              <legend>Context values</legend>
              {filters.context.length === 0 && <span className="hint">Jobs whose context has a value, e.g. month = 2026-10.</span>}
              {filters.context.map((row, index) => (
                <div className="context-filter" key={row.key}>
                  <Field label={`Context name ${index + 1}`}>
                    {(props) => (
                      <input
                        {...props}
                        list={listId}
                        maxLength={100}
                        value={row.name}
                        onChange={(event) => changeContext(row.key, { name: event.target.value })}
                      />
                    )}
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
                    {!automation && (
                      <td data-label="Automation">
                        {owner ? <Link to={`/automations/${owner.id}`}>{shown(owner.name)}</Link> : <ShortId id={job.automation_id} />}
                      </td>
                    )}
                    <td data-label="Status">
                      <JobStatus status={job.status} />
                    </td>
                    <td data-label="Created" title={dateTime(job.created_at)}>
                      <Ago iso={job.created_at} />
                      <span className="sub">by {creatorName(job.created_by)}</span>
                    </td>
                    <td data-label="Finished" title={dateTime(job.finished_at)}>
                      {job.finished_at ? <Ago iso={job.finished_at} /> : "—"}
                    </td>
                    <td className="num" data-label="Attempts">
                      {job.attempts}
                    </td>
                    <td className="note">
                      {job.status === "queued" ? (
                        <Clocked
                          text={(now) =>
                            waitingExplanation(job, {
                              maxConcurrentJobs: owner?.max_concurrent_jobs,
                              running: automation ? stats?.running : undefined,
                              workerLastSeenAt: automation ? stats?.worker_last_seen_at : undefined,
                              now,
                            }) ?? ""
                          }
                        />
                      ) : (
                        shown(errorText(job.error ?? ""))
                      )}
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
