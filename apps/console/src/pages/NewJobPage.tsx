/**
 * A new job, its form generated from the automation's parameters (each one a required text
 * field, as the hub checks them). The form's Idempotency-Key makes a double submit one job.
 */
import { useState, type FormEvent } from "react";
import { call, hub } from "../api";
import { isoOfLocal, localZone } from "../format";
import { Link, navigate } from "../router";
import { ErrorMessage, Field, Loading, useResource, useSubmission } from "../ui";
import { shown } from "../shown";

export function NewJobPage({ automationId }: { automationId: string }) {
  const automation = useResource(() => call(hub.GET("/automations/{automation_id}", { params: { path: { automation_id: automationId } } })), [automationId]);
  const [values, setValues] = useState<Record<string, string>>({});
  const [runAt, setRunAt] = useState("");
  const [priority, setPriority] = useState("0");
  const [dependsOn, setDependsOn] = useState("");
  const [onDependencyFailure, setOnDependencyFailure] = useState<"cancel" | "run">("cancel");
  const { busy, error, issues, run } = useSubmission();
  const [idempotencyKey] = useState(() => crypto.randomUUID());

  if (automation.error && !automation.data) return <ErrorMessage error={automation.error} onRetry={automation.reload} />;
  if (!automation.data) return <Loading what="the automation" />;
  const record = automation.data;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      const context = Object.fromEntries(record.parameters.map((parameter) => [parameter.name, values[parameter.name] ?? ""]));
      const dependencies = dependsOn.split(/[\s,]+/).filter((id) => id !== "");
      const created = await call(
        hub.POST("/jobs", {
          params: { header: { "idempotency-key": idempotencyKey } },
          body: {
            automation_id: automationId,
            context,
            priority: Number(priority),
            ...(runAt ? { run_at: isoOfLocal(runAt) } : {}),
            ...(dependencies.length > 0 ? { depends_on: dependencies, on_dependency_failure: onDependencyFailure } : {}),
          },
        }),
      );
      navigate(`/jobs/${created.id}`);
    });
  };

  return (
    <>
      <p className="crumbs">
        <Link to="/automations">Automations</Link> / <Link to={`/automations/${automationId}`}>{shown(record.name)}</Link> /
      </p>
      <h1>New job for {shown(record.name)}</h1>
      {!record.is_active ? (
        <p>This automation is deactivated: it takes no new jobs.</p>
      ) : (
        <form className="form" onSubmit={(event) => void submit(event)}>
          {record.parameters.length === 0 ? (
            <p className="muted">This automation has no parameters: the job carries an empty context.</p>
          ) : (
            <fieldset>
              <legend>Context</legend>
              {record.parameters.map((parameter) => (
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
              ))}
            </fieldset>
          )}
          <fieldset>
            <legend>When</legend>
            <Field label={`Run at (${localZone()})`} hint="In your time zone; leave empty to run as soon as possible." error={issues.run_at}>
              {(props) => <input {...props} type="datetime-local" value={runAt} onChange={(event) => setRunAt(event.target.value)} />}
            </Field>
            <Field label="Priority" hint="−100 to 100: higher runs first among waiting jobs." error={issues.priority}>
              {(props) => <input {...props} type="number" min={-100} max={100} value={priority} onChange={(event) => setPriority(event.target.value)} />}
            </Field>
          </fieldset>
          <fieldset>
            <legend>Waits for</legend>
            <Field
              label="Depends on"
              hint="Ids of jobs (any automation) this one waits for, separated by spaces, commas or lines; it runs once every one has finished."
              error={Object.entries(issues).find(([field]) => field.startsWith("depends_on"))?.[1]}
            >
              {(props) => <textarea {...props} rows={2} value={dependsOn} onChange={(event) => setDependsOn(event.target.value)} />}
            </Field>
            <Field label="If a dependency fails or is cancelled" error={issues.on_dependency_failure}>
              {(props) => (
                <select {...props} value={onDependencyFailure} onChange={(event) => setOnDependencyFailure(event.target.value as "cancel" | "run")}>
                  <option value="cancel">Cancel this job</option>
                  <option value="run">Run it anyway, once all have finished</option>
                </select>
              )}
            </Field>
          </fieldset>
          {error && <ErrorMessage error={error} />}
          <div className="actions">
            <button type="submit" className="primary" disabled={busy}>
              {busy ? "Creating…" : "Create job"}
            </button>
            <Link to={`/automations/${automationId}`}>Cancel</Link>
          </div>
        </form>
      )}
    </>
  );
}
