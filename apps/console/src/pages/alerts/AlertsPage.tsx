/**
 * Alerts (CONTRACT §6.19): the alerts firing now, the rules (admins create and delete them), and the
 * history of resolved alerts, newest first. Lists are cards, so nothing scrolls sideways at 390 px.
 * Live: alert events re-read the page.
 */
import { useState, type FormEvent } from "react";
import { call, hub } from "../../api";
import { ago, dateTime } from "../../format";
import { useLiveEvents } from "../../live";
import { Link } from "../../router";
import { useUser } from "../../session";
import { shown } from "../../shown";
import { Badge, ConfirmButton, Empty, ErrorMessage, Field, Loading, useCoalesced, useResource, useSubmission } from "../../ui";
import { useNow } from "../../clock";
import { KIND_LABELS, THRESHOLD_UNITS, ruleSummary, thresholdOf, type Alert, type AlertKind } from "./alert-rules";

function readAll() {
  return Promise.all([
    call(hub.GET("/alerts", { params: { query: { state: "firing", limit: 1000 } } })),
    call(hub.GET("/alert-rules", { params: { query: { limit: 1000 } } })),
    call(hub.GET("/alerts", { params: { query: { state: "resolved", limit: 50 } } })),
    call(hub.GET("/automations", { params: { query: { limit: 1000 } } })),
  ]).then(([firing, rules, resolved, automations]) => ({ firing, rules, resolved, automations }));
}

