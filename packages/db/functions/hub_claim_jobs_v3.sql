-- The claim with the columns of before CONTRACT §6.16 (no dependency or approval columns), for builds still running
-- during a rolling upgrade from before hub_claim_jobs_v4: the same rule, whose one definition is v4's
-- (packages/db/functions/hub_claim_jobs_v4.sql). Dropped by a numbered migration once no supported build calls it.
CREATE OR REPLACE FUNCTION "hub_claim_jobs_v3"(
  p_automation_id uuid, p_worker_id uuid, p_max_jobs integer, p_lease_seconds integer, p_candidate_ids uuid[]
) RETURNS TABLE (
  outcome text, slots_left integer, stale_ids uuid[], retry_after_ms integer,
  id uuid, automation_id uuid, status text, context jsonb, result jsonb, error text, attempts integer,
  created_by uuid, worker_id uuid, created_at timestamptz, started_at timestamptz, finished_at timestamptz,
  lease_expires_at timestamptz, priority integer, available_at timestamptz, seq bigint, retry_of uuid,
  run_at timestamptz, schedule_id uuid, fire_time timestamptz
) ROWS 1 LANGUAGE sql VOLATILE AS $$
  SELECT c.outcome, c.slots_left, c.stale_ids, c.retry_after_ms,
    c.id, c.automation_id, c.status, c.context, c.result, c.error, c.attempts, c.created_by, c.worker_id,
    c.created_at, c.started_at, c.finished_at, c.lease_expires_at, c.priority, c.available_at, c.seq, c.retry_of,
    c.run_at, c.schedule_id, c.fire_time
  FROM hub_claim_jobs_v4(p_automation_id, p_worker_id, p_max_jobs, p_lease_seconds, p_candidate_ids) c
$$;
