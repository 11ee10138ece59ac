/**
 * Every automation's queue at a glance. Live: an event about an automation, its worker or one of
 * its jobs re-reads that automation's row (its stats, and its record when the automation or
 * worker changed); a burst of events costs one read per row, and nothing is polled.
 */
import { useEffect, useRef, useState } from "react";
import { call, hub, nextCursor, type Automation, type AutomationStats } from "../api";
import { automationIdOf, useLiveEvents } from "../live";
import { Link } from "../router";
import { useUser } from "../session";
import { Ago, Since } from "../clock";
import { Badge, Empty, ErrorMessage, Loading, useCoalesced, useResource } from "../ui";
import { shown } from "../shown";

/** Every automation, following the list's pages. */
export async function listAllAutomations(): Promise<Automation[]> {
  const automations: Automation[] = [];
  let cursor: string | undefined;
  do {
    const page = hub.GET("/automations", { params: { query: { limit: 1000, ...(cursor ? { cursor } : {}) } } });
    automations.push(...(await call(page)));
    cursor = nextCursor((await page).response);
  } while (cursor);
  return automations;
}

export function readStats(automationId: string): Promise<AutomationStats> {
  return call(hub.GET("/automations/{automation_id}/stats", { params: { path: { automation_id: automationId } } }));
}

/** Stats read at once: about the browser's connections to one host (more only queue, and thousands fail with ERR_INSUFFICIENT_RESOURCES). */
const STATS_READS_AT_ONCE = 6;
/** Stats handed to the rows together (each hand-over renders the table again). */
const STATS_BATCH = 50;

/** Reads the stats of `ids`, {@link STATS_READS_AT_ONCE} at a time, handing them over in batches while `current()` holds (a failed read gives undefined). */
async function readEveryStats(ids: string[], current: () => boolean, apply: (read: Map<string, AutomationStats | undefined>) => void): Promise<void> {
  let next = 0;
  let read = new Map<string, AutomationStats | undefined>();
  const handOver = () => {
    if (read.size === 0 || !current()) return;
    apply(read);
    read = new Map();
  };
  const reader = async () => {
    while (next < ids.length && current()) {
      const id = ids[next++]!;
      read.set(id, await readStats(id).catch(() => undefined));
      if (read.size >= STATS_BATCH) handOver();
    }
  };
  await Promise.all(Array.from({ length: STATS_READS_AT_ONCE }, reader));
  handOver();
}

/** Rows rendered first; the rest follow once those are painted (1,000 rows take seconds to render on a busy machine). */
const FIRST_ROWS = 100;

