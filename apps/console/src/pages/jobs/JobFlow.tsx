/**
 * A job's place in its flow (CONTRACT §6.16): the jobs it waits for and the jobs waiting for it, each
 * with its live status, as a small graph (dependencies → this job → dependents); which dependencies a
 * waiting job still waits for; and, on a failed or cancelled job whose end cancelled its dependents,
 * *Retry with dependents*.
 */
import { useMemo } from "react";
import { call, hub, nextCursor, type Job } from "../../api";
import { useLiveEvents } from "../../live";
import { Link, navigate } from "../../router";
import { ConfirmButton, ErrorMessage, JobStatus, ShortId, useCoalesced, useResource } from "../../ui";

const FINISHED = new Set(["completed", "failed", "cancelled"]);
/** Dependents the graph shows at most (a fan-out may have thousands: the list links to all of them). */
const DEPENDENTS_SHOWN = 50;

/** One job of the graph; `status` absent: not read yet (`loading`), or gone (removed by retention, or out of reach). */
function FlowNode({ job, current = false, loading = false }: { job: Job | { id: string; status?: undefined }; current?: boolean; loading?: boolean }) {
  return (
    <li className={current ? "flow-node current" : "flow-node"} data-testid={current ? "flow-current" : "flow-node"}>
      {current ? (
        <strong>
          This job <ShortId id={job.id} />
        </strong>
      ) : (
        <Link to={`/jobs/${job.id}`}>
          <ShortId id={job.id} />
        </Link>
      )}{" "}
      {job.status ? <JobStatus status={job.status} /> : <span className="muted">{loading ? "…" : "gone"}</span>}
    </li>
  );
}

export function JobFlow({ job, mayAct }: { job: Job; mayAct: boolean }) {
  const dependsOn = job.depends_on;
  const dependencies = useResource(
    () =>
      Promise.all(
        dependsOn.map(async (id) => {
          try {
            return await call(hub.GET("/jobs/{job_id}", { params: { path: { job_id: id } } }));
          } catch {
            // Removed by retention, or out of the reader's reach.
            return { id };
          }
        }),
      ),
    [dependsOn.join(",")],
  );
  const dependents = useResource(async () => {
    const request = hub.GET("/jobs", { params: { query: { depends_on: job.id, limit: DEPENDENTS_SHOWN } } });
    const items = await call(request);
    return { items, more: nextCursor((await request).response) !== undefined };
  }, [job.id]);
  const watched = useMemo(() => new Set([...dependsOn, ...(dependents.data?.items ?? []).map((dependent) => dependent.id)]), [dependsOn, dependents.data]);
  const reload = useCoalesced(() => {
    dependencies.reload();
    dependents.reload();
  });
  useLiveEvents((event) => {
    if (event === "reset" || watched.has(event.aggregate_id)) return reload();
    // A new dependent (job.created carries depends_on).
    const dependsOnIt = (event.payload as { depends_on?: unknown } | null)?.depends_on;
    if (event.event_type === "job.created" && Array.isArray(dependsOnIt) && dependsOnIt.includes(job.id)) reload();
  });

  const dependentItems = dependents.data?.items ?? [];
  if (dependsOn.length === 0 && dependentItems.length === 0) return null;
  const waitingFor = (dependencies.data ?? []).filter((dependency) => "status" in dependency && dependency.status && !FINISHED.has(dependency.status));
  // Live from the dependencies' own events once they are read (the job itself gets no event as they finish).
  const pending = dependencies.data ? waitingFor.length : job.pending_dependencies;
  const cancelledDependents = dependentItems.filter((dependent) => dependent.status === "cancelled");
  const mayRetryFlow = mayAct && (job.status === "failed" || job.status === "cancelled") && cancelledDependents.length > 0;

  return (
    <section aria-labelledby="flow-title">
      <h2 id="flow-title">Flow</h2>
      {job.status === "queued" && pending > 0 && (
        <p className="waiting" data-testid="waits-for">
          Waits for {pending === 1 ? "job" : `${pending} jobs`}:{" "}
          {waitingFor.map((dependency, index) => (
            <span key={dependency.id}>
              {index > 0 && ", "}
              <Link to={`/jobs/${dependency.id}`}>
                <ShortId id={dependency.id} />
              </Link>
            </span>
          ))}
          {job.on_dependency_failure === "run" ? " — it runs whatever their outcome." : " — if one fails or is cancelled, this job is cancelled."}
        </p>
      )}
      {(dependencies.error ?? dependents.error) !== undefined && <ErrorMessage error={(dependencies.error ?? dependents.error)!} onRetry={reload} />}
      <div className="flow-graph">
        <div>
          <h3>Depends on</h3>
          {dependsOn.length === 0 ? (
            <p className="muted">Nothing</p>
          ) : (
            <ol className="flow-column">
              {(dependencies.data ?? dependsOn.map((id) => ({ id }))).map((dependency) => (
                <FlowNode key={dependency.id} job={dependency as Job} loading={!dependencies.data} />
              ))}
            </ol>
          )}
        </div>
        <span className="flow-arrow" aria-hidden="true">
          →
        </span>
        <ol className="flow-column">
          <FlowNode job={job} current />
        </ol>
        <span className="flow-arrow" aria-hidden="true">
          →
        </span>
        <div>
          <h3>Dependents</h3>
          {dependentItems.length === 0 ? (
            <p className="muted">None</p>
          ) : (
            <ol className="flow-column">
              {dependentItems.map((dependent) => (
                <FlowNode key={dependent.id} job={dependent} />
              ))}
            </ol>
          )}
          {dependents.data?.more && <p className="muted">The first {DEPENDENTS_SHOWN} are shown.</p>}
        </div>
      </div>
      {mayRetryFlow && (
        <div className="actions">
          <ConfirmButton
            label="Retry with dependents"
            question={`Retry this job and the ${cancelledDependents.length === 1 ? "job" : "jobs"} its end cancelled, in one go? Each new job waits for the retries of the jobs it waited for.`}
            confirmLabel="Retry with dependents"
            keepLabel="Don't retry"
            onConfirm={async () => {
              const retried = await call(hub.POST("/jobs/{job_id}/retry", { params: { path: { job_id: job.id } }, body: { with_dependents: true } }));
              navigate(`/jobs/${retried.id}`);
            }}
          />
        </div>
      )}
    </section>
  );
}
