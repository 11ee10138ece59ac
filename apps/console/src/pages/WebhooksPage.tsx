/**
 * Webhook subscriptions (admins): the list and a new one (its signing secret shown once), and one
 * subscription's page: rotate its secret, delete it, and its delivery log with redeliver. Live:
 * webhook events re-read the list and the page.
 */
import { useEffect, useState, type FormEvent } from "react";
import { call, describeError, hub, nextCursor, type HubEvent, type Webhook, type WebhookDelivery as Delivery } from "../api";
import { ago, dateTime } from "../format";
import { useLiveEvents } from "../live";
import { Link, navigate } from "../router";
import { useUser } from "../session";
import { Badge, ConfirmButton, CopyId, Empty, ErrorMessage, Field, Loading, SecretOnce, ShortId, useCoalesced, useResource, useSubmission } from "../ui";
import { useNow } from "../clock";
import { EVENT_TYPES } from "./EventsPage";
import { shown } from "../shown";

function readWebhook(webhookId: string) {
  return call(hub.GET("/webhooks/{webhook_id}", { params: { path: { webhook_id: webhookId } } }));
}

async function readDeliveries(webhookId: string, cursor: string | undefined) {
  const request = hub.GET("/webhooks/{webhook_id}/deliveries", {
    params: { path: { webhook_id: webhookId }, query: { limit: 50, ...(cursor ? { cursor } : {}) } },
  });
  const deliveries = await call(request);
  return { deliveries, next: nextCursor((await request).response) };
}

const SECRET_WARNING =
  "Copy it now into the receiving service: it verifies each delivery's webhook-signature with it. The hub cannot show it again; rotate it if it is lost.";

function AdminsOnly({ title }: { title: string }) {
  return (
    <>
      <h1>{title}</h1>
      <p>Only admins manage webhooks.</p>
    </>
  );
}

