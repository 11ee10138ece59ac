/**
 * The webhook delivery loop (CONTRACT §6.7), beside the relay's outbox loop in the same process.
 * The relay queues deliveries when it stamps events (packages/db/src/sql/events/outbox.ts); this
 * loop claims the due ones from PostgreSQL under a lease (`FOR UPDATE SKIP LOCKED`, so any number
 * of relays share them without sending one twice), sends each attempt on its own — an endpoint
 * that hangs holds one slot for at most the request timeout and never the stream, the stamp or
 * another subscription — and records the outcomes once per pass: delivered ones in one
 * statement, failed ones in one transaction (retry schedule, failure streaks, disabling).
 *
 * Order: a delivery is claimed only while no earlier delivery of the same subscription and
 * aggregate is pending, so `job.completed` never reaches an endpoint before its `job.started`,
 * even when the latter needed retries. At least once: a relay that dies mid-attempt keeps its
 * claims until the lease lapses, then another relay sends them again.
 */
import { type Executor, webhookDeliveries } from "@hub/db";
import type { Logger } from "@hub/shared";
import { systemResolver, WebhookSecretDecryptionError, type HostResolver, type WebhookSecretBox } from "@hub/shared/webhooks";
import type client from "prom-client";
import type { RelayMetrics } from "../metrics";
import { backoffMs, createOutageLog, createWakeableSleep, DependencyFailure } from "../outage-backoff";
import { defaultWebhookDeliveryConfig, type WebhookDeliveryConfig } from "./config";
import { createWebhookMetrics, type WebhookMetrics } from "./metrics";
import { webhookDisableAfterMs, webhookRetryDelayMs } from "./retry-policy";
import { createWebhookSender, type AttemptResult } from "./sender";
import { signWebhookRequest } from "./signer";

export interface WebhookDeliveryOptions {
  /** Pool for the loop's prepared statements (claims, outcomes, metrics). */
  pool: Executor;
  /** Opens the subscriptions' secrets (HUB_WEBHOOK_ENCRYPTION_KEY). */
  secrets: WebhookSecretBox;
  logger: Logger;
  /** The relay's metrics: the loop's own go into the same registry; database outages count in its failures. */
  relayMetrics: RelayMetrics & { registry: client.Registry };
  config?: Partial<WebhookDeliveryConfig>;
  /** Resolves endpoint host names (tests inject one). Default: the system resolver. */
  resolver?: HostResolver;
}

export interface WebhookDelivery {
  start(): void;
  /** Stops claiming, lets attempts in flight finish for `stopGraceMs`, aborts and gives back the rest, records every outcome. */
  stop(): Promise<void>;
  /** Look for due deliveries now (the relay just queued some). */
  wake(): void;
  /** Test-only: stop as a killed process would, recording nothing and keeping every lease. */
  crash(): Promise<void>;
  metrics: WebhookMetrics;
}

interface Attempt {
  claim: webhookDeliveries.ClaimedWebhookDelivery;
  abort: AbortController;
  done: Promise<void>;
}

type Outcome = { claim: webhookDeliveries.ClaimedWebhookDelivery; result: AttemptResult };

/** Longest pause between passes while no delivery is due, in flight or queued, in `pollMs` (a wake-up ends it). */
const QUIET_POLL_MAX_FACTOR = 4;
/** How often pending deliveries of disabled or deleted subscriptions are looked for. */
const INACTIVE_SWEEP_INTERVAL_MS = 10_000;

