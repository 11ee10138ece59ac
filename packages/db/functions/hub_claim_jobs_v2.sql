-- [from 0013_claim_returns_whole_job.sql]
-- The claim of CONTRACT §3 "Worker protocol" and §6.8: the hub's concurrency limit is enforced here, and this is
-- the function's source of truth (packages/db/schema.sql shows the schema a fresh migrate produces).
--
-- Why a second version: hub_claim_jobs (0003) does not return run_at, schedule_id and fire_time, so the claim
-- statement joined its rows back to jobs. A set-returning function is estimated at 1,000 rows, and as a generic plan
-- (a prepared statement after five runs) that join became a hash join over a sequential scan of the whole jobs
-- table whenever it held roughly 10,000 to 300,000 rows: 29 ms of a 32.7 ms claim at 80,000 rows (issue 31).
-- This version returns every column itself and declares ROWS 1 (a claim starts a handful of jobs), so the
-- statement reads no table but through the function. hub_claim_jobs is dropped by the next breaking migration.
--
-- What it does: up to p_max_jobs jobs of the automation, in claim order, started under a lease for p_worker_id,
-- each with its job.started event. The automation row is locked FOR NO KEY UPDATE only for this call, which
-- serialises the claims of one automation (job inserts take FOR KEY SHARE and do not wait). Each statement of a
-- VOLATILE function takes a fresh snapshot, so the running count below is read after the lock was granted: it sees
-- every claim that held the lock before, and a completion committed meanwhile only makes it conservative — the
-- limit holds whatever the number of processes. Lock order is the automation row, then job rows (SKIP LOCKED: a
-- claim never waits on a job row), as for deactivation and unregistering; completions, fails, cancels and the lease
-- sweeper never lock the automation row, so none of them can deadlock with a claim.
--
-- Returns one row per started job, in claim order, or one row with null job columns: outcome 'claimed' | 'none'
-- (a slot was free but nothing claimable) | 'blocked' (inactive, development mode, worker not registered, or no slot
-- free); slots_left after this claim; stale_ids, those of p_candidate_ids (ids the dispatch layer offered) that were
-- no longer queued before this claim. Its ORDER BY says `priority DESC NULLS LAST` because jobs_claim_idx is built
-- that way and PostgreSQL matches an ORDER BY to an index only when the NULLS order matches too.
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