export function WebhooksPage() {
  const user = useUser();
  const webhooks = useResource(() => call(hub.GET("/webhooks", { params: { query: { limit: 1000 } } })), []);
  const reload = useCoalesced(() => webhooks.reload());
  useLiveEvents((event) => {
    if (event === "reset" || event.event_type.startsWith("webhook.")) reload();
  });
  const [url, setUrl] = useState("https://");
  const [description, setDescription] = useState("");
  const [allTypes, setAllTypes] = useState(true);
  const [types, setTypes] = useState<HubEvent["event_type"][]>([]);
  const [secret, setSecret] = useState<{ id: string; secret: string }>();
  const { busy, error, issues, run } = useSubmission();
  const now = useNow();

  if (!user.isAdmin) return <AdminsOnly title="Webhooks" />;

  const create = async (event: FormEvent) => {
    event.preventDefault();
    const created = await run(async () => {
      const answer = await call(hub.POST("/webhooks", { body: { url, event_types: allTypes ? ["*"] : types, description } }));
      setSecret({ id: answer.id, secret: answer.secret });
    });
    if (created) {
      setUrl("https://");
      setDescription("");
      setTypes([]);
      setAllTypes(true);
      reload();
    }
  };

  return (
    <>
      <h1>Webhooks</h1>
      <p className="sub">Each subscription receives the events of the types it names, signed (Standard Webhooks), at least once and in order per aggregate.</p>
      {secret && (
        <SecretOnce
          title="The new subscription's signing secret"
          label="Webhook secret"
          secret={secret.secret}
          warning={SECRET_WARNING}
          onDone={() => setSecret(undefined)}
        >
          <p>
            <Link to={`/webhooks/${secret.id}`}>See its deliveries</Link>
          </p>
        </SecretOnce>
      )}
      <section aria-labelledby="new-webhook-title" className="panel">
        <h2 id="new-webhook-title">New subscription</h2>
        <form className="form" onSubmit={(event) => void create(event)} noValidate>
          <Field label="URL" hint="https:// (the hub refuses private and loopback addresses unless configured otherwise)." error={issues.url}>
            {(props) => <input {...props} type="url" required value={url} onChange={(event) => setUrl(event.target.value)} />}
          </Field>
          <Field label="Webhook description" error={issues.description}>
            {(props) => <input {...props} value={description} onChange={(event) => setDescription(event.target.value)} />}
          </Field>
          <fieldset>
            <legend>Event types</legend>
            <label className="toggle">
              <input type="checkbox" checked={allTypes} onChange={(event) => setAllTypes(event.target.checked)} /> Every event type
            </label>
            {!allTypes && (
              <div className="checkbox-grid">
                {EVENT_TYPES.map((type) => (
                  <label key={type} className="toggle">
                    <input
                      type="checkbox"
                      checked={types.includes(type)}
                      onChange={(event) =>
                        setTypes((previous) => (event.target.checked ? [...previous, type] : previous.filter((candidate) => candidate !== type)))
                      }
                    />{" "}
                    {type}
                  </label>
                ))}
              </div>
            )}
            {issues.event_types && <span className="inline-error">{issues.event_types}</span>}
          </fieldset>
          {error && <ErrorMessage error={error} />}
          <div className="actions">
            <button type="submit" className="primary" disabled={busy}>
              Create subscription
            </button>
          </div>
        </form>
      </section>
      <section aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">Subscriptions</h2>
        {webhooks.error && <ErrorMessage error={webhooks.error} onRetry={webhooks.reload} />}
        {webhooks.data === undefined ? (
          !webhooks.error && <Loading what="webhooks" />
        ) : webhooks.data.length === 0 ? (
          <Empty>No subscriptions: no event leaves the hub by webhook.</Empty>
        ) : (
          <div className="table-wrap" tabIndex={0}>
            <table>
              <caption className="visually-hidden">Webhook subscriptions</caption>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Event types</th>
                  <th scope="col">State</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {webhooks.data.map((webhook) => (
                  <tr key={webhook.id} data-webhook={webhook.url}>
                    <th scope="row">
                      <Link to={`/webhooks/${webhook.id}`} className="url">
                        {shown(webhook.url)}
                      </Link>
                      {webhook.description && <span className="sub">{shown(webhook.description)}</span>}
                    </th>
                    <td data-label="Event types">{webhook.event_types.join(", ")}</td>
                    <td data-label="State">
                      <WebhookState webhook={webhook} now={now} />
                    </td>
                    <td data-label="Created" title={dateTime(webhook.created_at)}>
                      {ago(webhook.created_at, now)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}

function WebhookState({ webhook, now }: { webhook: Webhook; now: number }) {
  if (webhook.status === "disabled") return <Badge tone="bad">disabled</Badge>;
  return (
    <>
      <Badge tone="good">active</Badge>
      {webhook.failing_since && <span className="sub">failing since {ago(webhook.failing_since, now)}</span>}
    </>
  );
}

/** How often the delivery log is read again while one of its deliveries waits for an attempt's outcome. */
const PENDING_REREAD_MS = 3000;

const DELIVERY_TONES = { pending: "info", delivered: "good", failed: "bad" } as const;

export function WebhookPage({ webhookId }: { webhookId: string }) {
  const user = useUser();
  const now = useNow();
  const webhook = useResource(() => readWebhook(webhookId), [webhookId]);
  /** Cursors of the delivery pages before the current one. */
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const deliveries = useResource(() => readDeliveries(webhookId, cursor), [webhookId, cursor]);
  const [secret, setSecret] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const reload = useCoalesced(() => {
    webhook.reload();
    deliveries.reload();
  });
  const reloadDeliveries = useCoalesced(() => deliveries.reload(), 1000);
  useLiveEvents((event: HubEvent | "reset") => {
    if (event === "reset" || event.aggregate_id === webhookId) reload();
    // An event of a type it subscribes to makes a delivery.
    else if (webhook.data && (webhook.data.event_types.includes("*") || webhook.data.event_types.includes(event.event_type))) reloadDeliveries();
  });
  // An attempt's outcome writes no event: while a delivery is pending, its row is read again every few seconds.
  const pending = deliveries.data?.deliveries.some((delivery) => delivery.status === "pending") ?? false;
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(reloadDeliveries, PENDING_REREAD_MS);
    return () => clearInterval(timer);
  }, [pending, reloadDeliveries]);

  if (!user.isAdmin) return <AdminsOnly title="Webhook" />;
  if (webhook.error && !webhook.data) return <ErrorMessage error={webhook.error} onRetry={webhook.reload} />;
  if (!webhook.data) return <Loading what="the webhook" />;
  const record = webhook.data;
  const path = { params: { path: { webhook_id: webhookId } } };

  const redeliver = async (delivery: Delivery) => {
    try {
      await call(
        hub.POST("/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver", { params: { path: { webhook_id: webhookId, delivery_id: delivery.id } } }),
      );
      setNotice(`Delivery of event ${delivery.event_type} queued again.`);
      deliveries.reload();
    } catch (failure) {
      setNotice(describeError(failure));
    }
  };

  return (
    <>
      <p className="crumbs">
        <Link to="/webhooks">Webhooks</Link> /
      </p>
      <div className="page-head">
        <h1 className="url">{shown(record.url)}</h1>
        <WebhookState webhook={record} now={now} />
      </div>
      <p className="sub">
        {record.description && `${shown(record.description)} · `}
        {record.event_types.join(", ")}
      </p>
      {secret && (
        <SecretOnce
          title="The subscription's new signing secret"
          label="Webhook secret"
          secret={secret}
          warning={`${SECRET_WARNING} The previous secret also signs deliveries for 24 hours.`}
          onDone={() => setSecret(undefined)}
        />
      )}
      <div className="actions">
        <ConfirmButton
          label="Rotate secret"
          question="Make a new signing secret? For 24 hours deliveries carry signatures with both, so the receiver can switch over."
          confirmLabel="Rotate secret"
          keepLabel="Keep the current secret"
          onConfirm={async () => {
            setSecret((await call(hub.POST("/webhooks/{webhook_id}/secret", path))).secret);
            // A rotation writes no event: read the subscription again for the old secret's end.
            webhook.reload();
          }}
        />
        <ConfirmButton
          label="Delete subscription"
          danger
          question="Delete this subscription? Nothing more is delivered to it."
          confirmLabel="Delete subscription"
          keepLabel="Keep it"
          onConfirm={async () => {
            await call(hub.DELETE("/webhooks/{webhook_id}", path));
            navigate("/webhooks");
          }}
        />
      </div>
      <dl className="settings">
        <dt>Subscription id</dt>
        <dd>
          <code>{record.id}</code> <CopyId id={record.id} what="subscription" />
        </dd>
        <dt>Created</dt>
        <dd>{dateTime(record.created_at)}</dd>
        {record.previous_secret_expires_at && (
          <>
            <dt>Previous secret signs until</dt>
            <dd>{dateTime(record.previous_secret_expires_at)}</dd>
          </>
        )}
        {record.disabled_at && (
          <>
            <dt>Disabled</dt>
            <dd>{dateTime(record.disabled_at)}</dd>
          </>
        )}
      </dl>
      <section aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Deliveries</h2>
        {notice && (
          <p role="status" className="notice">
            {notice}
          </p>
        )}
        {deliveries.error && <ErrorMessage error={deliveries.error} onRetry={deliveries.reload} />}
        {deliveries.data === undefined ? (
          !deliveries.error && <Loading what="deliveries" />
        ) : deliveries.data.deliveries.length === 0 ? (
          <Empty>No deliveries yet: one is made for each matching event from the subscription&apos;s creation on.</Empty>
        ) : (
          <div className="table-wrap" tabIndex={0}>
            <table>
              <caption className="visually-hidden">Deliveries, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="num">
                    Attempts
                  </th>
                  <th scope="col">Last answer</th>
                  <th scope="col">Next attempt</th>
                  <th scope="col">Action</th>
                </tr>
              </thead>
              <tbody>
                {deliveries.data.deliveries.map((delivery) => (
                  <tr key={delivery.id} data-delivery={delivery.id}>
                    <th scope="row">
                      {delivery.event_type}
                      <span className="sub">
                        <ShortId id={delivery.event_id} /> · {ago(delivery.created_at, now)}
                      </span>
                    </th>
                    <td data-label="Status">
                      <Badge tone={DELIVERY_TONES[delivery.status]}>{delivery.status}</Badge>
                    </td>
                    <td className="num" data-label="Attempts">
                      {delivery.attempts}
                    </td>
                    <td data-label="Last answer">{delivery.last_status_code ?? (delivery.last_error ? shown(delivery.last_error) : "—")}</td>
                    <td data-label="Next attempt" title={dateTime(delivery.next_attempt_at)}>
                      {delivery.next_attempt_at ? dateTime(delivery.next_attempt_at) : "—"}
                    </td>
                    <td className="wide">
                      <button type="button" onClick={() => void redeliver(delivery)}>
                        Redeliver
                        <span className="visually-hidden">
                          {" "}
                          {delivery.event_type} {delivery.event_id}
                        </span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <nav className="pager" aria-label="Delivery pages">
          <button type="button" disabled={cursors.length <= 1} onClick={() => setCursors((stack) => stack.slice(0, -1))}>
            Newer deliveries
          </button>
          <span>Page {cursors.length}</span>
          <button
            type="button"
            disabled={!deliveries.data?.next}
            onClick={() => deliveries.data?.next && setCursors((stack) => [...stack, deliveries.data?.next])}
          >
            Older deliveries
          </button>
        </nav>
      </section>
    </>
  );
}
