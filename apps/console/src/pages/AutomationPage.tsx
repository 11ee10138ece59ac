/**
 * One automation: its stats, settings, parameters, worker, schedules and jobs, and what an admin
 * can do to it. Live: its events re-read the record and stats, job events the jobs page, schedule
 * events the schedules.
 */
import { useState, type FormEvent } from "react";
import { call, hub, type Automation, type AutomationStats } from "../api";
import { dateTime, keyValueText, rateLimitText, relative } from "../format";
import { automationIdOf, useLiveEvents } from "../live";
import { Link } from "../router";
import { useUser } from "../session";
import { Badge, ConfirmButton, Empty, ErrorMessage, Field, Loading, SecretOnce, useCoalesced, useResource, useSubmission } from "../ui";
import { Ago, Clocked, Since } from "../clock";
import { readStats } from "./AutomationsPage";
import { JobsSection } from "./JobsSection";
import { RotateWorkerKey } from "./RotateWorkerKey";
import { SchedulesSection } from "./SchedulesSection";
import { shown } from "../shown";

export function AutomationPage({ automationId }: { automationId: string }) {
  const user = useUser();
  const path = { params: { path: { automation_id: automationId } } };
  const automation = useResource(() => call(hub.GET("/automations/{automation_id}", path)), [automationId]);
  const stats = useResource(() => readStats(automationId), [automationId]);
  const schedules = useResource(
    () => call(hub.GET("/automations/{automation_id}/schedules", { params: { path: { automation_id: automationId }, query: { limit: 1000 } } })),
    [automationId],
  );
  const [jobsVersion, setJobsVersion] = useState(0);
  const { error: actionError, run } = useSubmission();

  const reloadAutomation = useCoalesced(() => {
    automation.reload();
    stats.reload();
  });
  const reloadSchedules = useCoalesced(() => schedules.reload());
  const reloadJobs = useCoalesced(() => setJobsVersion((version) => version + 1));

  useLiveEvents((event) => {
    if (event === "reset") {
      reloadAutomation();
      reloadSchedules();
      reloadJobs();
      return;
    }
    if (event.event_type.startsWith("schedule.") || (event.event_type === "job.created" && "schedule_id" in event.payload)) reloadSchedules();
    if (event.event_type.startsWith("maintenance_window.")) reloadAutomation();
    if (automationIdOf(event) !== automationId) return;
    reloadAutomation();
    if (event.event_type.startsWith("job.")) reloadJobs();
  });

  const act = async (action: () => Promise<unknown>) => {
    await run(action);
    reloadAutomation();
  };

  if (automation.error && !automation.data) return <ErrorMessage error={automation.error} onRetry={automation.reload} />;
  if (!automation.data) return <Loading what="the automation" />;
  const record = automation.data;

  return (
    <>
      <p className="crumbs">
        <Link to="/automations">Automations</Link> /
      </p>
      <div className="page-head">
        <h1>{shown(record.name)}</h1>
        <span className="badges">
          {record.is_active ? <Badge tone="good">active</Badge> : <Badge tone="neutral">deactivated</Badge>}
          {record.is_development && <Badge tone="warn">development mode</Badge>}
        </span>
        {record.is_active && (
          <Link className="button primary" to={`/automations/${automationId}/new-job`}>
            New job
          </Link>
        )}
      </div>
      <p className="sub">
        {record.slug} · sector {shown(record.sector.name)}
        {record.description && ` · ${shown(record.description)}`}
      </p>

      {stats.data?.maintenance_until && (
        <p className="waiting maintenance-banner" role="status">
          A maintenance window holds this automation: no job starts until {dateTime(stats.data.maintenance_until)} (
          <Clocked text={(now) => relative(stats.data!.maintenance_until!, now)} />
          ). Running jobs go on; new jobs wait. <Link to="/maintenance">See the maintenance windows</Link>.
        </p>
      )}
      {user.isAdmin && record.is_active && (
        <section aria-labelledby="actions-title" className="panel">
          <h2 id="actions-title">Actions</h2>
          <div className="actions">
            <Link className="button" to={`/automations/${automationId}/edit`}>
              Edit settings
            </Link>
            {record.is_development ? (
              <button type="button" onClick={() => void act(() => call(hub.DELETE("/automations/{automation_id}/development-mode", path)))}>
                Leave development mode
              </button>
            ) : (
              <button type="button" onClick={() => void act(() => call(hub.POST("/automations/{automation_id}/development-mode", path)))}>
                Enter development mode
              </button>
            )}
            <ConfirmButton
              label="Deactivate"
              danger
              question="Deactivate this automation? New jobs are refused, its queued jobs are cancelled and its schedules disabled; running jobs may finish."
              confirmLabel="Deactivate automation"
              keepLabel="Keep it active"
              onConfirm={() => act(() => call(hub.DELETE("/automations/{automation_id}", path)))}
            />
          </div>
          {record.is_development && <p className="hint">In development mode jobs are accepted but stay queued; leaving it releases them in order.</p>}
          {actionError && <ErrorMessage error={actionError} />}
        </section>
      )}

      <section aria-labelledby="stats-title">
        <h2 id="stats-title">Queue</h2>
        {stats.error && <ErrorMessage error={stats.error} onRetry={stats.reload} />}
        {stats.data ? (
          <dl className="stats">
            <div>
              <dt>Queued</dt>
              <dd>{stats.data.queued}</dd>
            </div>
            <div>
              <dt>Running / limit</dt>
              <dd>
                {stats.data.running} / {stats.data.max_concurrent_jobs}
              </dd>
            </div>
            <div>
              <dt>Scheduled later</dt>
              <dd>{stats.data.scheduled}</dd>
            </div>
            <div>
              <dt>Oldest queued</dt>
              <dd>{stats.data.oldest_queued_at ? <Since iso={stats.data.oldest_queued_at} /> : "none"}</dd>
            </div>
            <div>
              <dt>Completed (1 h)</dt>
              <dd>{stats.data.completed_last_hour}</dd>
            </div>
            <div>
              <dt>Failed (1 h)</dt>
              <dd>{stats.data.failed_last_hour}</dd>
            </div>
            {stats.data.rate_limit_remaining !== null && (
              <div>
                <dt>Starts left in the window</dt>
                <dd>{stats.data.rate_limit_remaining}</dd>
              </div>
            )}
          </dl>
        ) : (
          !stats.error && <Loading what="the queue" />
        )}
        {record.concurrency_key !== null && stats.data && (
          <TopKeys concurrencyKey={record.concurrency_key} byKey={stats.data.by_key} perKeyRate={record.rate_limit?.per_key ?? false} />
        )}
      </section>

      <WorkerSection
        automation={record}
        workerStatus={stats.data?.worker_status ?? null}
        lastSeenAt={stats.data?.worker_last_seen_at ?? null}
        onChange={reloadAutomation}
      />

      <section aria-labelledby="settings-title">
        <h2 id="settings-title">Settings</h2>
        <dl className="settings">
          <dt>Jobs running at once</dt>
          <dd>{record.max_concurrent_jobs}</dd>
          <dt>Attempts per job</dt>
          <dd>{record.max_attempts}</dd>
          <dt>Retry back-off</dt>
          <dd>{record.retry_backoff_seconds} s, doubling per attempt</dd>
          <dt>Timeout</dt>
          <dd>{record.timeout_seconds === null ? "none" : `${record.timeout_seconds} s`}</dd>
          <dt>Jobs running at once per key</dt>
          <dd data-testid="per-key-limit">
            {record.concurrency_key === null ? (
              "no key"
            ) : (
              <>
                {record.max_concurrent_per_key} per <code>{record.concurrency_key}</code>, shared fairly across its values
              </>
            )}
          </dd>
          <dt>Rate limit</dt>
          <dd data-testid="rate-limit">{rateLimitText(record.rate_limit, record.concurrency_key)}</dd>
          <dt>Created</dt>
          <dd>{dateTime(record.created_at)}</dd>
        </dl>
        <h3>Parameters</h3>
        {record.parameters.length === 0 ? (
          <Empty>No parameters: its jobs carry an empty context.</Empty>
        ) : (
          <table>
            <caption className="visually-hidden">Parameters</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {record.parameters.map((parameter) => (
                <tr key={parameter.name}>
                  <th scope="row">
                    <code>{shown(parameter.name)}</code>
                  </th>
                  <td>{parameter.description || <span className="muted">—</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <SchedulesSection automation={record} schedules={schedules.data} error={schedules.error} canChange={user.isAdmin} onChange={reloadSchedules} />

      <JobsSection automation={record} version={jobsVersion} stats={stats.data} />
    </>
  );
}

function WorkerSection({
  automation,
  workerStatus,
  lastSeenAt,
  onChange,
}: {
  automation: Automation;
  workerStatus: "running" | "stopped" | null;
  lastSeenAt: string | null;
  onChange: () => void;
}) {
  const user = useUser();
  const [cloudInstanceId, setCloudInstanceId] = useState("");
  const [secret, setSecret] = useState<{ title: string; key: string }>();
  const { error, run } = useSubmission();
  const path = { params: { path: { automation_id: automation.id } } };
  const worker = automation.worker;

  const register = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      const created = await call(hub.POST("/automations/{automation_id}/worker", { ...path, body: { cloud_instance_id: cloudInstanceId } }));
      setSecret({ title: "The new worker's api key", key: created.api_key });
      setCloudInstanceId("");
      onChange();
    });
  };

  return (
    <section aria-labelledby="worker-title">
      <h2 id="worker-title">Worker</h2>
      {secret && (
        <SecretOnce
          title={secret.title}
          label="Worker api key"
          secret={secret.key}
          warning="Copy it now and give it to the worker (X-Worker-Api-Key). The hub keeps only a hash: it cannot show this key again. Lost it? Rotate the key."
          onDone={() => setSecret(undefined)}
        >
          <WorkerCommand slug={automation.slug} />
        </SecretOnce>
      )}
      {worker === null ? (
        <>
          <Empty>No worker is registered: jobs wait until one is.</Empty>
          {user.isAdmin && automation.is_active && (
            <form className="inline-form" onSubmit={(event) => void register(event)}>
              <Field label="Cloud instance id" hint="Where the worker runs, e.g. i-0abc123 (1–64 characters).">
                {(props) => <input {...props} required maxLength={64} value={cloudInstanceId} onChange={(event) => setCloudInstanceId(event.target.value)} />}
              </Field>
              <button type="submit" className="primary">
                Register worker
              </button>
            </form>
          )}
        </>
      ) : (
        <>
          <dl className="settings">
            <dt>Status</dt>
            <dd>
              <Badge tone={(workerStatus ?? worker.status) === "running" ? "good" : "bad"}>{workerStatus ?? worker.status}</Badge>
            </dd>
            <dt>Last seen</dt>
            <dd title={dateTime(lastSeenAt ?? worker.last_seen_at)}>
              <Ago iso={lastSeenAt ?? worker.last_seen_at} />
            </dd>
            <dt>Cloud instance</dt>
            <dd>
              <code>{worker.cloud_instance_id}</code>
            </dd>
            <dt>Registered</dt>
            <dd>{dateTime(worker.created_at)}</dd>
          </dl>
          {user.isAdmin && (
            <div className="actions">
              <RotateWorkerKey
                automationId={automation.id}
                onRotated={(apiKey) => {
                  setSecret({ title: "The worker's new api key", key: apiKey });
                  onChange();
                }}
              />
              <ConfirmButton
                label="Unregister worker"
                danger
                question="Unregister the worker? Its key stops working and its running jobs go back to the queue."
                confirmLabel="Unregister worker"
                keepLabel="Keep it registered"
                onConfirm={async () => {
                  await call(hub.DELETE("/automations/{automation_id}/worker", path));
                  onChange();
                }}
              />
            </div>
          )}
        </>
      )}
      {error && <ErrorMessage error={error} />}
    </section>
  );
}

/** The next step after a key is shown: store it in a file, start the reference worker with it. */
function WorkerCommand({ slug }: { slug: string }) {
  const keyFile = `/etc/hub/${slug}.key`;
  return (
    <div className="next-step">
      <p>
        Next: save the key in a file only the worker can read (e.g. <code>{keyFile}</code>, mode 0600) and start the worker with the command that does the work:
      </p>
      <pre className="json" tabIndex={0}>
        {`hub-worker --url ${window.location.origin} --api-key-file ${keyFile} -- <your command>`}
      </pre>
    </div>
  );
}

/** The key values with the most due queued jobs (GET /automations/{id}/stats `by_key`). */
function TopKeys({ concurrencyKey, byKey, perKeyRate }: { concurrencyKey: string; byKey: AutomationStats["by_key"]; perKeyRate: boolean }) {
  return (
    <>
      <h3>
        Top values of <code>{concurrencyKey}</code>
      </h3>
      {byKey.length === 0 ? (
        <Empty>No job of any value is queued or running.</Empty>
      ) : (
        <table data-testid="top-keys">
          <caption className="visually-hidden">Queued and running jobs per {concurrencyKey}</caption>
          <thead>
            <tr>
              <th scope="col">{concurrencyKey}</th>
              <th scope="col">Queued</th>
              <th scope="col">Running</th>
              {perKeyRate && <th scope="col">Starts left in the window</th>}
            </tr>
          </thead>
          <tbody>
            {byKey.map((row) => (
              <tr key={keyValueText(row.key)}>
                <th scope="row">{row.key === null ? <span className="muted">{keyValueText(null)}</span> : <code>{row.key}</code>}</th>
                <td>{row.queued}</td>
                <td>{row.running}</td>
                {perKeyRate && <td>{row.rate_limit_remaining ?? "—"}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
