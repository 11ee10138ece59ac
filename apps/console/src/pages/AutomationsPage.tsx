/**
 * Every automation's queue at a glance. Live: an event about an automation, its worker or one of
 * its jobs re-reads that automation's row (its stats, and its record when the automation or
 * worker changed); a burst of events costs one read per row, and nothing is polled.
 */
import { useRef, useState } from "react";
import { call, hub, nextCursor, type Automation, type AutomationStats } from "../api";
import { ago, duration } from "../format";
import { automationIdOf, useLiveEvents } from "../live";
import { Link } from "../router";
import { useUser } from "../session";
import { Badge, Empty, ErrorMessage, Loading, useCoalesced, useNow, useResource } from "../ui";

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

interface Row {
  automation: Automation;
  stats: AutomationStats | undefined;
}

export function AutomationsPage() {
  const user = useUser();
  const now = useNow();
  const [showInactive, setShowInactive] = useState(false);
  const [rows, setRows] = useState<Map<string, Row>>(new Map());

  const list = useResource(async () => {
    const automations = await listAllAutomations();
    const stats = await Promise.all(automations.map((automation) => readStats(automation.id).catch(() => undefined)));
    setRows(new Map(automations.map((automation, index) => [automation.id, { automation, stats: stats[index] }])));
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

  const shown = [...rows.values()].filter((row) => showInactive || row.automation.is_active);
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
          No automations yet.{" "}
          {user.isAdmin ? <Link to="/automations/new">Create the first one</Link> : "An admin creates them; they will show up here."}
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
                {shown.map(({ automation, stats }) => (
                  <tr key={automation.id} data-automation={automation.slug}>
                    <th scope="row">
                      <Link to={`/automations/${automation.id}`}>{automation.name}</Link>
                      <span className="sub">{automation.slug}</span>
                    </th>
                    <td>
                      <span className="sector">
                        <span className="swatch" aria-hidden="true" style={{ backgroundColor: automation.sector.color }} />
                        {automation.sector.name}
                      </span>
                    </td>
                    <td>
                      {automation.is_active ? <Badge tone="good">active</Badge> : <Badge tone="neutral">deactivated</Badge>}{" "}
                      {automation.is_development && <Badge tone="warn">development</Badge>}
                    </td>
                    <td>
                      {automation.worker === null ? (
                        <span className="muted">none</span>
                      ) : (
                        <>
                          <Badge tone={stats?.worker_status === "running" ? "good" : "bad"}>{stats?.worker_status ?? automation.worker.status}</Badge>
                          <span className="sub">seen {ago(stats?.worker_last_seen_at ?? automation.worker.last_seen_at, now)}</span>
                        </>
                      )}
                    </td>
                    <td className="num" data-label="queue">
                      {stats ? `${stats.queued} / ${stats.running} / ${stats.max_concurrent_jobs}` : "—"}
                    </td>
                    <td>{stats?.oldest_queued_at ? duration(now - Date.parse(stats.oldest_queued_at)) : <span className="muted">none waiting</span>}</td>
                    <td className={`num${stats && stats.failed_last_hour > 0 ? " failed" : ""}`}>{stats ? stats.failed_last_hour : "—"}</td>
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
