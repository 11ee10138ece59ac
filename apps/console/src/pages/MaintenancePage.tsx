/**
 * Maintenance windows (CONTRACT §6.18): the windows the user reaches, whether each is in effect and
 * when it next begins and ends, and for admins a form to create one — one-off, or recurring by cron
 * in a time zone, with the next five occurrences shown as you type (the hub's own reading of the
 * expression, as the schedule form shows it) — and a delete that ends one in effect at once.
 */
import { useState, type FormEvent } from "react";
import { call, hub, type Automation, type MaintenanceWindow, type Sector } from "../api";
import { dateTime, isoOfLocal, localZone, relative, zonedDateTime } from "../format";
import { useLiveEvents } from "../live";
import { useUser } from "../session";
import { Badge, ConfirmButton, Empty, ErrorMessage, Field, Loading, useCoalesced, useResource, useSubmission } from "../ui";
import { useNow } from "../clock";
import { shown } from "../shown";
import { TIME_ZONES, usePreview } from "./SchedulesSection";

const LIST_LIMIT = 200;

export function MaintenancePage() {
  const user = useUser();
  const now = useNow();
  const windows = useResource(() => call(hub.GET("/maintenance-windows", { params: { query: { limit: LIST_LIMIT } } })), []);
  const automations = useResource(() => call(hub.GET("/automations", { params: { query: { limit: 1000 } } })), []);
  const sectors = useResource(() => call(hub.GET("/sectors", { params: { query: { limit: 1000 } } })), []);
  const reload = useCoalesced(() => windows.reload());
  useLiveEvents((event) => {
    if (event === "reset" || event.event_type.startsWith("maintenance_window.")) reload();
  });
  const [creating, setCreating] = useState(false);

  const scopeName = (window: MaintenanceWindow) => {
    if (window.automation_id) return `Automation ${shown(automations.data?.find((a) => a.id === window.automation_id)?.name ?? window.automation_id)}`;
    if (window.sector_id) return `Sector ${shown(sectors.data?.find((s) => s.id === window.sector_id)?.name ?? window.sector_id)}`;
    return "Every automation";
  };

  return (
    <>
      <div className="page-head">
        <h1>Maintenance</h1>
        {user.isAdmin && !creating && (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            New maintenance window
          </button>
        )}
      </div>
      <p className="sub">While a window is in effect no job of its scope starts; running jobs go on and new jobs wait. At its end they start in order.</p>
      {creating && (
        <WindowForm
          automations={automations.data ?? []}
          sectors={sectors.data ?? []}
          onDone={() => {
            setCreating(false);
            reload();
          }}
          onDiscard={() => setCreating(false)}
        />
      )}
      {windows.error && <ErrorMessage error={windows.error} onRetry={windows.reload} />}
      {windows.data === undefined ? (
        !windows.error && <Loading what="maintenance windows" />
      ) : windows.data.length === 0 ? (
        <Empty>No maintenance windows.</Empty>
      ) : (
        <ul className="cards maintenance-windows">
          {windows.data.map((window) => (
            <li key={window.id} className="panel" data-window={window.id}>
              <div className="section-head">
                <h2 className="card-title">{window.description ? shown(window.description) : scopeName(window)}</h2>
                {window.active ? <Badge tone="warn">in effect</Badge> : <Badge tone="neutral">not in effect</Badge>}
              </div>
              <p>
                {scopeName(window)}
                {window.drain && " · drains: no job starts that could still run when it begins"}
              </p>
              <p>
                {window.cron ? (
                  <>
                    <code>{window.cron}</code> in {window.timezone}, {Math.round((window.duration_seconds ?? 0) / 60)} min each
                  </>
                ) : (
                  <>
                    {dateTime(window.starts_at)} – {dateTime(window.ends_at)}
                  </>
                )}
              </p>
              <p className="sub">{whenText(window, now)}</p>
              {user.isAdmin && (
                <ConfirmButton
                  label="Delete"
                  labelDetail={`maintenance window ${window.description || scopeName(window)}`}
                  danger
                  question={window.active ? "Delete this window? It ends now and the held jobs start." : "Delete this window?"}
                  confirmLabel="Delete window"
                  keepLabel="Keep it"
                  onConfirm={async () => {
                    await call(hub.DELETE("/maintenance-windows/{window_id}", { params: { path: { window_id: window.id } } }));
                    reload();
                  }}
                />
              )}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** When the window next holds, in its own zone for a recurring one (in the browser's otherwise). */
function whenText(window: MaintenanceWindow, now: number): string {
  const at = (iso: string | null) => (iso === null ? "—" : window.timezone ? zonedDateTime(iso, window.timezone) : dateTime(iso));
  if (window.active && window.next_end_at) return `In effect: ends ${relative(window.next_end_at, now)} (${at(window.next_end_at)}).`;
  if (window.next_start_at) return `Next: ${at(window.next_start_at)} (${relative(window.next_start_at, now)}) until ${at(window.next_end_at)}.`;
  return "Over: no occurrence ahead.";
}

function WindowForm({ automations, sectors, onDone, onDiscard }: { automations: Automation[]; sectors: Sector[]; onDone: () => void; onDiscard: () => void }) {
  const [scope, setScope] = useState("hub");
  const [form, setForm] = useState<"one-off" | "recurring">("one-off");
  const [startsAt, setStartsAt] = useState("");
  const [endsAt, setEndsAt] = useState("");
  const [cron, setCron] = useState("0 1 * * SUN");
  const [timezone, setTimezone] = useState(localZone());
  const [minutes, setMinutes] = useState("120");
  const [drain, setDrain] = useState(false);
  const [description, setDescription] = useState("");
  const { busy, error, issues, run } = useSubmission();
  const preview = usePreview(form === "recurring" ? cron : "", timezone);
  const durationMs = Number(minutes) * 60_000;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const [kind, id] = scope.split(":");
    const body = {
      ...(kind === "automation" ? { automation_id: id } : kind === "sector" ? { sector_id: id } : {}),
      ...(form === "one-off"
        ? { starts_at: isoOfLocal(startsAt), ends_at: isoOfLocal(endsAt) }
        : { cron, timezone, duration_seconds: Math.round(Number(minutes) * 60) }),
      drain,
      description,
    };
    if (await run(() => call(hub.POST("/maintenance-windows", { body })))) onDone();
  };

  return (
    <form className="form panel" aria-label="New maintenance window" onSubmit={(event) => void submit(event)} noValidate>
      <h2>New maintenance window</h2>
      <Field label="Holds" error={issues.automation_id ?? issues.sector_id}>
        {(props) => (
          <select {...props} value={scope} onChange={(event) => setScope(event.target.value)}>
            <option value="hub">Every automation</option>
            {sectors.map((sector) => (
              <option key={sector.id} value={`sector:${sector.id}`}>
                Sector {shown(sector.name)}
              </option>
            ))}
            {automations.map((automation) => (
              <option key={automation.id} value={`automation:${automation.id}`}>
                Automation {shown(automation.name)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <fieldset>
        <legend>When</legend>
        <label className="toggle">
          <input type="radio" name="form" checked={form === "one-off"} onChange={() => setForm("one-off")} /> Once
        </label>
        <label className="toggle">
          <input type="radio" name="form" checked={form === "recurring"} onChange={() => setForm("recurring")} /> Again and again (cron)
        </label>
      </fieldset>
      {issues.body && <p className="inline-error">{issues.body}</p>}
      {form === "one-off" ? (
        <>
          <Field label="Starts" hint={`In your time zone (${localZone()}); a past time starts it now.`} error={issues.starts_at}>
            {(props) => <input {...props} type="datetime-local" value={startsAt} onChange={(event) => setStartsAt(event.target.value)} />}
          </Field>
          <Field label="Ends" hint="At most 31 days after the start." error={issues.ends_at}>
            {(props) => <input {...props} type="datetime-local" value={endsAt} onChange={(event) => setEndsAt(event.target.value)} />}
          </Field>
        </>
      ) : (
        <>
          <Field label="Cron expression" hint="When each occurrence starts, e.g. 0 1 * * SUN (Sundays at 01:00)." error={issues.cron ?? preview.issues.cron}>
            {(props) => <input {...props} spellCheck={false} value={cron} onChange={(event) => setCron(event.target.value)} />}
          </Field>
          <Field label="Time zone" hint="The zone the expression is read in (IANA name)." error={issues.timezone ?? preview.issues.timezone}>
            {(props) => (
              <>
                <input {...props} list="maintenance-time-zones" spellCheck={false} value={timezone} onChange={(event) => setTimezone(event.target.value)} />
                <datalist id="maintenance-time-zones">
                  {TIME_ZONES.map((zone) => (
                    <option key={zone} value={zone} />
                  ))}
                </datalist>
              </>
            )}
          </Field>
          <Field label="Length in minutes" hint="1 minute to 7 days." error={issues.duration_seconds}>
            {(props) => <input {...props} type="number" min={1} max={10080} value={minutes} onChange={(event) => setMinutes(event.target.value)} />}
          </Field>
          <div className="preview-times" aria-live="polite">
            {preview.next === undefined ? (
              preview.error && <p className="inline-error">{preview.error}</p>
            ) : (
              <>
                <p>Next occurrences ({timezone || "UTC"}):</p>
                <ol>
                  {preview.next.map((time) => (
                    <li key={time}>
                      <time dateTime={time}>{zonedDateTime(time, timezone || "UTC")}</time>
                      {Number.isFinite(durationMs) && durationMs > 0 && (
                        <> – {zonedDateTime(new Date(Date.parse(time) + durationMs).toISOString(), timezone || "UTC")}</>
                      )}
                    </li>
                  ))}
                </ol>
              </>
            )}
          </div>
        </>
      )}
      <label className="toggle">
        <input type="checkbox" checked={drain} onChange={(event) => setDrain(event.target.checked)} /> Drain: start no job that could still run when it begins
        (by each automation&apos;s timeout)
      </label>
      <Field label="Window description" error={issues.description}>
        {(props) => <input {...props} value={description} onChange={(event) => setDescription(event.target.value)} />}
      </Field>
      {error && <ErrorMessage error={error} />}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Create window
        </button>
        <button type="button" onClick={onDiscard}>
          Discard
        </button>
      </div>
    </form>
  );
}
