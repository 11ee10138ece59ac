ALTER TABLE "automations" ADD COLUMN "max_attempts" integer;--> statement-breakpoint
ALTER TABLE "automations" ADD COLUMN "retry_backoff_seconds" integer DEFAULT 10 NOT NULL;--> statement-breakpoint
ALTER TABLE "automations" ADD COLUMN "timeout_seconds" integer;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "retry_of" uuid;--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_retry_of_jobs_id_fk" FOREIGN KEY ("retry_of") REFERENCES "public"."jobs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automations" ADD CONSTRAINT "automations_max_attempts_check" CHECK ("automations"."max_attempts" between 1 and 100);--> statement-breakpoint
ALTER TABLE "automations" ADD CONSTRAINT "automations_retry_backoff_seconds_check" CHECK ("automations"."retry_backoff_seconds" between 0 and 3600);--> statement-breakpoint
ALTER TABLE "automations" ADD CONSTRAINT "automations_timeout_seconds_check" CHECK ("automations"."timeout_seconds" between 1 and 86400);--> statement-breakpoint
-- hub_claim_jobs (0001) unchanged except that it also returns the new column retry_of, so a
-- claimed job's record names the job it retries. A function's result type cannot be altered in
-- place: drop and create again, in this migration's transaction (no claim sees it missing).
DROP FUNCTION "hub_claim_jobs"(uuid, uuid, integer, integer, uuid[]);--> statement-breakpoint
CREATE FUNCTION "hub_claim_jobs"(
  p_automation_id uuid, p_worker_id uuid, p_max_jobs integer, p_lease_seconds integer, p_candidate_ids uuid[]
) RETURNS TABLE (
  outcome text, slots_left integer, stale_ids uuid[],
  id uuid, automation_id uuid, status text, context jsonb, result jsonb, error text, attempts integer,
  created_by uuid, worker_id uuid, created_at timestamptz, started_at timestamptz, finished_at timestamptz,
  lease_expires_at timestamptz, priority integer, available_at timestamptz, seq bigint, retry_of uuid
) LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
  v_limit integer;
  v_slots integer := 0;
  v_open boolean := false;
  v_stale uuid[] := '{}';
BEGIN
  SELECT a.max_concurrent_jobs INTO v_limit FROM automations a
  WHERE a.id = p_automation_id AND a.is_active AND NOT a.is_development
  FOR NO KEY UPDATE;
  IF FOUND AND EXISTS (SELECT 1 FROM workers w WHERE w.id = p_worker_id AND w.unregistered_at IS NULL) THEN
    SELECT v_limit - count(*) INTO v_slots FROM jobs j WHERE j.automation_id = p_automation_id AND j.status = 'running';
    v_open := v_slots > 0;
  END IF;
  IF v_open AND cardinality(p_candidate_ids) > 0 THEN
    SELECT coalesce(array_agg(c.id), '{}') INTO v_stale FROM unnest(p_candidate_ids) AS c(id)
    WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = c.id AND j.status = 'queued' AND j.automation_id = p_automation_id);
  END IF;
  RETURN QUERY
  WITH picked AS (
    SELECT j.id FROM jobs j
    WHERE v_open AND j.automation_id = p_automation_id AND j.status = 'queued' AND j.available_at <= now()
    ORDER BY j.priority DESC, j.available_at, j.seq
    LIMIT least(greatest(v_slots, 0), p_max_jobs)
    FOR UPDATE SKIP LOCKED
  ), started AS (
    UPDATE jobs j SET status = 'running', attempts = j.attempts + 1, worker_id = p_worker_id, started_at = now(),
      lease_expires_at = now() + make_interval(secs => p_lease_seconds)
    FROM picked WHERE j.id = picked.id
    RETURNING j.*
  ), started_event AS (
    INSERT INTO events (aggregate_id, event_type, actor_id, payload)
    SELECT s.id, 'job.started', NULL, jsonb_build_object('automation_id', s.automation_id, 'worker_id', s.worker_id, 'attempt', s.attempts)
    FROM started s ORDER BY s.priority DESC, s.available_at, s.seq
  )
  SELECT CASE WHEN NOT v_open THEN 'blocked' WHEN s.id IS NULL THEN 'none' ELSE 'claimed' END,
    greatest(v_slots, 0) - (SELECT count(*) FROM started)::integer, v_stale,
    s.id, s.automation_id, s.status, s.context, s.result, s.error, s.attempts, s.created_by, s.worker_id,
    s.created_at, s.started_at, s.finished_at, s.lease_expires_at, s.priority, s.available_at, s.seq, s.retry_of
  FROM (SELECT 1) AS one LEFT JOIN started s ON true
  ORDER BY s.priority DESC, s.available_at, s.seq;
END;
$$;
