-- The second version of the claim, kept for builds that still call it (none of this build's code does): the claim
-- without limits per key, rate limits or fair sharing. hub_claim_jobs_v3 is the claim (its comment explains the
-- lock, the snapshot of each statement, the outcomes and why it returns every column with ROWS 1, all of which hold
-- here too). A numbered migration drops it, and this file goes, when no supported build calls it.
CREATE OR REPLACE FUNCTION "hub_claim_jobs_v2"(
  p_automation_id uuid, p_worker_id uuid, p_max_jobs integer, p_lease_seconds integer, p_candidate_ids uuid[]
) RETURNS TABLE (
  outcome text, slots_left integer, stale_ids uuid[],
  id uuid, automation_id uuid, status text, context jsonb, result jsonb, error text, attempts integer,
  created_by uuid, worker_id uuid, created_at timestamptz, started_at timestamptz, finished_at timestamptz,
  lease_expires_at timestamptz, priority integer, available_at timestamptz, seq bigint, retry_of uuid,
  run_at timestamptz, schedule_id uuid, fire_time timestamptz
) ROWS 1 LANGUAGE plpgsql VOLATILE AS $$
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
    ORDER BY j.priority DESC NULLS LAST, j.available_at, j.seq
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
    FROM started s ORDER BY s.priority DESC NULLS LAST, s.available_at, s.seq
  )
  SELECT CASE WHEN NOT v_open THEN 'blocked' WHEN s.id IS NULL THEN 'none' ELSE 'claimed' END,
    greatest(v_slots, 0) - (SELECT count(*) FROM started)::integer, v_stale,
    s.id, s.automation_id, s.status, s.context, s.result, s.error, s.attempts, s.created_by, s.worker_id,
    s.created_at, s.started_at, s.finished_at, s.lease_expires_at, s.priority, s.available_at, s.seq, s.retry_of,
    s.run_at, s.schedule_id, s.fire_time
  FROM (SELECT 1) AS one LEFT JOIN started s ON true
  ORDER BY s.priority DESC NULLS LAST, s.available_at, s.seq;
END;
$$;
