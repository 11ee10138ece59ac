/**
 * The `hub-webhooks` part: the hub as in the `hub` part, plus one `*` subscription to a
 * local sink, so every event the run writes is also delivered over HTTP. Its throughput is
 * compared with the plain hub's (target: within 10 %), and its audit checks that every event the
 * subscription should get reached the sink.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { AuditCheck } from "../lib/audit";
import { JsonClient } from "../lib/http";
import { startWebhookSink, type WebhookSink } from "../lib/webhook-sink";

/** The hub's environment for webhook delivery to a sink on 127.0.0.1 (development flags on). */
export function webhookHubEnv(): Record<string, string> {
  return {
    HUB_WEBHOOK_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    HUB_WEBHOOKS_ALLOW_INSECURE: "true",
    HUB_WEBHOOKS_ALLOW_PRIVATE: "true",
  };
}

export interface BenchSubscription {
  sink: WebhookSink;
  /** Waits until no delivery is pending (or `timeoutMs`), then audits what the sink received. */
  audit(databaseUrl: string, timeoutMs?: number): Promise<AuditCheck[]>;
  close(): Promise<void>;
}

/** Starts the sink and subscribes it to every event type, as an admin. */
export async function subscribeSink(apiUrl: string, admin: { email: string; password: string }): Promise<BenchSubscription> {
  const sink = await startWebhookSink();
  const http = new JsonClient(apiUrl, 1);
  try {
    const { access_token: token } = await http.send<{ access_token: string }>("POST", "/identity/token", { body: admin, expected: 200 });
    await http.send("POST", "/webhooks", { token, body: { url: sink.url, event_types: ["*"], description: "bench sink" }, expected: 201 });
  } finally {
    await http.close();
  }
  return {
    sink,
    async audit(databaseUrl, timeoutMs = 120_000) {
      const client = new pg.Client({ connectionString: databaseUrl, application_name: "bench-audit" });
      await client.connect();
      try {
        const startedAt = Date.now();
        const counts = async () =>
          (
            await client.query<{ expected: number; pending: number; failed: number }>(
              `select (select count(*) from webhook_deliveries)::int as expected,
                      (select count(*) from webhook_deliveries where status = 'pending')::int as pending,
                      (select count(*) from webhook_deliveries where status = 'failed')::int as failed`,
            )
          ).rows[0]!;
        let seen = await counts();
        while ((seen.pending > 0 || seen.expected === 0) && Date.now() - startedAt < timeoutMs) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          seen = await counts();
        }
        const { rows } = await client.query<{ undispatched: number; events: number }>(
          `select (select count(*) from events where dispatched_at is null)::int as undispatched,
                  (select count(*) from events where created_at >= (select min(created_at) from webhooks))::int as events`,
        );
        const { undispatched, events } = rows[0]!;
        return [
          {
            name: "webhooks: every event written since the subscription was queued for it",
            ok: undispatched === 0 && seen.expected === events,
            detail: `${seen.expected} deliveries for ${events} events (${undispatched} undispatched)`,
          },
          {
            name: "webhooks: every delivery reached the sink (none pending or failed)",
            ok: seen.pending === 0 && seen.failed === 0 && sink.received() === seen.expected,
            detail: `${sink.received()} distinct events received in ${sink.requests()} requests; ${seen.pending} pending, ${seen.failed} failed; drained ${((Date.now() - startedAt) / 1000).toFixed(1)} s after the phases`,
          },
        ];
      } finally {
        await client.end();
      }
    },
    close: () => sink.close(),
  };
}
