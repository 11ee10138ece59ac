/**
 * The statements of the event relay's webhook delivery loop (apps/event-relay/src/webhooks):
 * claim due deliveries under a lease, record the outcomes of attempts, give claims back, and fail
 * what a stamp queued for a subscription that was being disabled or deleted.
 *
 * The hot statements are plain SQL sent as named prepared statements on a {@link Executor},
 * like the relay's outbox statements; the failure transaction uses drizzle for its event.
 */
import { eq, sql } from "drizzle-orm";
import { webhooks, type HubEvent } from "../../schema";
import { type Executor, queryBuilder, withTransaction } from "../../executor";
import * as events from "../events/crud";
import { failPendingDeliveries, WEBHOOK_DELETED_REASON, WEBHOOK_DISABLED_REASON } from "../webhooks/crud";

/** A delivery claimed by a relay: what it needs to send one attempt and record its outcome. */
export interface ClaimedWebhookDelivery {
  id: string;
  leaseToken: string;
  /** Attempts since creation or the last redelivery (before this one): the retry schedule's step. */
  scheduleStep: number;
  webhookId: string;
  url: string;
  secretCiphertext: string;
  /** The secret a rotation replaced, while it still signs (CONTRACT §6.7: 24 h). */
  previousSecretCiphertext: string | null;
  /** The body to send (CONTRACT §6.19): the event record, or `{"text": …}` for chat incoming webhooks. */
  format: "standard" | "slack";
  event: HubEvent;
}

// Per subscription (active ones, in random order so none is always served last when slots are
// few): its due, unleased deliveries in event order, each only if no earlier delivery of the same
// aggregate is still pending (in flight or waiting for a retry), at most `$2` minus those the
// subscription already has in flight, locked SKIP LOCKED so concurrent relays claim different
// rows. The lease and a fresh token are set in the same statement.
//
// Both per-subscription reads stay small however long the backlog: the in-flight count reads
// webhook_deliveries_leased_idx (leased deliveries only), and the order check is a scalar
// subquery, one index probe per candidate. Written as NOT EXISTS, the planner turns it into an
// anti-join that reads every pending delivery of the subscription for each candidate, a cost that
// grows with the backlog.
const CLAIM_DUE = {
  name: "webhooks_claim_due_v2",
  text: `with claimed as (
  select due.id
    from (select id from webhooks where disabled_at is null and deleted_at is null order by random()) w
    cross join lateral (
      select count(*)::int as n from webhook_deliveries f
       where f.webhook_id = w.id and f.status = 'pending' and f.lease_expires_at is not null and f.lease_expires_at > now()
    ) in_flight
    cross join lateral (
      select d.id from webhook_deliveries d
       where d.webhook_id = w.id and d.status = 'pending' and d.next_attempt_at <= now()
         and (d.lease_expires_at is null or d.lease_expires_at <= now())
         and d.event_position = (
           select min(p.event_position) from webhook_deliveries p
            where p.webhook_id = d.webhook_id and p.aggregate_id = d.aggregate_id and p.status = 'pending')
       order by d.event_position
       limit greatest(0, $2::int - in_flight.n)
       for update of d skip locked
    ) due
   limit $1
)
update webhook_deliveries d
   set lease_expires_at = now() + make_interval(secs => $3::float8 / 1000), lease_token = gen_random_uuid()
  from claimed c, webhooks w, events e
 where d.id = c.id and w.id = d.webhook_id and e.id = d.event_id
returning d.id, d.lease_token as "leaseToken", d.schedule_step as "scheduleStep", w.id as "webhookId", w.url, w.format,
          w.secret_ciphertext as "secretCiphertext",
          case when w.previous_secret_expires_at > now() then w.previous_secret_ciphertext end as "previousSecretCiphertext",
          json_build_object('id', e.id, 'position', e.position, 'aggregateId', e.aggregate_id, 'eventType', e.event_type,
            'actorId', e.actor_id, 'payload', e.payload, 'createdAt', e.created_at, 'dispatchedAt', e.dispatched_at) as event`,
};

/**
 * Claims up to `limit` due deliveries for this relay, leased for `leaseMs`: at most
 * `perWebhookLimit` in flight per subscription (counted across relays, approximately under
 * concurrent claims), and per subscription and aggregate only the earliest pending one.
 */