/** How many of `total` rows to render: {@link FIRST_ROWS} until the frame after they are painted, then all. */
function useRowsToRender(total: number): number {
  const [all, setAll] = useState(false);
  useEffect(() => {
    if (all || total <= FIRST_ROWS) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // After the next frame is painted, not before it.
    const frame = requestAnimationFrame(() => (timer = setTimeout(() => setAll(true), 0)));
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [all, total]);
  return all ? total : FIRST_ROWS;
}

interface Row {
  automation: Automation;
  stats: AutomationStats | undefined;
}

export function AutomationsPage() {
  const user = useUser();
  const [showInactive, setShowInactive] = useState(false);
  const [rows, setRows] = useState<Map<string, Row>>(new Map());

  /** Bumped by each read of the list: the stats reads of an older one stop. */
  const statsGeneration = useRef(0);
  const list = useResource(async () => {
    const automations = await listAllAutomations();
    const generation = ++statsGeneration.current;
    // The rows show at once (a row keeps the stats it had); their stats follow as they are read.
    setRows((previous) => new Map(automations.map((automation) => [automation.id, { automation, stats: previous.get(automation.id)?.stats }])));
    void readEveryStats(
      automations.map((automation) => automation.id),
      () => generation === statsGeneration.current,
      (read) =>
        setRows((previous) => {
          const next = new Map(previous);
          for (const [id, stats] of read) {
            const row = next.get(id);
            if (row) next.set(id, { ...row, stats });
          }
          return next;
        }),
    );
    return automations.length;
  }, []);

  // Rows to re-read, and whether their records (not only stats) changed.
  const stale = useRef(new Map<string, { record: boolean }>());
  const refreshRows = useCoalesced(async () => {
    const due = [...stale.current];
    stale.current.clear();
    const updates = await Promise.all(
      due.map(async ([id, { record }]) => {
        const [automation, stats] = await Promise.all([
          record ? call(hub.GET("/automations/{automation_id}", { params: { path: { automation_id: id } } })) : undefined,
          readStats(id),
        ]);
        return { id, automation, stats };
      }),
    ).catch(() => []);
    setRows((previous) => {
      const next = new Map(previous);
      for (const { id, automation, stats } of updates) {
        const row = next.get(id);
        if (row) next.set(id, { automation: automation ?? row.automation, stats });
      }
      return next;
    });
  });
  const reloadAll = useCoalesced(() => list.reload());

  useLiveEvents((event) => {
    if (event === "reset" || event.event_type === "automation.created" || event.event_type === "sector.created") {
      reloadAll();
      return;
    }
    const id = automationIdOf(event);
    if (!id || !rows.has(id)) return;
    const record = !event.event_type.startsWith("job.");
    stale.current.set(id, { record: record || (stale.current.get(id)?.record ?? false) });
    refreshRows();
  });

  const listed = [...rows.values()].filter((row) => showInactive || row.automation.is_active);
  const rendered = useRowsToRender(listed.length);
  const inactive = rows.size - [...rows.values()].filter((row) => row.automation.is_active).length;

  return (
    <>
      <div className="page-head">
        <h1>Automations</h1>
        {user.isAdmin && (
          <Link className="button primary" to="/automations/new">
            New automation
          </Link>
        )}
      </div>
      {list.error && <ErrorMessage error={list.error} onRetry={list.reload} />}
      {list.loading && list.data === undefined ? (
        <Loading what="automations" />
      ) : rows.size === 0 && !list.error ? (
        <Empty>
          No automations yet. {user.isAdmin ? <Link to="/automations/new">Create the first one</Link> : "An admin creates them; they will show up here."}
        </Empty>
      ) : (
        <>
          {inactive > 0 && (
            <label className="toggle">
              <input type="checkbox" checked={showInactive} onChange={(event) => setShowInactive(event.target.checked)} /> Show {inactive} deactivated
            </label>
          )}
          <div className="table-wrap" tabIndex={0}>
            <table>
              <caption className="visually-hidden">Automations and their queues, updated live</caption>
              <thead>
                <tr>
                  <th scope="col">Automation</th>
                  <th scope="col">Sector</th>
                  <th scope="col">State</th>
                  <th scope="col">Worker</th>
                  <th scope="col" className="num">
                    Queued / running / limit
                  </th>
                  <th scope="col">Oldest queued</th>
                  <th scope="col" className="num">
                    Failed (1 h)
                  </th>
                </tr>
              </thead>
              <tbody>
                {listed.slice(0, rendered).map(({ automation, stats }) => (
                  <tr key={automation.id} data-automation={automation.slug}>
                    <th scope="row">
                      <Link to={`/automations/${automation.id}`}>{shown(automation.name)}</Link>
                      <span className="sub">{automation.slug}</span>
                    </th>
                    <td data-label="Sector">
                      <span className="sector">
                        <span className="swatch" aria-hidden="true" style={{ backgroundColor: automation.sector.color }} />
                        {shown(automation.sector.name)}
                      </span>
                    </td>
                    <td data-label="State">
                      {automation.is_active ? <Badge tone="good">active</Badge> : <Badge tone="neutral">deactivated</Badge>}{" "}
                      {automation.is_development && <Badge tone="warn">development</Badge>}
                    </td>
                    <td data-label="Worker">
                      {automation.worker === null ? (
                        <span className="muted">none</span>
                      ) : (
                        <>
                          <Badge tone={stats?.worker_status === "running" ? "good" : "bad"}>{stats?.worker_status ?? automation.worker.status}</Badge>
                          <span className="sub">
                            seen <Ago iso={stats?.worker_last_seen_at ?? automation.worker.last_seen_at} />
                          </span>
                        </>
                      )}
                    </td>
                    <td className="num" data-label="Queued / running / limit">
                      {stats ? `${stats.queued} / ${stats.running} / ${stats.max_concurrent_jobs}` : "—"}
                    </td>
                    <td data-label="Oldest queued">
                      {stats?.oldest_queued_at ? <Since iso={stats.oldest_queued_at} /> : <span className="muted">none waiting</span>}
                    </td>
                    <td className={`num${stats && stats.failed_last_hour > 0 ? " failed" : ""}`} data-label="Failed (1 h)">
                      {stats ? stats.failed_last_hour : "—"}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </>
  );
}
