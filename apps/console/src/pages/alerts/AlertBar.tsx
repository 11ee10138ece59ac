/**
 * The alerts firing now (CONTRACT §6.19), on every page: one line per alert with its message and
 * a link to its automation, and a link to the Alerts page. Re-read when an alert event arrives and
 * every 30 s (an evaluation may change the message's value).
 */
import { useEffect } from "react";
import { call, hub } from "../../api";
import { useLiveEvents } from "../../live";
import { Link } from "../../router";
import { shown } from "../../shown";
import { useCoalesced, useResource } from "../../ui";

const SHOWN_MAX = 3;

export function AlertBar() {
  const firing = useResource(() => call(hub.GET("/alerts", { params: { query: { state: "firing", limit: 100 } } })), []);
  const reload = useCoalesced(() => firing.reload());
  useLiveEvents((event) => {
    if (event === "reset" || event.event_type.startsWith("alert.")) reload();
  });
  useEffect(() => {
    const timer = setInterval(reload, 30_000);
    return () => clearInterval(timer);
  }, [reload]);

  const alerts = firing.data ?? [];
  if (alerts.length === 0) return null;
  return (
    <section className="alert-bar" role="region" aria-label="Alerts firing now">
      <ul>
        {alerts.slice(0, SHOWN_MAX).map((alert) => (
          <li key={`${alert.rule_id}/${alert.automation_id}`} data-alert-kind={alert.kind}>
            <span className="alert-dot" aria-hidden="true" />
            <Link to={`/automations/${alert.automation_id}`}>{shown(alert.message)}</Link>
          </li>
        ))}
      </ul>
      <Link to="/alerts" className="alert-more">
        {alerts.length > SHOWN_MAX
          ? `All ${alerts.length} alerts`
          : alerts.length === 1
            ? "The alert and its rules"
            : `The ${alerts.length} alerts and their rules`}
      </Link>
    </section>
  );
}
