/**
 * Approve or reject a job awaiting approval (CONTRACT §6.17), on the Approvals page and the job
 * page: Approve with an optional comment, Reject only with one. The hub decides who may: the
 * buttons are shown to whoever may, and a refusal (a decision made meanwhile: 409) is said in words.
 */
import { useState, type FormEvent } from "react";
import { call, hub, type Job } from "../../api";
import { ErrorMessage, Field, useSubmission } from "../../ui";

export function Decide({ job, label, onDecided }: { job: Pick<Job, "id">; label: string; onDecided: (decided: Job) => void }) {
  const [mode, setMode] = useState<"approve" | "reject" | undefined>();
  const [comment, setComment] = useState("");
  const { busy, error, issues, run, refuse } = useSubmission();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (mode === "reject" && comment.trim() === "") {
      refuse({ comment: "Say why it may not run: a comment is required to reject." });
      return;
    }
    await run(async () => {
      const path = { params: { path: { job_id: job.id } } };
      const decided =
        mode === "approve"
          ? await call(hub.POST("/jobs/{job_id}/approve", { ...path, body: comment.trim() ? { comment: comment.trim() } : {} }))
          : await call(hub.POST("/jobs/{job_id}/reject", { ...path, body: { comment: comment.trim() } }));
      setMode(undefined);
      setComment("");
      onDecided(decided);
    });
  };

  if (!mode) {
    return (
      <div className="actions">
        <button type="button" className="primary" onClick={() => setMode("approve")}>
          Approve<span className="visually-hidden"> {label}</span>
        </button>
        <button type="button" className="danger" onClick={() => setMode("reject")}>
          Reject<span className="visually-hidden"> {label}</span>
        </button>
        {error && <ErrorMessage error={error} />}
      </div>
    );
  }
  return (
    <form className="form decide" aria-label={`${mode === "approve" ? "Approve" : "Reject"} ${label}`} onSubmit={(event) => void submit(event)} noValidate>
      <Field
        label={mode === "approve" ? "Comment (optional)" : "Why not (required)"}
        hint="Up to 1000 characters; kept with the decision."
        error={issues.comment}
      >
        {(props) => (
          <textarea {...props} rows={2} maxLength={1000} required={mode === "reject"} value={comment} onChange={(event) => setComment(event.target.value)} />
        )}
      </Field>
      {error && <ErrorMessage error={error} />}
      <div className="actions">
        <button type="submit" className={mode === "approve" ? "primary" : "danger"} disabled={busy}>
          {mode === "approve" ? "Approve job" : "Reject job"}
        </button>
        <button type="button" disabled={busy} onClick={() => setMode(undefined)}>
          Don&apos;t decide now
        </button>
      </div>
    </form>
  );
}
