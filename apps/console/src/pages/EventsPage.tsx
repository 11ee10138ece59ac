/**
 * The event log as it happens: the last minutes from GET /events, then GET /events/stream with the
 * same filters (the hub filters both, and leaves out what the user's role may not read).
 */
import { useEffect, useState, type FormEvent } from "react";
import { call, describeError, hub, nextCursor, type HubEvent } from "../api";
import { dateTime } from "../format";
import { followEvents, type LiveStatus, type StreamFilters } from "../live";
import { Link } from "../router";
import { Empty, ErrorMessage, Field, Loading, ShortId } from "../ui";
import { shownJson } from "../shown";

/** Every event type, checked by the compiler against the API's own schema (a type missing here does not compile). */
export const EVENT_TYPES = Object.keys({
  "sector.created": true,
  "automation.created": true,
  "automation.updated": true,
  "automation.deactivated": true,
  "automation.development_mode_entered": true,
  "automation.development_mode_exited": true,
  "worker.registered": true,
  "worker.unregistered": true,
  "worker.api_key_rotated": true,
  "worker.status_changed": true,
  "job.created": true,
  "job.started": true,
  "job.completed": true,
  "job.failed": true,
  "job.requeued": true,
  "job.cancelled": true,
  "job.rescheduled": true,
  "job.approval_requested": true,
  "job.approved": true,
  "job.rejected": true,
  "user.created": true,
  "user.deactivated": true,
  "user.password_changed": true,
  "user.password_reset": true,
  "user.role_changed": true,
  "user.reactivated": true,
  "user.sectors_changed": true,
  "schedule.created": true,
  "schedule.updated": true,
  "schedule.deleted": true,
  "schedule.skipped": true,
  "maintenance_window.created": true,
  "maintenance_window.updated": true,
  "maintenance_window.deleted": true,
  "maintenance_window.started": true,
  "maintenance_window.ended": true,
  "webhook.created": true,
  "webhook.deleted": true,
  "webhook.disabled": true,
  "api_key.created": true,
  "api_key.revoked": true,
  "alert.firing": true,
  "alert.resolved": true,
} satisfies Record<HubEvent["event_type"], true>) as HubEvent["event_type"][];

/** The catalogue's types grouped by what they are about ("job", "automation", …), for the filter. */
const EVENT_GROUPS: [string, string[]][] = [...new Set(EVENT_TYPES.map((type) => type.split(".")[0]!))].map((group) => [
  group.replace("_", " "),
  EVENT_TYPES.filter((type) => type.startsWith(`${group}.`)),
]);

const AGGREGATE_TYPES = [
  "job",
  "automation",
  "sector",
  "schedule",
  "maintenance_window",
  "user",
  "webhook",
  "api_key",
  "alert_rule",
] as const satisfies readonly NonNullable<StreamFilters["aggregate_type"]>[];

/** How far back the page starts, how far each "earlier" step goes, and how many live events it keeps. */
const HISTORY_MINUTES = 15;
const EARLIER_MINUTES = 60;
const HISTORY_PAGES = 5;
const KEEP = 200;

const LIVE_TEXT: Record<LiveStatus, string> = { connecting: "Connecting…", live: "Following live", reconnecting: "Reconnecting…" };

