/**
 * The `slack` webhook format (CONTRACT §6.19): `{"text": …}`, which Slack, Mattermost and Microsoft
 * Teams incoming webhooks take. An alert's text is its message; every other event is said in one
 * line from its type and payload (no names the payload does not carry, never a secret: payloads
 * hold none).
 */

export const WEBHOOK_FORMATS = ["standard", "slack"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

interface EventForText {
  event_type: string;
  aggregate_id: string;
  payload: Record<string, unknown>;
}

const short = (id: unknown) => (typeof id === "string" ? id.slice(0, 8) : "?");
const text = (value: unknown, max = 200) => {
  const s = typeof value === "string" ? value : JSON.stringify(value);
  const line = (s ?? "").replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** One line saying what happened. */
export function eventSentence(event: EventForText): string {
  const p = event.payload;
  const job = `Job ${short(event.aggregate_id)}`;
  const automation = `automation ${short(p.automation_id ?? event.aggregate_id)}`;
  switch (event.event_type) {
    case "alert.firing":
    case "alert.resolved":
      return text(p.message, 3000);
    case "job.failed":
      return `${job} of ${automation} failed after ${String(p.attempts)} attempt${p.attempts === 1 ? "" : "s"}${p.error === undefined ? "" : `: ${text(p.error)}`}`;
    case "job.completed":
      return `${job} of ${automation} completed`;
    case "job.created":
      return `${job} of ${automation} was created`;
    case "job.started":
      return `${job} of ${automation} started (attempt ${String(p.attempt)})`;
    case "job.cancelled":
      return `${job} of ${automation} was cancelled (${text(p.reason)})`;
    case "job.requeued":
      return `${job} of ${automation} was requeued (${text(p.reason)}, attempt ${String(p.attempts)})`;
    case "worker.status_changed":
      return `The worker of ${automation} went from ${text(p.from)} to ${text(p.to)}`;
    case "automation.deactivated":
      return `Automation ${short(event.aggregate_id)} was deactivated`;
    case "schedule.skipped":
      return `Schedule ${short(event.aggregate_id)} skipped its fire at ${text(p.fire_time)} (${text(p.reason)})`;
    case "webhook.disabled":
      return `Webhook ${short(event.aggregate_id)} was disabled: its deliveries failed for 24 h`;
    default: {
      const name = typeof p.name === "string" ? ` "${text(p.name, 100)}"` : "";
      return `Automation Hub: ${event.event_type} (${short(event.aggregate_id)}${name})`;
    }
  }
}

/** The body of a `slack` delivery. */
export function slackWebhookBody(event: EventForText): string {
  return JSON.stringify({ text: eventSentence(event) });
}
