-- [from 0003_stats_index_claim_order_index_use.sql]
-- One claim in one round trip (CONTRACT §3 "Worker protocol", §6.8): up to p_max_jobs jobs of the
-- automation, in claim order, started under a lease for p_worker_id, each with its job.started
-- event. The automation row is locked FOR NO KEY UPDATE only for this call, which serialises the
-- claims of one automation (job inserts take FOR KEY SHARE and do not wait). Each statement of a
-- VOLATILE function takes a fresh snapshot, so the running count below is read after the lock
-- was granted: it sees every claim that held the lock before, and a completion committed meanwhile
-- only makes it conservative — the limit holds whatever the number of processes. Lock order is
-- the automation row, then job rows (SKIP LOCKED: a claim never waits on a job row), as for
-- deactivation and unregistering; completions, fails, cancels and the lease sweeper never lock
-- the automation row, so none of them can deadlock with a claim.
--
-- Returns one row per started job, in claim order, or one row with null job columns: outcome
-- 'claimed' | 'none' (a slot was free but nothing claimable) | 'blocked' (inactive, development
-- mode, worker not registered, or no slot free); slots_left after this claim; stale_ids, those of
-- p_candidate_ids (ids the dispatch layer offered) that were no longer queued before this claim.
--
-- Defined here, once every column it returns exists (priority, available_at, seq: 0001; retry_of:
-- 0002). Its ORDER BY says `priority DESC NULLS LAST` because jobs_claim_idx is built that way and
-- PostgreSQL matches an ORDER BY to an index only when the NULLS order matches too (a NOT NULL
-- column does not help): `priority DESC` alone is NULLS FIRST and made every claim sort all of the
-- automation's due queued jobs (6.5 ms at 20,000 queued) instead of reading the first few index
-- entries (0.05 ms).
CREATE OR REPLACE FUNCTION "hub_claim_jobs"(
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
    s.created_at, s.started_at, s.finished_at, s.lease_expires_at, s.priority, s.available_at, s.seq, s.retry_of
  FROM (SELECT 1) AS one LEFT JOIN started s ON true
  ORDER BY s.priority DESC NULLS LAST, s.available_at, s.seq;
END;
$$;
