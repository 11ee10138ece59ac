/**
 * An automation's schedules: the list, and for admins create, edit, pause or resume and delete,
 * with the next fire times of the expression being typed shown in its own time zone
 * (GET /schedules/preview, the hub's own reading of the cron expression).
 */
import { useEffect, useState, type FormEvent } from "react";
import { call, describeError, hub, issuesByField, type Automation, type Schedule } from "../api";
import { dateTime, due, zonedDateTime } from "../format";
import { Ago, Clocked } from "../clock";
import { Link } from "../router";
import { Badge, ConfirmButton, Empty, ErrorMessage, Field, Loading, useSubmission } from "../ui";

/** What a schedule is called in the list and in button names. */
const scheduleName = (schedule: Schedule) => schedule.key || schedule.description || schedule.cron;

/** Every IANA zone the browser knows, for the time-zone field's suggestions. */
export const TIME_ZONES: readonly string[] = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : ["UTC"];

export function SchedulesSection({
  automation,
  schedules,
  error,
  canChange,
  onChange,
}: {
  automation: Automation;
  schedules: Schedule[] | undefined;
  error: string | undefined;
  canChange: boolean;
  onChange: () => void;
}) {
  const { error: actionError, run } = useSubmission();
  /** The schedule being edited, "new" for the create form, or none. */
  const [editing, setEditing] = useState<Schedule | "new">();
  /** Pause or resume: PUT replaces the schedule, so everything else is sent as it is. */
  const setEnabled = async (schedule: Schedule, enabled: boolean) => {
    await run(async () => {
      const { cron, timezone, context, priority, overlap, key, description } = schedule;
      await call(
        hub.PUT("/schedules/{schedule_id}", {
          params: { path: { schedule_id: schedule.id } },
          body: { cron, timezone, context, priority, overlap, key, description, enabled },
        }),
      );
    });
    onChange();
  };
  return (
    <section aria-labelledby="schedules-title">
      <div className="section-head">
        <h2 id="schedules-title">Schedules</h2>
        {canChange && automation.is_active && editing === undefined && (
          <button type="button" onClick={() => setEditing("new")}>
            New schedule
          </button>
        )}
      </div>
      {editing !== undefined && (
        <ScheduleForm
          key={editing === "new" ? "new" : editing.id}
          automation={automation}
          existing={editing === "new" ? undefined : editing}
          onDone={() => {
            setEditing(undefined);
            onChange();
          }}
          onDiscard={() => setEditing(undefined)}
        />
      )}
      {error && <ErrorMessage error={error} />}
      {actionError && <ErrorMessage error={actionError} />}
      {schedules === undefined ? (
        !error && <Loading what="schedules" />
      ) : schedules.length === 0 ? (
        <Empty>No schedules: jobs are made only on request.</Empty>
      ) : (
        <div className="table-wrap" tabIndex={0}>
          <table>
            <caption className="visually-hidden">Schedules</caption>
            <thead>
              <tr>
                <th scope="col">Schedule</th>
                <th scope="col">When</th>
                <th scope="col">Next run</th>
                <th scope="col">Last run</th>
                <th scope="col">State</th>
                {canChange && <th scope="col">Action</th>}
              </tr>
            </thead>
            <tbody>
              {schedules.map((schedule) => (
                <tr key={schedule.id}>
                  <th scope="row">{scheduleName(schedule)}</th>
                  <td data-label="When">
                    <code>{schedule.cron}</code> <span className="sub">{schedule.timezone}</span>
                  </td>
                  <td data-label="Next run" title={schedule.next_run_at ? zonedDateTime(schedule.next_run_at, schedule.timezone) : undefined}>
                    {schedule.next_run_at ? <Clocked text={(now) => due(schedule.next_run_at, now)} /> : "—"}
                  </td>
                  <td data-label="Last run" title={dateTime(schedule.last_run_at)}>
                    {schedule.last_job_id ? (
                      <Link to={`/jobs/${schedule.last_job_id}`}>
                        <Ago iso={schedule.last_run_at} />
                      </Link>
                    ) : (
                      "never"
                    )}
                  </td>
                  <td data-label="State">{schedule.enabled ? <Badge tone="good">enabled</Badge> : <Badge tone="neutral">paused</Badge>}</td>
                  {canChange && (
                    <td className="wide">
                      <span className="row-actions">
                        <button type="button" onClick={() => void setEnabled(schedule, !schedule.enabled)}>
                          {schedule.enabled ? "Pause" : "Resume"}
                          <span className="visually-hidden"> schedule {scheduleName(schedule)}</span>
                        </button>
                        <button type="button" onClick={() => setEditing(schedule)}>
                          Edit<span className="visually-hidden"> schedule {scheduleName(schedule)}</span>
                        </button>
                        <ConfirmButton
                          label="Delete"
                          labelDetail={`schedule ${scheduleName(schedule)}`}
                          danger
                          question="Delete this schedule? It makes no more jobs; its queued jobs stay."
                          confirmLabel="Delete schedule"
                          keepLabel="Keep it"
                          onConfirm={async () => {
                            await call(hub.DELETE("/schedules/{schedule_id}", { params: { path: { schedule_id: schedule.id } } }));
                            if (editing !== undefined && editing !== "new" && editing.id === schedule.id) setEditing(undefined);
                            onChange();
                          }}
                        />
                      </span>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** How long typing in the cron or zone field waits before the preview is asked for. */
const PREVIEW_PAUSE_MS = 300;
const PREVIEW_COUNT = 5;

interface Preview {
  /** The next fire times; undefined while unknown or refused. */
  next: string[] | undefined;
  /** A refusal's field errors ("cron", "timezone"). */
  issues: Record<string, string>;
  /** A failure that is not about a field. */
  error: string | undefined;
}

/** The next fire times of `cron` in `timezone`, as the hub computes them, or why it refuses them. */
export function usePreview(cron: string, timezone: string): Preview {
  const [preview, setPreview] = useState<Preview>({ next: undefined, issues: {}, error: undefined });
  useEffect(() => {
    if (!cron.trim()) {
      setPreview({ next: undefined, issues: {}, error: undefined });
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      call(hub.GET("/schedules/preview", { params: { query: { cron, timezone: timezone || "UTC", count: PREVIEW_COUNT } } })).then(
        (answer) => current && setPreview({ next: answer.next, issues: {}, error: undefined }),
        (failure: unknown) => {
          const issues = issuesByField(failure);
          if (current) setPreview({ next: undefined, issues, error: Object.keys(issues).length > 0 ? undefined : describeError(failure) });
        },
      );
    }, PREVIEW_PAUSE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [cron, timezone]);
  return preview;
}

function ScheduleForm({
  automation,
  existing,
  onDone,
  onDiscard,
}: {
  automation: Automation;
  existing: Schedule | undefined;
  onDone: () => void;
  onDiscard: () => void;
}) {
  const [cron, setCron] = useState(existing?.cron ?? "0 6 * * MON-FRI");
  const [timezone, setTimezone] = useState(existing?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone);
  const [context, setContext] = useState<Record<string, string>>(() =>
    Object.fromEntries(
      automation.parameters.map((parameter) => [
        parameter.name,
        typeof existing?.context[parameter.name] === "string" ? (existing.context[parameter.name] as string) : "",
      ]),
    ),
  );
  const [priority, setPriority] = useState(String(existing?.priority ?? 0));
  const [enabled, setEnabled] = useState(existing?.enabled ?? true);
  const [overlap, setOverlap] = useState<"skip" | "allow">(existing?.overlap ?? "skip");
  const [key, setKey] = useState(existing?.key ?? "");
  const [description, setDescription] = useState(existing?.description ?? "");
  const { busy, error, issues, run } = useSubmission();
  const preview = usePreview(cron, timezone);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const body = {
      cron,
      timezone,
      // Keys of the stored context that are not parameters stay as they were.
      context: { ...(existing?.context ?? {}), ...context },
      priority: Number(priority),
      enabled,
      overlap,
      key: key.trim() === "" ? null : key.trim(),
      description,
    };
    const saved = await run(async () => {
      if (existing) await call(hub.PUT("/schedules/{schedule_id}", { params: { path: { schedule_id: existing.id } }, body }));
      else await call(hub.POST("/automations/{automation_id}/schedules", { params: { path: { automation_id: automation.id } }, body }));
    });
    if (saved) onDone();
  };

  const title = existing ? `Edit schedule ${scheduleName(existing)}` : "New schedule";
  return (
    <form className="form panel schedule-form" aria-label={title} onSubmit={(event) => void submit(event)} noValidate>
      <h3>{title}</h3>
      <Field
        label="Cron expression"
        hint="minute hour day-of-month month day-of-week, e.g. 0 6 * * MON-FRI, or @daily, @hourly…"
        error={issues.cron ?? preview.issues.cron}
      >
        {(props) => <input {...props} required spellCheck={false} value={cron} onChange={(event) => setCron(event.target.value)} />}
      </Field>
      <Field label="Time zone" hint="The zone the expression is read in (IANA name, e.g. Europe/Berlin)." error={issues.timezone ?? preview.issues.timezone}>
        {(props) => (
          <>
            <input {...props} list="time-zones" required spellCheck={false} value={timezone} onChange={(event) => setTimezone(event.target.value)} />
            <datalist id="time-zones">
              {TIME_ZONES.map((zone) => (
                <option key={zone} value={zone} />
              ))}
            </datalist>
          </>
        )}
      </Field>
      <div className="preview-times" aria-live="polite">
        {preview.next === undefined ? (
          preview.error && <p className="inline-error">{preview.error}</p>
        ) : preview.next.length === 0 ? (
          <p>It never fires within the next 4 years.</p>
        ) : (
          <>
            <p>Next fire times ({timezone || "UTC"}):</p>
            <ol>
              {preview.next.map((time) => (
                <li key={time}>
                  <time dateTime={time}>{zonedDateTime(time, timezone || "UTC")}</time>
                </li>
              ))}
            </ol>
          </>
        )}
      </div>
      {automation.parameters.length > 0 && (
        <fieldset>
          <legend>Context of its jobs</legend>
          {automation.parameters.map((parameter) => (
            <Field key={parameter.name} label={parameter.name} hint={parameter.description || undefined} error={issues[`context.${parameter.name}`]}>
              {(props) => (
                <input
                  {...props}
                  required
                  value={context[parameter.name] ?? ""}
                  onChange={(event) => setContext((previous) => ({ ...previous, [parameter.name]: event.target.value }))}
                />
              )}
            </Field>
          ))}
        </fieldset>
      )}
      <Field label="Priority" hint="−100 to 100: higher runs first among waiting jobs." error={issues.priority}>
        {(props) => <input {...props} type="number" min={-100} max={100} value={priority} onChange={(event) => setPriority(event.target.value)} />}
      </Field>
      <Field label="When a fire comes while its last job still waits or runs" error={issues.overlap}>
        {(props) => (
          <select {...props} value={overlap} onChange={(event) => setOverlap(event.target.value as "skip" | "allow")}>
            <option value="skip">Skip that fire</option>
            <option value="allow">Make a job anyway</option>
          </select>
        )}
      </Field>
      <Field label="Key" hint="Optional, unique in this automation: a set-up script run twice makes one schedule." error={issues.key}>
        {(props) => <input {...props} maxLength={100} value={key} onChange={(event) => setKey(event.target.value)} />}
      </Field>
      <Field label="Schedule description" error={issues.description}>
        {(props) => <input {...props} value={description} onChange={(event) => setDescription(event.target.value)} />}
      </Field>
      <label className="toggle">
        <input type="checkbox" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} /> Enabled
      </label>
      {error && <ErrorMessage error={error} />}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {existing ? "Save schedule" : "Create schedule"}
        </button>
        <button type="button" onClick={onDiscard}>
          {existing ? "Discard changes" : "Discard"}
        </button>
      </div>
    </form>
  );
}