export function createWebhookDelivery(options: WebhookDeliveryOptions): WebhookDelivery {
  const config: WebhookDeliveryConfig = { ...defaultWebhookDeliveryConfig, ...options.config };
  const { pool, secrets, logger } = options;
  const metrics = createWebhookMetrics({ registry: options.relayMetrics.registry, readHealth: () => webhookDeliveries.measureHealth(pool) });
  const sender = createWebhookSender({
    policy: config.policy,
    resolver: options.resolver ?? systemResolver,
    timeoutMs: config.requestTimeoutMs,
    maxResponseBytes: config.maxResponseBytes,
  });
  const outages = createOutageLog(logger, options.relayMetrics);
  const inFlight = new Map<string, Attempt>();
  let outcomes: Outcome[] = [];
  /** Attempts aborted by a stop: given back unattempted. */
  let abortedClaims: webhookDeliveries.ClaimedWebhookDelivery[] = [];
  let stopping = false;
  let crashed = false;
  let wakeRequested = false;
  let loop: Promise<void> | undefined;
  const sleep = createWakeableSleep(() => stopping || wakeRequested);
  const wake = () => {
    wakeRequested = true;
    sleep.wake();
  };
  /** A finished attempt wakes the loop a moment later, so that attempts finishing together share one pass. */
  let coalescing: NodeJS.Timeout | undefined;
  const wakeSoon = () => {
    if (coalescing) return;
    coalescing = setTimeout(() => {
      coalescing = undefined;
      wake();
    }, config.outcomeCoalesceMs);
  };

  async function attempt(claim: webhookDeliveries.ClaimedWebhookDelivery, signal: AbortSignal): Promise<AttemptResult> {
    let request;
    try {
      request = signWebhookRequest(claim, secrets);
    } catch (error) {
      if (!(error instanceof WebhookSecretDecryptionError)) throw error;
      return { kind: "refused", statusCode: null, error: error.message };
    }
    const startedAt = performance.now();
    const result = await sender.send(claim.url, request, signal);
    if (result.kind !== "refused") metrics.latency.observe((performance.now() - startedAt) / 1000);
    return result;
  }

  function startAttempt(claim: webhookDeliveries.ClaimedWebhookDelivery): void {
    const abort = new AbortController();
    const done = attempt(claim, abort.signal)
      .catch((error: unknown): AttemptResult => {
        logger.error({ err: error, webhook_id: claim.webhookId, delivery_id: claim.id }, "webhook attempt crashed");
        return { kind: "network_error", statusCode: null, error: "internal error while sending" };
      })
      .then((result) => {
        inFlight.delete(claim.id);
        if (crashed) return;
        if (result.kind === "aborted") {
          abortedClaims.push(claim);
          return;
        }
        metrics.attempts.inc({ result: result.kind === "delivered" ? "2xx" : result.kind });
        outcomes.push({ claim, result });
        wakeSoon();
      });
    inFlight.set(claim.id, { claim, abort, done });
  }
  /**
   * Records the outcomes gathered since the last pass: the delivered ones in one statement, the
   * failed ones in one transaction. Outcomes leave the queue only once recorded; on a database
   * error they wait for the next pass (a lease that lapses meanwhile means one more attempt).
   */
  async function recordOutcomes(): Promise<void> {
    const batch = new Set(outcomes);
    const delivered: webhookDeliveries.DeliveredAttempt[] = [];
    const failed: webhookDeliveries.FailedAttempt[] = [];
    for (const { claim, result } of batch) {
      if (result.kind === "delivered") delivered.push({ id: claim.id, leaseToken: claim.leaseToken, statusCode: result.statusCode });
      else {
        const retryInMs = webhookRetryDelayMs(claim.scheduleStep + 1, config.timeScale);
        failed.push({ id: claim.id, leaseToken: claim.leaseToken, statusCode: result.statusCode, error: result.error, retryInMs });
      }
    }
    await database(() => webhookDeliveries.recordDelivered(pool, delivered));
    metrics.deliveries.inc({ outcome: "delivered" }, delivered.length);
    outcomes = outcomes.filter((outcome) => outcome.result.kind !== "delivered" || !batch.has(outcome));
    const recorded = await database(() => webhookDeliveries.recordFailures(pool, failed, { disableAfterMs: webhookDisableAfterMs(config.timeScale) }));
    outcomes = outcomes.filter((outcome) => !batch.has(outcome));
    metrics.deliveries.inc({ outcome: "retrying" }, recorded.retrying);
    metrics.deliveries.inc({ outcome: "failed" }, recorded.failed);
    for (const webhookId of recorded.disabledWebhookIds) logger.warn({ webhook_id: webhookId }, "webhook disabled: its deliveries failed for 24 h");
  }

  /** Runs a database step; any error is a database failure (backed off and retried). */
  async function database<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      throw new DependencyFailure("database", error);
    }
  }

  /** Claims what is due, up to the free attempt slots; resolves with how many it claimed. */
  async function claimDue(): Promise<number> {
    const free = config.maxInFlight - inFlight.size;
    if (free <= 0) return 0;
    const claims = await database(() =>
      webhookDeliveries.claimDue(pool, { limit: free, perWebhookLimit: config.maxInFlightPerWebhook, leaseMs: config.leaseMs }),
    );
    for (const claim of claims) startAttempt(claim);
    return claims.length;
  }

  let sweepDueAt = 0;
  /** Now and then: fail what a stamp queued for a subscription being disabled or deleted at that moment. */
  async function sweepInactiveSubscriptions(): Promise<void> {
    if (Date.now() < sweepDueAt) return;
    await database(() => webhookDeliveries.failPendingOfInactiveWebhooks(pool));
    sweepDueAt = Date.now() + INACTIVE_SWEEP_INTERVAL_MS;
  }

  async function run(): Promise<void> {
    let consecutiveFailures = 0;
    /** The pause after a pass: `pollMs` while deliveries come, doubling up to QUIET_POLL_MAX_FACTOR × `pollMs` while none does. */
    let pauseMs = config.pollMs;
    while (!stopping) {
      const woken = wakeRequested;
      wakeRequested = false;
      try {
        if (outcomes.length > 0) await recordOutcomes();
        await sweepInactiveSubscriptions();
        const claimed = await claimDue();
        // Stamps that queue deliveries and finished attempts wake the loop; only retries coming
        // due and leases of a dead relay's attempts lapsing are found by polling, and neither is
        // due sooner than seconds ahead: while nothing comes, poll ever more seldom.
        pauseMs = claimed > 0 || woken || inFlight.size > 0 ? config.pollMs : Math.min(pauseMs * 2, config.pollMs * QUIET_POLL_MAX_FACTOR);
        outages.recovered("database");
        consecutiveFailures = 0;
      } catch (error) {
        consecutiveFailures++;
        if (error instanceof DependencyFailure) outages.failed(error);
        else logger.error({ err: error }, "webhook delivery pass failed; retrying with back-off");
        await sleep(backoffMs(consecutiveFailures, config.maxBackoffMs));
        continue;
      }
      await sleep(pauseMs);
    }
  }

  /** Stops claiming: the pass in progress ends, no other starts. */
  async function endLoop(): Promise<void> {
    stopping = true;
    clearTimeout(coalescing);
    sleep.wake();
    await loop?.catch(() => undefined);
    loop = undefined;
  }

  async function drain(): Promise<void> {
    // Attempts in flight get a grace period; the rest are aborted and given back unattempted.
    const pending = [...inFlight.values()];
    const grace = new Promise<void>((resolve) => setTimeout(resolve, config.stopGraceMs).unref());
    await Promise.race([Promise.all(pending.map((a) => a.done)), grace]);
    for (const attemptInFlight of inFlight.values()) attemptInFlight.abort.abort();
    await Promise.all(pending.map((a) => a.done));
    for (let pass = 0; pass < 3 && outcomes.length > 0; pass++) {
      await recordOutcomes().catch((error: unknown) => logger.warn({ err: error }, "could not record webhook outcomes at stop; they will be sent again"));
    }
    const released = abortedClaims;
    abortedClaims = [];
    await webhookDeliveries.release(pool, released).catch(() => undefined);
  }

  return {
    metrics,
    wake,
    start() {
      if (loop) return;
      stopping = false;
      loop = run().catch((error: unknown) => {
        logger.fatal({ err: error }, "webhook delivery loop crashed");
        throw error;
      });
    },
    async stop() {
      await endLoop();
      await drain();
      sender.close();
    },
    async crash() {
      crashed = true;
      await endLoop();
      for (const attemptInFlight of inFlight.values()) attemptInFlight.abort.abort();
      sender.close();
    },
  };
}