export function EventsPage() {
  const [draft, setDraft] = useState<StreamFilters>({});
  const [filters, setFilters] = useState<StreamFilters>({});
  const [events, setEvents] = useState<HubEvent[]>();
  const [status, setStatus] = useState<LiveStatus>("connecting");
  const [error, setError] = useState<string>();
  const [paused, setPaused] = useState(false);
  const [frozen, setFrozen] = useState<HubEvent[]>();
  /** Events read by "Show earlier events", oldest last, and where the history read so far begins. */
  const [earlier, setEarlier] = useState<{ events: HubEvent[]; since: number; more: boolean }>({ events: [], since: 0, more: false });
  const [loadingEarlier, setLoadingEarlier] = useState(false);

  useEffect(() => {
    const abort = new AbortController();
    let history: HubEvent[] | undefined;
    const early: HubEvent[] = [];
    setEvents(undefined);
    setError(undefined);
    const since = Date.now() - HISTORY_MINUTES * 60_000;
    setEarlier({ events: [], since, more: false });
    const add = (incoming: HubEvent[]) => setEvents((previous) => newestFirst([...incoming, ...(previous ?? [])]));
    const load = async () => {
      history = await readBetween(filters, since, undefined);
      setEvents(newestFirst([...history, ...early]));
    };
    // The stream first, so that nothing that happens while the history loads is missed.
    void followEvents(
      filters,
      {
        onEvent: (event) => (history === undefined ? early.push(event) : add([event])),
        onReset: () => void load().catch((failure: unknown) => setError(describeError(failure))),
        onStatus: setStatus,
        onRefused: setError,
      },
      abort.signal,
    );
    load().catch((failure: unknown) => setError(describeError(failure)));
    return () => abort.abort();
  }, [filters]);

  const showEarlier = async () => {
    setLoadingEarlier(true);
    try {
      const from = earlier.since - EARLIER_MINUTES * 60_000;
      const found = await readBetween(filters, from, earlier.since);
      setEarlier((previous) => ({ events: [...previous.events, ...newestFirst(found, Infinity)], since: from, more: found.length >= HISTORY_PAGES * 1000 }));
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setLoadingEarlier(false);
    }
  };

  // While paused, the page keeps what it showed; new events wait aside until it resumes.
  const recent = paused ? frozen : events;
  const shown = recent === undefined ? undefined : [...recent, ...earlier.events];
  const held = paused && events && frozen ? events.filter((event) => !frozen.some((candidate) => candidate.id === event.id)).length : 0;
  const togglePause = () => {
    setFrozen(events);
    setPaused(!paused);
  };

  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilters(Object.fromEntries(Object.entries(draft).filter(([, value]) => value)) as StreamFilters);
  };

  return (
    <>
      <div className="page-head">
        <h1>Events</h1>
        <span className={`live live-${status}`} role="status">
          {paused ? `Paused (${held} new)` : LIVE_TEXT[status]}
        </span>
        <button type="button" onClick={togglePause} aria-pressed={paused}>
          {paused ? "Resume" : "Pause"}
        </button>
      </div>
      <form className="filters" aria-label="Event filters" onSubmit={apply}>
        <Field label="Event type">
          {(props) => (
            <select {...props} value={draft.event_type ?? ""} onChange={(event) => setDraft({ ...draft, event_type: event.target.value })}>
              <option value="">any type</option>
              {EVENT_GROUPS.map(([group, types]) => (
                <optgroup key={group} label={group}>
                  {types.map((type) => (
                    <option key={type} value={type}>
                      {type}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          )}
        </Field>
        <Field label="About">
          {(props) => (
            <select
              {...props}
              value={draft.aggregate_type ?? ""}
              onChange={(event) => setDraft({ ...draft, aggregate_type: (event.target.value || undefined) as StreamFilters["aggregate_type"] })}
            >
              <option value="">anything</option>
              {AGGREGATE_TYPES.map((type) => (
                <option key={type} value={type}>
                  {type.replace("_", " ")}s
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Aggregate id">
          {(props) => (
            <input
              {...props}
              value={draft.aggregate_id ?? ""}
              onChange={(event) => setDraft({ ...draft, aggregate_id: event.target.value.trim() })}
              placeholder="a job's, automation's… id"
            />
          )}
        </Field>
        <button type="submit" className="primary">
          Apply filters
        </button>
      </form>
      {error && <ErrorMessage error={error} />}
      {shown === undefined ? (
        !error && <Loading what="events" />
      ) : shown.length === 0 ? (
        <Empty>No events since {dateTime(new Date(earlier.since).toISOString())} match; new ones appear here as they happen.</Empty>
      ) : (
        <div className="table-wrap" tabIndex={0}>
          <table>
            <caption className="visually-hidden">Events, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">About</th>
                <th scope="col">Payload</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((event) => (
                <tr key={event.id}>
                  <td>
                    <time dateTime={event.created_at} title={dateTime(event.created_at)}>
                      {new Date(event.created_at).toLocaleTimeString()}
                    </time>
                  </td>
                  <th scope="row">{event.event_type}</th>
                  <td data-label="About">
                    <AggregateLink event={event} />
                  </td>
                  <td className="wide">
                    <code className="payload">{shownJson(event.payload)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {shown !== undefined && (
        <div className="pager">
          <span className="hint">Showing events since {dateTime(new Date(earlier.since).toISOString())}.</span>
          <button type="button" disabled={loadingEarlier} onClick={() => void showEarlier()}>
            {loadingEarlier ? "Reading…" : `Show the ${EARLIER_MINUTES} minutes before`}
          </button>
          {earlier.more && <span className="hint">That hour held more events than one step reads: narrow the filters to see them all.</span>}
        </div>
      )}
    </>
  );
}

function AggregateLink({ event }: { event: HubEvent }) {
  const short = <ShortId id={event.aggregate_id} />;
  if (event.event_type.startsWith("job.")) return <Link to={`/jobs/${event.aggregate_id}`}>job {short}</Link>;
  if (event.event_type.startsWith("automation.") || event.event_type.startsWith("worker.")) {
    return <Link to={`/automations/${event.aggregate_id}`}>automation {short}</Link>;
  }
  return (
    <span>
      {event.event_type.split(".")[0]?.replace("_", " ")} {short}
    </span>
  );
}

/** Matching events from `since` (inclusive) to `until` (exclusive; none: now), a few pages at most, oldest first. */
async function readBetween(filters: StreamFilters, sinceMs: number, untilMs: number | undefined): Promise<HubEvent[]> {
  const since = new Date(sinceMs).toISOString();
  const found: HubEvent[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < HISTORY_PAGES; page += 1) {
    const request = hub.GET("/events", {
      params: {
        query: {
          since,
          ...(untilMs === undefined ? {} : { until: new Date(untilMs).toISOString() }),
          limit: 1000,
          ...(filters.aggregate_id ? { aggregate_id: filters.aggregate_id } : {}),
          ...(filters.event_type ? { event_type: filters.event_type } : {}),
          ...(filters.aggregate_type ? { aggregate_type: filters.aggregate_type } : {}),
          ...(cursor ? { cursor } : {}),
        },
      },
    });
    found.push(...(await call(request)));
    cursor = nextCursor((await request).response);
    if (!cursor) break;
  }
  return found;
}

function newestFirst(events: HubEvent[], keep = KEEP): HubEvent[] {
  const byId = new Map(events.map((event) => [event.id, event]));
  return [...byId.values()].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id)).slice(0, keep);
}
