/** Run a queued job now, or move it elsewhere in time or priority: the Jobs list's row actions. */
import { useState } from "react";
import { call, hub, type Job } from "../../api";
import { isoOfLocal, localZone } from "../../format";
import { ConfirmButton, ErrorMessage, Field, useSubmission } from "../../ui";

/** Run a queued job now, or move it to another time or priority (POST /jobs/{id}/reschedule). */
export function QueuedJobActions({ job, onDone }: { job: Job; onDone: () => void }) {
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