export function AlertsPage() {
  const user = useUser();
  const page = useResource(readAll, []);
  const reload = useCoalesced(() => page.reload());
  useLiveEvents((event) => {
    if (event === "reset" || event.event_type.startsWith("alert.")) reload();
  });
  const now = useNow();
  const names = new Map((page.data?.automations ?? []).map((automation) => [automation.id, automation.name]));
  const nameOf = (id: string | null) => (id === null ? "Every automation" : shown(names.get(id) ?? id));

  return (
    <>
      <h1>Alerts</h1>
      <p className="sub">The hub evaluates each rule at least every 10 seconds, for each automation it covers, and says in words what is wrong.</p>
      {page.error && <ErrorMessage error={page.error} onRetry={page.reload} />}
      {page.data === undefined ? (
        !page.error && <Loading what="alerts" />
      ) : (
        <>
          <section aria-labelledby="firing-title">
            <h2 id="firing-title">Firing now</h2>
            {page.data.firing.length === 0 ? <Empty>Nothing is wrong right now.</Empty> : <AlertCards alerts={page.data.firing} now={now} nameOf={nameOf} />}
          </section>
          <section aria-labelledby="rules-title">
            <h2 id="rules-title">Rules</h2>
            {user.isAdmin && <NewRule automations={page.data.automations} onCreated={reload} />}
            {page.data.rules.length === 0 ? (
              <Empty>No alert rules yet.</Empty>
            ) : (
              <ul className="cards" aria-label="Alert rules">
                {page.data.rules.map((rule) => (
                  <li key={rule.id} className="card" data-rule={rule.id}>
                    <div className="card-head">
                      <Badge tone="info">{KIND_LABELS[rule.kind]}</Badge>
                      <span>{nameOf(rule.automation_id)}</span>
                    </div>
                    <p>Fires when {ruleSummary(rule)}.</p>
                    {rule.description && <p className="sub">{shown(rule.description)}</p>}
                    {user.isAdmin && (
                      <ConfirmButton
                        label="Delete rule"
                        labelDetail={KIND_LABELS[rule.kind]}
                        question="Delete this rule? Its firing alerts resolve; their history stays."
                        confirmLabel="Delete rule"
                        keepLabel="Keep rule"
                        danger
                        onConfirm={async () => {
                          await call(hub.DELETE("/alert-rules/{rule_id}", { params: { path: { rule_id: rule.id } } }));
                          reload();
                        }}
                      />
                    )}
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section aria-labelledby="history-title">
            <h2 id="history-title">Resolved</h2>
            {page.data.resolved.length === 0 ? <Empty>No alert has resolved yet.</Empty> : <AlertCards alerts={page.data.resolved} now={now} nameOf={nameOf} />}
          </section>
        </>
      )}
    </>
  );
}

function AlertCards({ alerts, now, nameOf }: { alerts: Alert[]; now: number; nameOf: (id: string) => string }) {
  return (
    <ul className="cards">
      {alerts.map((alert) => (
        <li key={`${alert.rule_id}/${alert.automation_id}/${alert.resolved_at ?? ""}`} className={`card ${alert.resolved_at ? "" : "card-alert"}`}>
          <div className="card-head">
            <Badge tone={alert.resolved_at ? "neutral" : "bad"}>{KIND_LABELS[alert.kind]}</Badge>
            <Link to={`/automations/${alert.automation_id}`}>{nameOf(alert.automation_id)}</Link>
          </div>
          <p>{shown(alert.message)}</p>
          <p className="sub">
            {alert.resolved_at ? (
              <>
                Fired {dateTime(alert.since)}, resolved {dateTime(alert.resolved_at)}
              </>
            ) : (
              <>Firing since {ago(alert.since, now)}</>
            )}
          </p>
        </li>
      ))}
    </ul>
  );
}

const KINDS = Object.keys(KIND_LABELS) as AlertKind[];

function NewRule({ automations, onCreated }: { automations: Array<{ id: string; name: string }>; onCreated: () => void }) {
  const [automationId, setAutomationId] = useState("");
  const [kind, setKind] = useState<AlertKind>("queue_age");
  const [threshold, setThreshold] = useState("10");
  const [forMinutes, setForMinutes] = useState("0");
  const [description, setDescription] = useState("");
  const [notice, setNotice] = useState<string>();
  const { busy, error, issues, run } = useSubmission();
  const unit = THRESHOLD_UNITS[kind];

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setNotice(undefined);
    const body = {
      automation_id: automationId === "" ? null : automationId,
      kind,
      threshold: thresholdOf(kind, threshold),
      for_seconds: Math.round(Number(forMinutes || "0") * 60),
      description,
    };
    if (await run(() => call(hub.POST("/alert-rules", { body })))) {
      setNotice(`${KIND_LABELS[kind]} rule created.`);
      setDescription("");
      onCreated();
    }
  };

  return (
    <details className="panel">
      <summary>New rule</summary>
      <form className="inline-form" onSubmit={(event) => void create(event)} noValidate>
        <Field label="Automation" error={issues.automation_id}>
          {(props) => (
            <select {...props} value={automationId} onChange={(event) => setAutomationId(event.target.value)}>
              <option value="">Every automation, each on its own</option>
              {automations.map((automation) => (
                <option key={automation.id} value={automation.id}>
                  {shown(automation.name)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Kind" error={issues.kind}>
          {(props) => (
            <select {...props} value={kind} onChange={(event) => setKind(event.target.value as AlertKind)}>
              {KINDS.map((value) => (
                <option key={value} value={value}>
                  {KIND_LABELS[value]}
                </option>
              ))}
            </select>
          )}
        </Field>
        {unit && (
          <Field label={`Threshold (${unit})`} error={issues.threshold}>
            {(props) => <input {...props} inputMode="decimal" value={threshold} onChange={(event) => setThreshold(event.target.value)} />}
          </Field>
        )}
        <Field label="For (minutes)" hint="How long the condition must hold before the alert fires" error={issues.for_seconds}>
          {(props) => <input {...props} inputMode="decimal" value={forMinutes} onChange={(event) => setForMinutes(event.target.value)} />}
        </Field>
        <Field label="Description" error={issues.description}>
          {(props) => <input {...props} value={description} onChange={(event) => setDescription(event.target.value)} />}
        </Field>
        <button type="submit" className="primary" disabled={busy}>
          Create rule
        </button>
      </form>
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      {error && <ErrorMessage error={error} />}
    </details>
  );
}