export async function claimDue(db: Executor, options: { limit: number; perWebhookLimit: number; leaseMs: number }): Promise<ClaimedWebhookDelivery[]> {
  if (options.limit <= 0) return [];
  const { rows } = await db.query<Omit<ClaimedWebhookDelivery, "event"> & { event: Record<string, unknown> }>({
    ...CLAIM_DUE,
    values: [options.limit, options.perWebhookLimit, options.leaseMs],
  });
  return rows.map((row) => {
    const raw = row.event as unknown as HubEvent & { createdAt: string; dispatchedAt: string | null };
    const event: HubEvent = { ...raw, createdAt: new Date(raw.createdAt), dispatchedAt: raw.dispatchedAt === null ? null : new Date(raw.dispatchedAt) };
    return { ...row, event };
  });
}

/** The outcome of one delivered attempt. */
export interface DeliveredAttempt {
  id: string;
  leaseToken: string;
  statusCode: number;
}

// The statements that change deliveries by id say `d.id = any(<the ids>)` besides joining the
// items: a generic plan estimates an unnest at 100 rows and could hash-join them against a
// sequential scan of the table; the array condition gives it the primary key
// (@hub/db statement-plans.test.ts).
const RECORD_DELIVERED = {
  name: "webhooks_record_delivered",
  text: `with delivered as (
  update webhook_deliveries d
     set status = 'delivered', attempts = d.attempts + 1, schedule_step = d.schedule_step + 1, delivered_at = clock_timestamp(),
         last_status_code = a.status_code, last_error = null, next_attempt_at = null, lease_expires_at = null, lease_token = null
    from unnest($1::uuid[], $2::uuid[], $3::int[]) as a(id, lease_token, status_code)
   where d.id = any($1::uuid[]) and d.id = a.id and d.lease_token = a.lease_token
  returning d.webhook_id
)
update webhooks w set failing_since = null, consecutive_failures = 0
 where w.id in (select webhook_id from delivered) and (w.failing_since is not null or w.consecutive_failures <> 0)`,
};

/**
 * Records delivered attempts in one statement and ends their subscriptions' failure streaks. An
 * attempt whose lease was taken over meanwhile (token changed) records nothing.
 */
export async function recordDelivered(db: Executor, attempts: readonly DeliveredAttempt[]): Promise<void> {
  if (attempts.length === 0) return;
  await db.query({
    ...RECORD_DELIVERED,
    values: [attempts.map((a) => a.id), attempts.map((a) => a.leaseToken), attempts.map((a) => a.statusCode)],
  });
}

/** The outcome of one failed attempt. */
export interface FailedAttempt {
  id: string;
  leaseToken: string;
  /** The endpoint's answer, when there was one. */
  statusCode: number | null;
  error: string;
  /** Wait before the next attempt; null when that was the last one (the delivery is `failed`). */
  retryInMs: number | null;
}

/** What recording failed attempts led to (attempts whose lease was taken over meanwhile count in neither). */
export interface FailedAttemptsOutcome {
  /** Attempts recorded with another attempt scheduled. */
  retrying: number;
  /** Attempts recorded as the last one: those deliveries are `failed`. */
  failed: number;
  /** Subscriptions this call disabled (`webhook.disabled` written). */
  disabledWebhookIds: string[];
}

/**
 * Records failed attempts, all in one transaction: each delivery waits its `retryInMs` for the
 * next attempt or ends `failed`; each subscription's failure streak grows by its failures, and a
 * subscription failing (no attempt delivered) for `disableAfterMs` is disabled, with
 * `webhook.disabled` and its pending deliveries failed. Subscription rows are locked in id order,
 * so relays recording at once never deadlock.
 */
