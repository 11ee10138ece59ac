/**
 * The Approvals page (CONTRACT §6.17): the jobs awaiting an approval the signed-in user may decide,
 * oldest first — each with its automation, its context as the job page shows it, who asked and
 * how long ago — with Approve and Reject. Live: any approval's event re-reads the list.
 */
import { call, hub, nextCursor, type Automation } from "../../api";
import { ago, dateTime, relative, shortId } from "../../format";
import { useLiveEvents } from "../../live";
import { Link } from "../../router";
import { shown } from "../../shown";
import { Empty, ErrorMessage, Json, Loading, ShortId, useCoalesced, useResource } from "../../ui";
import { useNow } from "../../clock";
import { Decide } from "./Decide";
import { isApprovalEvent } from "./approval-count";

/** Most approvals one page shows; the oldest come first, and deciding them brings the next. */
const PAGE = 100;

async function readApprovals() {
  const { data, error, response } = await hub.GET("/approvals", { params: { query: { limit: PAGE } } });
  const items = await call(Promise.resolve({ data, error, response }));
  return { items, more: nextCursor(response) !== undefined };
}

async function readAutomations(): Promise<Map<string, Automation>> {
  const automations = await call(hub.GET("/automations", { params: { query: { limit: 1000 } } }));
  return new Map(automations.map((automation) => [automation.id, automation]));
}

export function ApprovalsPage() {
  const now = useNow();
  const approvals = useResource(readApprovals, []);
  const automations = useResource(readAutomations, []);
  const reload = useCoalesced(() => approvals.reload());
  useLiveEvents((event) => {
    if (event === "reset" || isApprovalEvent(event)) reload();
  });

  return (
    <>
      <div className="page-head">
        <h1>Approvals</h1>
      </div>
      <p className="sub">Jobs waiting for your decision before they may run, oldest first. Nobody decides a job they created themselves.</p>
      {approvals.error && <ErrorMessage error={approvals.error} onRetry={approvals.reload} />}
      {!approvals.data ? (
        <Loading what="the approvals" />
      ) : approvals.data.items.length === 0 ? (
        <Empty>Nothing waits for your approval.</Empty>
      ) : (
        <ul className="approval-list" aria-label="Jobs awaiting approval">
          {approvals.data.items.map((job) => {
            const automation = automations.data?.get(job.automation_id);
            const label = `job ${shortId(job.id)}`;
            return (
              <li key={job.id} className="panel approval" aria-label={`${automation ? shown(automation.name) : "Job"} ${shortId(job.id)}`}>
                <div className="approval-head">
                  <strong>
                    {automation ? <Link to={`/automations/${job.automation_id}`}>{shown(automation.name)}</Link> : <ShortId id={job.automation_id} />}
                  </strong>
                  <Link to={`/jobs/${job.id}`}>
                    Job <ShortId id={job.id} />
                  </Link>
                </div>
                <dl className="settings">
                  <dt>Asked by</dt>
                  <dd>{job.created_by_email ? shown(job.created_by_email) : job.created_by ? <ShortId id={job.created_by} /> : "a schedule"}</dd>
                  <dt>Waiting</dt>
                  <dd title={dateTime(job.created_at)}>since {ago(job.created_at, now)}</dd>
                  {job.approval?.expires_at && (
                    <>
                      <dt>Expires</dt>
                      <dd title={dateTime(job.approval.expires_at)}>{relative(job.approval.expires_at, now)}</dd>
                    </>
                  )}
                </dl>
                <h2 className="visually-hidden">Context of {label}</h2>
                <Json value={job.context} />
                <Decide job={job} label={label} onDecided={() => reload()} />
              </li>
            );
          })}
        </ul>
      )}
      {approvals.data?.more && <p className="hint">More are waiting: decide these and the next ones follow.</p>}
    </>
  );
}
