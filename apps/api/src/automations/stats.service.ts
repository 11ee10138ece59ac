/** Queue depth of one automation (CONTRACT §6.3): what an operator reads before asking "why is it waiting?". */
import { automations, type Executor, type Reach } from "@hub/db";
import { NotFoundError } from "../http/http-errors";
import { BY_KEY_MAX, type AutomationStatsRecord } from "./stats.schemas";

export async function getAutomationStats(db: Executor, reach: Reach, automationId: string): Promise<AutomationStatsRecord> {
  const stats = await automations.readStats(db, reach, automationId);
  if (!stats) throw new NotFoundError("Automation not found");
  const [byKey, rateLimitRemaining] = await Promise.all([
    automations.readKeyDepths(db, automationId, BY_KEY_MAX),
    automations.readRateLimitRemaining(db, automationId),
  ]);
  return {
    automation_id: stats.automationId,
    queued: stats.queued,
    running: stats.running,
    scheduled: stats.scheduled,
    max_concurrent_jobs: stats.maxConcurrentJobs,
    oldest_queued_at: stats.oldestQueuedAt?.toISOString() ?? null,
    completed_last_hour: stats.completedLastHour,
    failed_last_hour: stats.failedLastHour,
    worker_status: stats.workerStatus,
    worker_last_seen_at: stats.workerLastSeenAt?.toISOString() ?? null,
    by_key: byKey.map((depth) => ({ key: depth.key, queued: depth.queued, running: depth.running, rate_limit_remaining: depth.rateLimitRemaining })),
    rate_limit_remaining: rateLimitRemaining,
    blocked: stats.blocked,
    maintenance_until: stats.maintenanceUntil?.toISOString() ?? null,
    awaiting_approval: stats.awaitingApproval,
  };
}
