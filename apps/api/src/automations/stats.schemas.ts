import { z } from "zod";
import { WORKER_STATUSES } from "@hub/shared";

/** Key values `by_key` lists at most (CONTRACT §6.13). */
export const BY_KEY_MAX = 100;

/** GET /automations/{automation_id}/stats (CONTRACT §6.3, §6.13). */
export const automationStatsRecord = z
  .object({
    automation_id: z.uuid(),
    queued: z.int().describe("Queued jobs whose available_at has come (claimable as soon as a slot and a worker are there)"),
    running: z.int(),
    scheduled: z.int().describe("Queued jobs whose available_at is still ahead: delayed (run_at) or in retry back-off"),
    max_concurrent_jobs: z.int(),
    oldest_queued_at: z.iso
      .datetime()
      .nullable()
      .describe("The earliest available_at among the due queued jobs (a job scheduled for later does not age before then); null when none"),
    completed_last_hour: z.int().describe("Jobs that completed (finished_at) within the last hour"),
    failed_last_hour: z.int().describe("Jobs that failed for good (finished_at) within the last hour"),
    worker_status: z.enum(WORKER_STATUSES).nullable().describe("The registered worker's status; null when none is registered"),
    worker_last_seen_at: z.iso.datetime().nullable().describe("When the worker last called the hub; null when never, or no worker"),
    by_key: z
      .array(
        z
          .object({
            key: z.string().nullable().describe("The concurrency_key value; null for jobs whose context lacks it"),
            queued: z.int().describe("Its due queued jobs"),
            running: z.int(),
            rate_limit_remaining: z.int().nullable().describe("Starts its window still allows now under a per-key rate limit; null otherwise"),
          })
          .meta({ id: "KeyQueueDepth" }),
      )
      .describe(`Up to ${BY_KEY_MAX} concurrency_key values with the most due queued jobs (ties by value); [] without a key`),
    rate_limit_remaining: z.int().nullable().describe("Starts the automation's rate limit still allows now; null without one or when it is per key"),
    blocked: z.int().describe("Queued jobs waiting for their dependencies (waiting_reason dependencies, §6.16): never in queued or oldest_queued_at"),
    maintenance_until: z.iso
      .datetime()
      .nullable()
      .describe(
        "While maintenance windows hold the automation's jobs (in effect, or with drain beginning within timeout_seconds): when they end; null otherwise",
      ),
    awaiting_approval: z
      .int()
      .describe("Queued jobs awaiting an approval (waiting_reason awaiting_approval, §6.17): never in queued or oldest_queued_at; each held job counts once"),
  })
  .meta({ id: "AutomationStats" });
export type AutomationStatsRecord = z.infer<typeof automationStatsRecord>;
