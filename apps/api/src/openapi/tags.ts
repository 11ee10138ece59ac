/**
 * The OpenAPI document's tags: every route names one (RouteSpec.tag), and each is described here,
 * in the order /docs lists them.
 */
export const API_TAGS = {
  identity: "Logging in (`POST /identity/token`, also the OAuth2 password flow /docs uses), the caller, and user accounts (admins).",
  sectors: "Sectors group automations by department; each has a name and a colour.",
  automations:
    "The automations jobs run for: parameters (which become the job context's schema), the concurrency limit, retries and timeouts, development mode, and the queue's statistics.",
  workers: "Registering an automation's one worker, rotating and revoking its api key (admins). The worker itself uses the worker protocol.",
  jobs: "Creating jobs (one or a batch, idempotently), following them, cancelling and retrying them, one by one or in bulk.",
  approvals:
    "A person decides before a job runs: automations that require approval, the approvals a caller may decide, and approving or rejecting a job (admins and the automation's approvers, never the job's creator).",
  schedules:
    "Recurring jobs: a cron expression read in a time zone makes one job of its automation per fire, whatever the number of dispatchers (admins set them up, everyone reads them).",
  maintenance:
    "Maintenance windows: times, one-off or recurring by cron, during which no job of an automation, a sector or the whole hub starts (admins set them up, everyone reads those they reach).",
  "worker protocol":
    "What a worker calls with its `X-Worker-Api-Key`: long-poll claims, heartbeats that extend a job's lease, and results. A call for a job not running under the worker's current lease is refused with 409 and changes nothing. The @hub/worker SDK and the hub-worker command speak it.",
  webhooks:
    "Push events to other systems (admins): subscriptions with a signing secret shown once, Standard Webhooks signatures, retries with back-off, a delivery log and redelivery.",
  alerts:
    "Alert rules the dispatchers evaluate (queue age and depth, failure rate, worker offline, job duration), and the alerts firing now or resolved, each with a sentence a person reads (admins set rules up, everyone reads them).",
  events: "The event log (the outbox): every state change, written in the same transaction, and published to the Redis stream `hub:events`.",
  operations: "Health, readiness, metrics and this document.",
} as const;

export type ApiTag = keyof typeof API_TAGS;
