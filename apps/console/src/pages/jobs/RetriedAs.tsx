/**
 * The retries of a failed or cancelled job (GET /jobs?retry_of=), linked from its page: the other
 * half of the retry's own "Retry of" link. Live: a job.created carrying this job's id in retry_of
 * re-reads them.
 */
import { call, hub, type Job } from "../../api";
import { useLiveEvents } from "../../live";
import { Link } from "../../router";
import { ShortId, useCoalesced, useResource } from "../../ui";

/** Retries listed at most (newest first); a job retried more often says how many more there are not. */
const LISTED_RETRIES = 10;

/** A `<dt>`/`<dd>` pair for the job's details list, or nothing while it has no retry. */
export function RetriedAs({ job }: { job: Pick<Job, "id" | "automation_id" | "status"> }) {
  const retriable = job.status === "failed" || job.status === "cancelled";
  const retries = useResource(
    async () =>
      retriable ? call(hub.GET("/jobs", { params: { query: { retry_of: job.id, automation_id: job.automation_id, limit: LISTED_RETRIES + 1 } } })) : [],
    [job.id, retriable],
  );
  const reload = useCoalesced(() => retries.reload());
  useLiveEvents((event) => {
    if (event === "reset" || (event.event_type === "job.created" && (event.payload as { retry_of?: unknown }).retry_of === job.id)) reload();
  });
  const found = retries.data ?? [];
  if (found.length === 0) return null;
  const listed = found.slice(0, LISTED_RETRIES);
  return (
    <>
      <dt>Retried as</dt>
      <dd data-testid="retried-as">
        {listed.map((retry, index) => (
          <span key={retry.id}>
            {index > 0 && ", "}
            <Link to={`/jobs/${retry.id}`}>
              <ShortId id={retry.id} />
            </Link>{" "}
            <span className="muted">({retry.status})</span>
          </span>
        ))}
        {found.length > LISTED_RETRIES && <span className="muted"> and more (newest first)</span>}
      </dd>
    </>
  );
}