export async function recordFailures(
  executor: Executor,
  attempts: readonly FailedAttempt[],
  options: { disableAfterMs: number },
): Promise<FailedAttemptsOutcome> {
  if (attempts.length === 0) return { retrying: 0, failed: 0, disabledWebhookIds: [] };
  return withTransaction(executor, async (client) => {
    const tx = queryBuilder(client);
    // The attempts travel as one jsonb parameter (drizzle would spread a JS array into a list).
    const rows = attempts.map((a) => ({ id: a.id, lease_token: a.leaseToken, status_code: a.statusCode, error: a.error, retry_ms: a.retryInMs }));
    const recorded = await tx.execute<{ webhookId: string; status: string }>(sql`
      update webhook_deliveries d
         set attempts = d.attempts + 1, schedule_step = d.schedule_step + 1,
             last_status_code = a.status_code, last_error = a.error,
             status = case when a.retry_ms is null then 'failed' else 'pending' end,
             next_attempt_at = case when a.retry_ms is null then null else now() + make_interval(secs => a.retry_ms / 1000) end,
             lease_expires_at = null, lease_token = null
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as a(id uuid, lease_token uuid, status_code int, error text, retry_ms float8)
       where d.id = any(array(select (item ->> 'id')::uuid from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) as item))
         and d.id = a.id and d.lease_token = a.lease_token
      returning d.webhook_id as "webhookId", d.status`);
    const failuresByWebhook = new Map<string, number>();
    for (const row of recorded.rows) failuresByWebhook.set(row.webhookId, (failuresByWebhook.get(row.webhookId) ?? 0) + 1);
    const outcome: FailedAttemptsOutcome = {
      retrying: recorded.rows.filter((row) => row.status === "pending").length,
      failed: recorded.rows.filter((row) => row.status === "failed").length,
      disabledWebhookIds: [],
    };
    if (failuresByWebhook.size === 0) return outcome;
    const failures = JSON.stringify([...failuresByWebhook].map(([id, n]) => ({ id, n })));
    await tx.execute(sql`select w.id from webhooks w
      where w.id in (select f.id from jsonb_to_recordset(${failures}::jsonb) as f(id uuid, n int)) order by w.id for no key update`);
    const streaks = await tx.execute<{ id: string; url: string; eventTypes: string[]; due: boolean }>(sql`
      update webhooks w
         set consecutive_failures = w.consecutive_failures + f.n, failing_since = coalesce(w.failing_since, now())
        from jsonb_to_recordset(${failures}::jsonb) as f(id uuid, n int)
       where w.id = f.id
      returning w.id, w.url, w.event_types as "eventTypes",
                (w.disabled_at is null and w.deleted_at is null
                 and w.failing_since <= now() - make_interval(secs => ${options.disableAfterMs / 1000}::float8)) as due`);
    for (const streak of streaks.rows.filter((row) => row.due)) {
      await tx
        .update(webhooks)
        .set({ disabledAt: sql`now()` })
        .where(eq(webhooks.id, streak.id));
      await failPendingDeliveries(client, streak.id, WEBHOOK_DISABLED_REASON);
      await events.record(client, {
        eventType: "webhook.disabled",
        aggregateId: streak.id,
        actorId: null,
        payload: { url: streak.url, event_types: streak.eventTypes },
      });
      outcome.disabledWebhookIds.push(streak.id);
    }
    return outcome;
  });
}

const FAIL_PENDING_OF_INACTIVE = {
  name: "webhooks_fail_pending_of_inactive",
  text: `update webhook_deliveries d
   set status = 'failed', next_attempt_at = null, lease_expires_at = null, lease_token = null,
       last_error = case when w.deleted_at is not null then '${WEBHOOK_DELETED_REASON}' else '${WEBHOOK_DISABLED_REASON}' end
  from webhooks w
 where d.webhook_id = w.id and d.status = 'pending' and (w.disabled_at is not null or w.deleted_at is not null)`,
};

/**
 * Fails the pending deliveries of disabled or deleted subscriptions: the few a relay's stamp may
 * have queued while the subscription was being disabled or deleted (the stamp takes no lock on
 * subscriptions). Returns how many it failed.
 */
export async function failPendingOfInactiveWebhooks(db: Executor): Promise<number> {
  const result = await db.query(FAIL_PENDING_OF_INACTIVE);
  return result.rowCount ?? 0;
}

const RELEASE = {
  name: "webhooks_release",
  text: `update webhook_deliveries d set lease_expires_at = null, lease_token = null
  from unnest($1::uuid[], $2::uuid[]) as a(id, lease_token)
 where d.id = any($1::uuid[]) and d.id = a.id and d.lease_token = a.lease_token`,
};

/** Gives claimed deliveries back unattempted (a relay stopping): any relay may send them at once. */
export async function release(db: Executor, claims: ReadonlyArray<{ id: string; leaseToken: string }>): Promise<void> {
  if (claims.length === 0) return;
  await db.query({ ...RELEASE, values: [claims.map((c) => c.id), claims.map((c) => c.leaseToken)] });
}
