-- The schema a fresh migrate produces (pg_dump --schema-only, session settings left out).
-- Generated: do not edit. Tables, indexes and triggers come from the migrations in drizzle/, each
-- function from its file in functions/; after adding a migration or editing a function, run
--   pnpm --filter @hub/db db:schema
-- (src/schema-sql.test.ts fails while this file and a fresh migrate differ).
--
-- PostgreSQL database dump
--

--
-- Name: drizzle; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA drizzle;

--
-- Name: hub_claim_jobs(uuid, uuid, integer, integer, uuid[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_claim_jobs(p_automation_id uuid, p_worker_id uuid, p_max_jobs integer, p_lease_seconds integer, p_candidate_ids uuid[]) RETURNS TABLE(outcome text, slots_left integer, stale_ids uuid[], id uuid, automation_id uuid, status text, context jsonb, result jsonb, error text, attempts integer, created_by uuid, worker_id uuid, created_at timestamp with time zone, started_at timestamp with time zone, finished_at timestamp with time zone, lease_expires_at timestamp with time zone, priority integer, available_at timestamp with time zone, seq bigint, retry_of uuid)
    LANGUAGE plpgsql
    AS $$
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

--
-- Name: hub_claim_jobs_v2(uuid, uuid, integer, integer, uuid[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_claim_jobs_v2(p_automation_id uuid, p_worker_id uuid, p_max_jobs integer, p_lease_seconds integer, p_candidate_ids uuid[]) RETURNS TABLE(outcome text, slots_left integer, stale_ids uuid[], id uuid, automation_id uuid, status text, context jsonb, result jsonb, error text, attempts integer, created_by uuid, worker_id uuid, created_at timestamp with time zone, started_at timestamp with time zone, finished_at timestamp with time zone, lease_expires_at timestamp with time zone, priority integer, available_at timestamp with time zone, seq bigint, retry_of uuid, run_at timestamp with time zone, schedule_id uuid, fire_time timestamp with time zone)
    LANGUAGE plpgsql ROWS 1
    AS $$
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

--
-- Name: hub_claim_jobs_v3(uuid, uuid, integer, integer, uuid[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_claim_jobs_v3(p_automation_id uuid, p_worker_id uuid, p_max_jobs integer, p_lease_seconds integer, p_candidate_ids uuid[]) RETURNS TABLE(outcome text, slots_left integer, stale_ids uuid[], retry_after_ms integer, id uuid, automation_id uuid, status text, context jsonb, result jsonb, error text, attempts integer, created_by uuid, worker_id uuid, created_at timestamp with time zone, started_at timestamp with time zone, finished_at timestamp with time zone, lease_expires_at timestamp with time zone, priority integer, available_at timestamp with time zone, seq bigint, retry_of uuid, run_at timestamp with time zone, schedule_id uuid, fire_time timestamp with time zone)
    LANGUAGE sql ROWS 1
    AS $$
  SELECT c.outcome, c.slots_left, c.stale_ids, c.retry_after_ms,
    c.id, c.automation_id, c.status, c.context, c.result, c.error, c.attempts, c.created_by, c.worker_id,
    c.created_at, c.started_at, c.finished_at, c.lease_expires_at, c.priority, c.available_at, c.seq, c.retry_of,
    c.run_at, c.schedule_id, c.fire_time
  FROM hub_claim_jobs_v4(p_automation_id, p_worker_id, p_max_jobs, p_lease_seconds, p_candidate_ids) c
$$;

--
-- Name: hub_claim_jobs_v4(uuid, uuid, integer, integer, uuid[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_claim_jobs_v4(p_automation_id uuid, p_worker_id uuid, p_max_jobs integer, p_lease_seconds integer, p_candidate_ids uuid[]) RETURNS TABLE(outcome text, slots_left integer, stale_ids uuid[], retry_after_ms integer, id uuid, automation_id uuid, status text, context jsonb, result jsonb, error text, attempts integer, created_by uuid, worker_id uuid, created_at timestamp with time zone, started_at timestamp with time zone, finished_at timestamp with time zone, lease_expires_at timestamp with time zone, priority integer, available_at timestamp with time zone, seq bigint, retry_of uuid, run_at timestamp with time zone, schedule_id uuid, fire_time timestamp with time zone, depends_on uuid[], on_dependency_failure text, has_dependents boolean, approval_status text, approval_expires_at timestamp with time zone, approval_decided_by uuid, approval_decided_at timestamp with time zone, approval_comment text)
    LANGUAGE plpgsql ROWS 1
    AS $$
#variable_conflict use_column
DECLARE
  v_limit integer;
  v_key text;
  v_per_key integer;
  v_rate_count integer;
  v_rate_period integer;
  v_rate_per_key boolean;
  v_slots integer := 0;
  v_open boolean := false;
  v_stale uuid[] := '{}';
  v_running jsonb := '{}';
  v_state automation_start_states%ROWTYPE;
  v_picked uuid[] := '{}';
  v_passed uuid[] := '{}';
  v_pick_id uuid;
  v_pick_key jsonb;
  v_opens timestamptz;
  v_window timestamptz;
  v_key_starts timestamptz[];
  v_top integer;
  v_best_priority integer;
  v_head_id uuid;
  v_head_priority integer;
  v_state_row record;
  v_never_started uuid[];
  v_never_started_keys jsonb[];
  v_never_started_priorities integer[];
  v_never_started_next integer := 1;
  v_key_head integer;
  v_pending_ids uuid[];
  v_pending_keys jsonb[];
  v_pending_priorities integer[];
  v_pending_available_ats timestamptz[];
  v_pending_seqs bigint[];
  v_head_available_at timestamptz;
  v_head_seq bigint;
  v_at integer;
  v_walked_all boolean;
  v_walk_after bigint;
  v_walk_key jsonb;
  v_lap_key jsonb;
  v_picked_keys jsonb[] := '{}';
  v_pick_counts bigint[] := '{}';
  v_sector_id uuid;
  v_timeout integer;
  v_maintenance_until timestamptz;
BEGIN
  SELECT a.max_concurrent_jobs, a.concurrency_key, a.max_concurrent_per_key, a.rate_limit_count, a.rate_limit_period_seconds,
    a.rate_limit_per_key, a.sector_id, a.timeout_seconds
  INTO v_limit, v_key, v_per_key, v_rate_count, v_rate_period, v_rate_per_key, v_sector_id, v_timeout
  FROM automations a
  WHERE a.id = p_automation_id AND a.is_active AND NOT a.is_development
  FOR NO KEY UPDATE;
  IF FOUND AND EXISTS (SELECT 1 FROM workers w WHERE w.id = p_worker_id AND w.unregistered_at IS NULL) THEN
    SELECT v_limit - count(*) INTO v_slots FROM jobs j WHERE j.automation_id = p_automation_id AND j.status = 'running';
    v_open := v_slots > 0;
  END IF;
  -- Maintenance windows (§6.18): one probe of maintenance_occurrences_end_idx; nothing starts while one holds.
  IF v_open THEN
    PERFORM 1 FROM maintenance_occurrences o
    WHERE o.scope_id IN (p_automation_id, v_sector_id, '00000000-0000-0000-0000-000000000000'::uuid) AND o.ends_at > now()
      AND (o.starts_at <= now() OR (o.drain AND v_timeout IS NOT NULL AND o.starts_at < now() + make_interval(secs => v_timeout)))
    LIMIT 1;
    IF FOUND THEN
      v_maintenance_until := hub_maintenance_until(p_automation_id, v_sector_id, v_timeout);
      IF v_maintenance_until IS NOT NULL THEN
        v_open := false;
        v_window := v_maintenance_until;
      END IF;
    END IF;
  END IF;
  IF v_open AND cardinality(p_candidate_ids) > 0 THEN
    -- The array behind an initplan, on purpose: given as a value, its length set the custom plan's estimate, which always
    -- came out cheaper than the generic one, so this check was planned anew on every claim (2,511 plans in 2,501 claims),
    -- 0.05 ms a claim. Behind the initplan both plans see the same estimate and the generic one is kept; its plan is the
    -- same (a look-up of each id by primary key). The rest of the function keeps its custom plans (docs/decisions.md).
    SELECT coalesce(array_agg(c.id), '{}') INTO v_stale FROM unnest((SELECT p_candidate_ids)) AS c(id)
    WHERE (SELECT j.status = 'queued' AND j.automation_id = p_automation_id FROM jobs j WHERE j.id = c.id) IS NOT TRUE;
  END IF;

  IF v_key IS NULL AND v_rate_count IS NULL THEN
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
      CASE WHEN v_window IS NOT NULL THEN 0 ELSE greatest(v_slots, 0) - (SELECT count(*) FROM started)::integer END, v_stale,
      CASE WHEN v_window IS NULL THEN NULL
        ELSE greatest(ceil(extract(epoch FROM v_window - clock_timestamp()) * 1000), 0)::integer END,
      s.id, s.automation_id, s.status, s.context, s.result, s.error, s.attempts, s.created_by, s.worker_id,
      s.created_at, s.started_at, s.finished_at, s.lease_expires_at, s.priority, s.available_at, s.seq, s.retry_of,
      s.run_at, s.schedule_id, s.fire_time, s.depends_on, s.on_dependency_failure, s.has_dependents,
      s.approval_status, s.approval_expires_at, s.approval_decided_by, s.approval_decided_at, s.approval_comment
    FROM (SELECT 1) AS one LEFT JOIN started s ON true
    ORDER BY s.priority DESC NULLS LAST, s.available_at, s.seq;
    RETURN;
  END IF;

  IF v_open THEN
    IF v_key IS NOT NULL THEN
      SELECT coalesce(jsonb_object_agg(r.k, r.n), '{}') INTO v_running FROM (
        SELECT coalesce(j.context -> v_key, 'null'::jsonb)::text AS k, count(*) AS n FROM jobs j
        WHERE j.automation_id = p_automation_id AND j.status = 'running' GROUP BY 1
      ) r;
    END IF;
    INSERT INTO automation_start_states (automation_id) VALUES (p_automation_id) ON CONFLICT DO NOTHING;
    SELECT * INTO v_state FROM automation_start_states s WHERE s.automation_id = p_automation_id;

    WHILE cardinality(v_picked) < least(v_slots, p_max_jobs) LOOP
      IF v_rate_count IS NOT NULL AND NOT v_rate_per_key THEN
        v_opens := hub_start_window_opens_at(v_state.starts, v_state.head, v_rate_count, v_rate_period);
        IF v_opens > now() THEN
          v_window := v_opens;
          EXIT;
        END IF;
      END IF;

      v_pick_id := NULL;
      IF v_key IS NULL THEN
        SELECT j.id INTO v_pick_id FROM jobs j
        WHERE j.automation_id = p_automation_id AND j.status = 'queued' AND j.available_at <= now() AND j.id <> ALL (v_passed) AND j.id <> ALL (v_picked)
        ORDER BY j.priority DESC NULLS LAST, j.available_at, j.seq
        LIMIT 1;
      ELSE
        -- The highest priority due: an upper bound of what an allowed value can offer, read once per call (picks only
        -- take jobs away) and lowered below to what a whole walk found allowed.
        IF v_top IS NULL THEN
          SELECT j.priority INTO v_top FROM jobs j
          WHERE j.automation_id = p_automation_id AND j.status = 'queued' AND j.available_at <= now()
          ORDER BY j.priority DESC NULLS LAST, j.available_at, j.seq
          LIMIT 1;
          EXIT WHEN NOT FOUND;
        END IF;
        -- Values that never started come first, in the claim order of their first due job: read once per call (the
        -- p_max_jobs best), since a pick takes one of them out and changes none of the others. Each such value's row
        -- holds a lower bound of its first queued job's place in claim order (its head; NULL: unknown, before any
        -- job), so the values are read in head order and each one's first due job probed: a probed job is final
        -- once the next value's head comes after it (nothing after can offer an earlier job). With exact heads (the
        -- usual case) that is one probe per value taken, whatever the number of values waiting.
        IF v_never_started IS NULL THEN
          v_never_started := '{}';
          v_never_started_keys := '{}';
          v_never_started_priorities := '{}';
          v_pending_ids := '{}';
          v_pending_keys := '{}';
          v_pending_priorities := '{}';
          v_pending_available_ats := '{}';
          v_pending_seqs := '{}';
          FOR v_state_row IN
            SELECT ks.key_value, ks.starts, ks.head, ks.head_priority, ks.head_available_at, ks.head_seq FROM job_key_states ks
            WHERE ks.automation_id = p_automation_id AND ks.waiting AND ks.last_start IS NULL
            ORDER BY ks.head_priority DESC NULLS FIRST, ks.head_available_at NULLS FIRST, ks.head_seq NULLS FIRST
          LOOP
            IF v_state_row.head_seq IS NOT NULL THEN
              WHILE cardinality(v_pending_ids) > 0 AND cardinality(v_never_started) < p_max_jobs
                AND hub_claim_order_precedes(v_pending_priorities[1], v_pending_available_ats[1], v_pending_seqs[1],
                  v_state_row.head_priority, v_state_row.head_available_at, v_state_row.head_seq) LOOP
                v_never_started := v_never_started || v_pending_ids[1];
                v_never_started_keys := v_never_started_keys || v_pending_keys[1];
                v_never_started_priorities := v_never_started_priorities || v_pending_priorities[1];
                v_pending_ids := v_pending_ids[2:];
                v_pending_keys := v_pending_keys[2:];
                v_pending_priorities := v_pending_priorities[2:];
                v_pending_available_ats := v_pending_available_ats[2:];
                v_pending_seqs := v_pending_seqs[2:];
              END LOOP;
              EXIT WHEN cardinality(v_never_started) >= p_max_jobs;
            END IF;
            CONTINUE WHEN coalesce((v_running ->> (v_state_row.key_value::text))::integer, 0) >= v_per_key;
            CONTINUE WHEN v_rate_per_key AND hub_start_window_opens_at(v_state_row.starts, v_state_row.head, v_rate_count, v_rate_period) > now();
            SELECT j.id, j.priority, j.available_at, j.seq INTO v_head_id, v_head_priority, v_head_available_at, v_head_seq FROM jobs j
            WHERE j.automation_id = p_automation_id AND j.status = 'queued' AND j.key_value IS NOT NULL AND j.key_value = v_state_row.key_value
              AND j.available_at <= now()
            ORDER BY j.priority DESC NULLS LAST, j.available_at, j.seq
            LIMIT 1;
            CONTINUE WHEN NOT FOUND;
            -- Into the pending list, kept in claim order and to the p_max_jobs best still wanted.
            v_at := 1;
            WHILE v_at <= cardinality(v_pending_ids) AND hub_claim_order_precedes(v_pending_priorities[v_at], v_pending_available_ats[v_at],
                v_pending_seqs[v_at], v_head_priority, v_head_available_at, v_head_seq) LOOP
              v_at := v_at + 1;
            END LOOP;
            CONTINUE WHEN v_at > p_max_jobs - cardinality(v_never_started);
            v_pending_ids := (v_pending_ids[:v_at - 1] || v_head_id || v_pending_ids[v_at:])[:p_max_jobs - cardinality(v_never_started)];
            v_pending_keys := (v_pending_keys[:v_at - 1] || v_state_row.key_value || v_pending_keys[v_at:])[:p_max_jobs - cardinality(v_never_started)];
            v_pending_priorities := (v_pending_priorities[:v_at - 1] || v_head_priority || v_pending_priorities[v_at:])[:p_max_jobs - cardinality(v_never_started)];
            v_pending_available_ats := (v_pending_available_ats[:v_at - 1] || v_head_available_at || v_pending_available_ats[v_at:])[:p_max_jobs - cardinality(v_never_started)];
            v_pending_seqs := (v_pending_seqs[:v_at - 1] || v_head_seq || v_pending_seqs[v_at:])[:p_max_jobs - cardinality(v_never_started)];
          END LOOP;
          v_never_started := (v_never_started || v_pending_ids)[:p_max_jobs];
          v_never_started_keys := (v_never_started_keys || v_pending_keys)[:p_max_jobs];
          v_never_started_priorities := (v_never_started_priorities || v_pending_priorities)[:p_max_jobs];
          v_never_started_next := 1;
        END IF;
        IF v_never_started_next <= cardinality(v_never_started) THEN
          v_pick_id := v_never_started[v_never_started_next];
          v_pick_key := v_never_started_keys[v_never_started_next];
          v_best_priority := v_never_started_priorities[v_never_started_next];
        END IF;
        -- Then the values that started, oldest last start first, until one offers the highest priority due. Without a
        -- rate limit the last starts of this call's picks are written after the loop, so the walk passes over the
        -- values picked in this call and they come after it (below), in the order of their last pick.
        IF v_pick_id IS NULL OR v_best_priority < v_top THEN
          -- One statement per value read: the next allowed value by last start (keyset on last_start, unique per
          -- automation) with its first due job. Values at their limit or outside their window are passed over inside
          -- it, and the walk usually stops at the first value it reads. (A plan for the whole list sorted every
          -- waiting value on each pick; a value's row and its probe as two statements cost one more round of
          -- executor start-up per value, the keyed claim's largest cost after its statements' own work.)
          v_walked_all := true;
          v_walk_after := NULL;
          LOOP
            SELECT ks.key_value, ks.last_start, h.id, h.priority
            INTO v_walk_key, v_walk_after, v_head_id, v_head_priority
            FROM job_key_states ks
            LEFT JOIN LATERAL (
              SELECT j.id, j.priority FROM jobs j
              WHERE j.automation_id = p_automation_id AND j.status = 'queued' AND j.key_value IS NOT NULL AND j.key_value = ks.key_value
                AND j.available_at <= now() AND j.id <> ALL (v_passed) AND j.id <> ALL (v_picked)
              ORDER BY j.priority DESC NULLS LAST, j.available_at, j.seq
              LIMIT 1
            ) h ON true
            WHERE ks.automation_id = p_automation_id AND ks.waiting AND ks.last_start > coalesce(v_walk_after, -1)
              AND (v_rate_count IS NOT NULL OR ks.key_value <> ALL (v_picked_keys))
              AND coalesce((v_running ->> (ks.key_value::text))::integer, 0) < v_per_key
              AND (NOT v_rate_per_key OR coalesce(hub_start_window_opens_at(ks.starts, ks.head, v_rate_count, v_rate_period) <= now(), true))
            ORDER BY ks.last_start
            LIMIT 1;
            EXIT WHEN NOT FOUND;
            IF v_head_id IS NULL THEN
              -- Nothing due: with nothing queued and nothing running the value goes idle (see job_key_states).
              -- SKIP LOCKED: an insert of this value holds its row FOR SHARE until it commits; it is not idle then.
              IF coalesce((v_running ->> (v_walk_key::text))::integer, 0) = 0 THEN
                PERFORM 1 FROM job_key_states ks WHERE ks.automation_id = p_automation_id AND ks.key_value = v_walk_key
                FOR UPDATE SKIP LOCKED;
                IF FOUND AND NOT EXISTS (
                  SELECT 1 FROM jobs j WHERE j.automation_id = p_automation_id AND j.status = 'queued' AND j.key_value IS NOT NULL
                    AND j.key_value = v_walk_key
                ) THEN
                  UPDATE job_key_states ks SET waiting = false WHERE ks.automation_id = p_automation_id AND ks.key_value = v_walk_key;
                END IF;
              END IF;
              CONTINUE;
            END IF;
            IF v_pick_id IS NULL OR v_head_priority > v_best_priority THEN
              v_pick_id := v_head_id;
              v_pick_key := v_walk_key;
              v_best_priority := v_head_priority;
            END IF;
            IF v_best_priority >= v_top THEN
              v_walked_all := false;
              EXIT;
            END IF;
          END LOOP;
          IF v_walked_all AND v_rate_count IS NULL THEN
            FOR v_lap_key IN
              SELECT p.k FROM unnest(v_picked_keys) WITH ORDINALITY AS p(k, n) GROUP BY p.k ORDER BY max(p.n)
            LOOP
              CONTINUE WHEN coalesce((v_running ->> (v_lap_key::text))::integer, 0) >= v_per_key;
              SELECT j.id, j.priority INTO v_head_id, v_head_priority FROM jobs j
              WHERE j.automation_id = p_automation_id AND j.status = 'queued' AND j.key_value IS NOT NULL AND j.key_value = v_lap_key
                AND j.available_at <= now() AND j.id <> ALL (v_passed) AND j.id <> ALL (v_picked)
              ORDER BY j.priority DESC NULLS LAST, j.available_at, j.seq
              LIMIT 1;
              CONTINUE WHEN v_head_id IS NULL;
              IF v_pick_id IS NULL OR v_head_priority > v_best_priority THEN
                v_pick_id := v_head_id;
                v_pick_key := v_lap_key;
                v_best_priority := v_head_priority;
              END IF;
              IF v_best_priority >= v_top THEN
                v_walked_all := false;
                EXIT;
              END IF;
            END LOOP;
          END IF;
          -- Every allowed value was read: what the best of them offers bounds every later pick of this call.
          IF v_walked_all AND v_pick_id IS NOT NULL THEN
            v_top := v_best_priority;
          END IF;
        END IF;
      END IF;
      EXIT WHEN v_pick_id IS NULL;
      -- A never-started value's job is taken out of the list whether it starts or is found locked.
      IF v_never_started_next <= cardinality(v_never_started) AND v_never_started[v_never_started_next] = v_pick_id THEN
        v_never_started_next := v_never_started_next + 1;
      END IF;

      PERFORM 1 FROM jobs j WHERE j.id = v_pick_id AND (j.status = 'queued') IS TRUE FOR UPDATE SKIP LOCKED;
      IF NOT FOUND THEN
        v_passed := v_passed || v_pick_id;
        CONTINUE;
      END IF;

      -- Locked and picked; it is started with the others after the loop (the probes above pass over v_picked).
      v_state.start_count := v_state.start_count + 1;
      v_picked := v_picked || v_pick_id;

      IF v_rate_count IS NOT NULL THEN
        SELECT r.p_starts, r.p_head INTO v_state.starts, v_state.head FROM hub_start_ring_push(v_state.starts, v_state.head, v_rate_count) r;
      END IF;
      IF v_key IS NOT NULL THEN
        v_running := jsonb_set(v_running, ARRAY[v_pick_key::text], to_jsonb(coalesce((v_running ->> (v_pick_key::text))::integer, 0) + 1));
        v_picked_keys := v_picked_keys || v_pick_key;
        v_pick_counts := v_pick_counts || v_state.start_count;
        IF v_rate_count IS NULL THEN
          NULL; -- written after the loop, one statement for the call
        ELSE
          SELECT ks.starts, ks.head INTO v_key_starts, v_key_head FROM job_key_states ks
          WHERE ks.automation_id = p_automation_id AND ks.key_value = v_pick_key;
          IF NOT FOUND THEN
            v_key_starts := '{}';
            v_key_head := 1;
          END IF;
          SELECT r.p_starts, r.p_head INTO v_key_starts, v_key_head FROM hub_start_ring_push(v_key_starts, v_key_head, v_rate_count) r;
          INSERT INTO job_key_states AS ks (automation_id, key_value, last_start, starts, head)
          VALUES (p_automation_id, v_pick_key, v_state.start_count, v_key_starts, v_key_head)
          ON CONFLICT (automation_id, key_value) DO UPDATE SET last_start = excluded.last_start, starts = excluded.starts, head = excluded.head;
        END IF;
      END IF;
    END LOOP;

    -- Each value's last start of this call (without a rate limit; with one, written at each pick).
    IF v_rate_count IS NULL AND cardinality(v_picked_keys) > 0 THEN
      INSERT INTO job_key_states AS ks (automation_id, key_value, last_start)
      SELECT DISTINCT ON (p.k) p_automation_id, p.k, p.c FROM unnest(v_picked_keys, v_pick_counts) AS p(k, c) ORDER BY p.k, p.c DESC
      ON CONFLICT (automation_id, key_value) DO UPDATE SET last_start = excluded.last_start;
    END IF;

    -- The picked jobs start in one statement, their job.started events in pick order.
    WITH started AS (
      UPDATE jobs j SET status = 'running', attempts = j.attempts + 1, worker_id = p_worker_id, started_at = now(),
        lease_expires_at = now() + make_interval(secs => p_lease_seconds)
      FROM unnest(v_picked) WITH ORDINALITY AS p(id, n)
      WHERE j.id = p.id
      RETURNING j.id, j.automation_id, j.worker_id, j.attempts, p.n
    )
    INSERT INTO events (aggregate_id, event_type, actor_id, payload)
    SELECT s.id, 'job.started', NULL, jsonb_build_object('automation_id', s.automation_id, 'worker_id', s.worker_id, 'attempt', s.attempts)
    FROM started s ORDER BY s.n;

    UPDATE automation_start_states s SET start_count = v_state.start_count, starts = v_state.starts, head = v_state.head
    WHERE s.automation_id = p_automation_id;
  END IF;

  RETURN QUERY
  SELECT CASE WHEN NOT v_open OR (s.id IS NULL AND v_window IS NOT NULL) THEN 'blocked' WHEN s.id IS NULL THEN 'none' ELSE 'claimed' END,
    CASE WHEN v_window IS NOT NULL THEN 0 ELSE greatest(v_slots, 0) - cardinality(v_picked) END, v_stale,
    CASE WHEN v_window IS NULL THEN NULL
      ELSE greatest(ceil(extract(epoch FROM v_window - clock_timestamp()) * 1000), 0)::integer END,
    s.id, s.automation_id, s.status, s.context, s.result, s.error, s.attempts, s.created_by, s.worker_id,
    s.created_at, s.started_at, s.finished_at, s.lease_expires_at, s.priority, s.available_at, s.seq, s.retry_of,
    s.run_at, s.schedule_id, s.fire_time, s.depends_on, s.on_dependency_failure, s.has_dependents,
    s.approval_status, s.approval_expires_at, s.approval_decided_by, s.approval_decided_at, s.approval_comment
  FROM (SELECT 1) AS one
  LEFT JOIN (unnest(v_picked) WITH ORDINALITY AS p(id, n) JOIN jobs s ON s.id = p.id) ON true
  ORDER BY p.n;
END;
$$;

--
-- Name: hub_claim_order_precedes(integer, timestamp with time zone, bigint, integer, timestamp with time zone, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_claim_order_precedes(p1 integer, a1 timestamp with time zone, s1 bigint, p2 integer, a2 timestamp with time zone, s2 bigint) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT p1 > p2 OR (p1 = p2 AND (a1, s1) < (a2, s2)) $$;

--
-- Name: hub_complete_and_claim_v1(uuid, uuid, uuid, integer, jsonb, integer, integer, uuid[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_complete_and_claim_v1(p_job_id uuid, p_automation_id uuid, p_worker_id uuid, p_attempt integer, p_result jsonb, p_max_jobs integer, p_lease_seconds integer, p_candidate_ids uuid[]) RETURNS TABLE(row_kind text, owner_automation_id uuid, outcome text, slots_left integer, stale_ids uuid[], retry_after_ms integer, id uuid, automation_id uuid, status text, context jsonb, result jsonb, error text, attempts integer, created_by uuid, worker_id uuid, created_at timestamp with time zone, started_at timestamp with time zone, finished_at timestamp with time zone, lease_expires_at timestamp with time zone, priority integer, available_at timestamp with time zone, seq bigint, retry_of uuid, run_at timestamp with time zone, schedule_id uuid, fire_time timestamp with time zone, progress jsonb, log_seq bigint, log_bytes bigint, log_truncated boolean)
    LANGUAGE sql ROWS 2
    AS $$
  SELECT c.row_kind, c.owner_automation_id, c.outcome, c.slots_left, c.stale_ids, c.retry_after_ms,
    c.id, c.automation_id, c.status, c.context, c.result, c.error, c.attempts, c.created_by, c.worker_id,
    c.created_at, c.started_at, c.finished_at, c.lease_expires_at, c.priority, c.available_at, c.seq, c.retry_of,
    c.run_at, c.schedule_id, c.fire_time, c.progress, c.log_seq, c.log_bytes, c.log_truncated
  FROM hub_complete_and_claim_v2(p_job_id, p_automation_id, p_worker_id, p_attempt, p_result, p_max_jobs,
    p_lease_seconds, p_candidate_ids) c
$$;

--
-- Name: hub_complete_and_claim_v2(uuid, uuid, uuid, integer, jsonb, integer, integer, uuid[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_complete_and_claim_v2(p_job_id uuid, p_automation_id uuid, p_worker_id uuid, p_attempt integer, p_result jsonb, p_max_jobs integer, p_lease_seconds integer, p_candidate_ids uuid[]) RETURNS TABLE(row_kind text, owner_automation_id uuid, outcome text, slots_left integer, stale_ids uuid[], retry_after_ms integer, id uuid, automation_id uuid, status text, context jsonb, result jsonb, error text, attempts integer, created_by uuid, worker_id uuid, created_at timestamp with time zone, started_at timestamp with time zone, finished_at timestamp with time zone, lease_expires_at timestamp with time zone, priority integer, available_at timestamp with time zone, seq bigint, retry_of uuid, run_at timestamp with time zone, schedule_id uuid, fire_time timestamp with time zone, progress jsonb, log_seq bigint, log_bytes bigint, log_truncated boolean, depends_on uuid[], on_dependency_failure text, has_dependents boolean, approval_status text, approval_expires_at timestamp with time zone, approval_decided_by uuid, approval_decided_at timestamp with time zone, approval_comment text)
    LANGUAGE plpgsql ROWS 2
    AS $$
#variable_conflict use_column
DECLARE
  v_done jobs%ROWTYPE;
BEGIN
  PERFORM 1 FROM automations a WHERE a.id = p_automation_id FOR NO KEY UPDATE;

  UPDATE jobs j SET status = 'completed', result = p_result, finished_at = now(), lease_expires_at = NULL
  WHERE j.id = p_job_id AND (j.automation_id = p_automation_id) IS TRUE
    AND ((j.status = 'running') IS TRUE AND j.worker_id = p_worker_id AND (j.lease_expires_at > now()) IS TRUE
         AND (p_attempt IS NULL OR j.attempts = p_attempt))
  RETURNING j.* INTO v_done;

  IF NOT FOUND THEN
    RETURN QUERY SELECT 'refused'::text, (SELECT j.automation_id FROM jobs j WHERE j.id = p_job_id),
      NULL::text, NULL::integer, NULL::uuid[], NULL::integer,
      NULL::uuid, NULL::uuid, NULL::text, NULL::jsonb, NULL::jsonb, NULL::text, NULL::integer,
      NULL::uuid, NULL::uuid, NULL::timestamptz, NULL::timestamptz, NULL::timestamptz,
      NULL::timestamptz, NULL::integer, NULL::timestamptz, NULL::bigint, NULL::uuid,
      NULL::timestamptz, NULL::uuid, NULL::timestamptz,
      NULL::jsonb, NULL::bigint, NULL::bigint, NULL::boolean,
      NULL::uuid[], NULL::text, NULL::boolean, NULL::text, NULL::timestamptz, NULL::uuid, NULL::timestamptz, NULL::text;
    RETURN;
  END IF;

  INSERT INTO events (aggregate_id, event_type, actor_id, payload)
  VALUES (v_done.id, 'job.completed', NULL,
    jsonb_build_object('automation_id', v_done.automation_id, 'worker_id', v_done.worker_id, 'result', v_done.result));

  RETURN QUERY SELECT 'completed'::text, v_done.automation_id,
    NULL::text, NULL::integer, NULL::uuid[], NULL::integer,
    v_done.id, v_done.automation_id, v_done.status, v_done.context, v_done.result, v_done.error, v_done.attempts,
    v_done.created_by, v_done.worker_id, v_done.created_at::timestamptz, v_done.started_at::timestamptz,
    v_done.finished_at::timestamptz, v_done.lease_expires_at::timestamptz, v_done.priority,
    v_done.available_at::timestamptz, v_done.seq, v_done.retry_of, v_done.run_at::timestamptz, v_done.schedule_id,
    v_done.fire_time::timestamptz, v_done.progress, v_done.log_seq, v_done.log_bytes, v_done.log_truncated,
    v_done.depends_on, v_done.on_dependency_failure, v_done.has_dependents, v_done.approval_status,
    v_done.approval_expires_at::timestamptz, v_done.approval_decided_by, v_done.approval_decided_at::timestamptz,
    v_done.approval_comment;

  RETURN QUERY SELECT 'claim'::text, p_automation_id,
    c.outcome, c.slots_left, c.stale_ids, c.retry_after_ms,
    c.id, c.automation_id, c.status, c.context, c.result, c.error, c.attempts, c.created_by, c.worker_id,
    c.created_at, c.started_at, c.finished_at, c.lease_expires_at, c.priority, c.available_at, c.seq, c.retry_of,
    c.run_at, c.schedule_id, c.fire_time, NULL::jsonb, NULL::bigint, NULL::bigint, NULL::boolean,
    c.depends_on, c.on_dependency_failure, c.has_dependents, c.approval_status, c.approval_expires_at,
    c.approval_decided_by, c.approval_decided_at, c.approval_comment
  FROM hub_claim_jobs_v4(p_automation_id, p_worker_id, p_max_jobs, p_lease_seconds, p_candidate_ids) c;
END;
$$;

--
-- Name: hub_finish_dependency_v1(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_finish_dependency_v1() RETURNS trigger
    LANGUAGE plpgsql
    SET plan_cache_mode TO 'force_generic_plan'
    AS $$
DECLARE
  v_completed uuid[] := coalesce(string_to_array(nullif(current_setting('hub.completed_dependencies', true), ''), ',')::uuid[], '{}');
  v_failed uuid[] := coalesce(string_to_array(nullif(current_setting('hub.failed_dependencies', true), ''), ',')::uuid[], '{}');
  -- The jobs whose dependents this wave changes, and those of them that ended `failed` or `cancelled`.
  v_frontier uuid[];
  v_failing uuid[];
  v_actor uuid := nullif(current_setting('hub.actor_id', true), '')::uuid;
BEGIN
  -- No call comes while a wave runs: the note function keeps the trigger from firing for the jobs a wave cancels.
  IF NEW.id = ANY (v_completed) OR NEW.id = ANY (v_failed) THEN
    -- The first job this statement noted: the wave takes every job noted.
    PERFORM set_config('hub.completed_dependencies', '', true), set_config('hub.failed_dependencies', '', true);
  ELSE
    -- A job the note function did not note (past its 1,000), or noted by no note function (see Upgrading): its own wave.
    v_completed := CASE WHEN NEW.status = 'completed' THEN ARRAY[NEW.id] ELSE '{}' END;
    v_failed := CASE WHEN NEW.status = 'completed' THEN '{}' ELSE ARRAY[NEW.id] END;
  END IF;
  PERFORM set_config('hub.finishing_dependencies', 'on', true);
  v_frontier := v_completed || v_failed;
  v_failing := v_failed;
  -- A failure cascades: lock every held job it can reach, and every held dependent of the completed jobs, all at once
  -- and in id order, before the first wave. Wave by wave, each in id order, two cascades meeting from both sides (one
  -- reaching x then y, the other y then x) would each hold what the other waits for. Completions alone change one
  -- wave, whose own id order is enough.
  IF cardinality(v_failing) > 0 THEN
    PERFORM 1 FROM jobs j
    WHERE j.id IN (
      WITH RECURSIVE reach (id, cascades) AS (
        SELECT d.id, d.depends_on && v_failing AND coalesce(d.on_dependency_failure, 'cancel') = 'cancel' AND d.has_dependents
        FROM jobs d WHERE d.depends_on && v_frontier AND d.depends_on IS NOT NULL AND (d.status = 'held') IS TRUE
        UNION
        SELECT d.id, coalesce(d.on_dependency_failure, 'cancel') = 'cancel' AND d.has_dependents
        FROM reach r JOIN jobs d ON d.depends_on && ARRAY[r.id] AND d.depends_on IS NOT NULL AND (d.status = 'held') IS TRUE
        WHERE r.cascades
      )
      SELECT id FROM reach)
    ORDER BY j.id
    FOR UPDATE OF j;
  END IF;
  WHILE cardinality(v_frontier) > 0 LOOP
    WITH hit AS (
      SELECT j.id,
        (SELECT count(*) FROM unnest(j.depends_on) AS d(id) WHERE d.id = ANY (v_frontier))::int AS finished,
        (SELECT d.id FROM unnest(j.depends_on) WITH ORDINALITY AS d(id, k) WHERE d.id = ANY (v_failing) ORDER BY d.k LIMIT 1) AS failed_id,
        j.depends_on && v_failing AND coalesce(j.on_dependency_failure, 'cancel') = 'cancel' AS cancels
      FROM jobs j
      -- The dependents come from jobs_depends_on_idx alone, and the UPDATE below finds them by primary key: both status
      -- tests are written `(…) IS TRUE`, which no index serves. Written plainly, the cached generic plans walked
      -- jobs_status_created_idx's `held` entries instead (a held row is rare when autovacuum analyses, but every held
      -- row and held version since the last vacuum keeps an entry there): thousands of heap rows per wave in the flows
      -- bench (statement-plans.test.ts checks the plans).
      WHERE j.depends_on && v_frontier AND j.depends_on IS NOT NULL AND (j.status = 'held') IS TRUE
      ORDER BY j.id
      FOR UPDATE OF j
    ), changed AS (
      UPDATE jobs j SET
        pending_dependencies = j.pending_dependencies - hit.finished,
        status = CASE
          WHEN hit.cancels THEN 'cancelled'
          WHEN j.pending_dependencies - hit.finished <= 0 AND j.approval_status IS DISTINCT FROM 'pending' THEN 'queued'
          ELSE 'held' END,
        approval_status = CASE WHEN hit.cancels AND j.approval_status = 'pending' THEN 'withdrawn' ELSE j.approval_status END,
        finished_at = CASE WHEN hit.cancels THEN now() ELSE j.finished_at END,
        available_at = CASE
          WHEN NOT hit.cancels AND j.pending_dependencies - hit.finished <= 0 AND j.approval_status IS DISTINCT FROM 'pending'
          THEN greatest(j.available_at, now()) ELSE j.available_at END
      FROM hit
      WHERE j.id = hit.id AND (j.status = 'held') IS TRUE
      RETURNING j.id, j.automation_id, j.status, j.has_dependents, hit.failed_id, j.key_value, j.priority, j.available_at, j.seq
    ), key_waits AS (
      -- A released job's key value waits again (a claim marks a value idle while only held jobs of it remain), as the
      -- key trigger (hub_job_key_value.sql) marks it for an inserted job: one row per value, its first job in claim order.
      INSERT INTO job_key_states AS ks (automation_id, key_value, waiting, head_priority, head_available_at, head_seq)
      SELECT DISTINCT ON (c.automation_id, c.key_value) c.automation_id, c.key_value, true, c.priority, c.available_at, c.seq
      FROM changed c WHERE c.status = 'queued' AND c.key_value IS NOT NULL
      ORDER BY c.automation_id, c.key_value, c.priority DESC, c.available_at, c.seq
      ON CONFLICT (automation_id, key_value) DO UPDATE SET
        waiting = true,
        head_priority = CASE WHEN NOT ks.waiting OR hub_claim_order_precedes(excluded.head_priority, excluded.head_available_at, excluded.head_seq,
          ks.head_priority, ks.head_available_at, ks.head_seq) THEN excluded.head_priority ELSE ks.head_priority END,
        head_available_at = CASE WHEN NOT ks.waiting OR hub_claim_order_precedes(excluded.head_priority, excluded.head_available_at, excluded.head_seq,
          ks.head_priority, ks.head_available_at, ks.head_seq) THEN excluded.head_available_at ELSE ks.head_available_at END,
        head_seq = CASE WHEN NOT ks.waiting OR hub_claim_order_precedes(excluded.head_priority, excluded.head_available_at, excluded.head_seq,
          ks.head_priority, ks.head_available_at, ks.head_seq) THEN excluded.head_seq ELSE ks.head_seq END
    ), cancelled_event AS (
      INSERT INTO events (aggregate_id, event_type, actor_id, payload)
      SELECT c.id, 'job.cancelled', v_actor,
        jsonb_build_object('automation_id', c.automation_id, 'reason', 'dependency_failed', 'dependency_id', c.failed_id)
      FROM changed c WHERE c.status = 'cancelled'
    )
    SELECT coalesce(array_agg(c.id) FILTER (WHERE c.status = 'cancelled' AND c.has_dependents), '{}')
    INTO v_frontier FROM changed c;
    v_failing := v_frontier;
  END LOOP;
  PERFORM set_config('hub.finishing_dependencies', 'off', true);
  RETURN NULL;
END $$;

--
-- Name: hub_forget_job_context_values(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_forget_job_context_values() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  DELETE FROM job_context_values v
  USING old_jobs j CROSS JOIN LATERAL jsonb_each(j.context) AS pair
  WHERE jsonb_typeof(pair.value) = 'string'
    AND v.pair_hash = hub_job_context_pair_hash(pair.key, pair.value) AND v.created_at = j.created_at AND v.job_id = j.id;
  RETURN NULL;
END $$;

--
-- Name: hub_job_context_pair_hash(text, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_job_context_pair_hash(name text, value jsonb) RETURNS bigint
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT hashtextextended(jsonb_build_object(name, value)::text, 0) $$;

--
-- Name: hub_job_key_value(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_job_key_value() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF NEW.key_value = '{"hub": "key_value not set"}'::jsonb THEN
    SELECT hub_job_key_value_of(NEW.context, a.concurrency_key) INTO NEW.key_value FROM automations a WHERE a.id = NEW.automation_id;
    IF NEW.key_value IS NULL THEN
      RETURN NEW;
    END IF;
  END IF;
  -- Its value waits from now on. FOR SHARE keeps a claim from marking the value idle before this insert commits; a
  -- value not waiting yet is (re)marked, its head this job; a head this job precedes moves to it.
  PERFORM 1 FROM job_key_states ks WHERE ks.automation_id = NEW.automation_id AND ks.key_value = NEW.key_value AND ks.waiting
    AND (ks.last_start IS NOT NULL OR ks.head_seq IS NULL
      OR NOT hub_claim_order_precedes(NEW.priority, NEW.available_at, NEW.seq, ks.head_priority, ks.head_available_at, ks.head_seq))
  FOR SHARE;
  IF NOT FOUND THEN
    INSERT INTO job_key_states AS ks (automation_id, key_value, waiting, head_priority, head_available_at, head_seq)
    VALUES (NEW.automation_id, NEW.key_value, true, NEW.priority, NEW.available_at, NEW.seq)
    ON CONFLICT (automation_id, key_value) DO UPDATE SET
      waiting = true,
      head_priority = CASE WHEN NOT ks.waiting OR hub_claim_order_precedes(excluded.head_priority, excluded.head_available_at, excluded.head_seq,
        ks.head_priority, ks.head_available_at, ks.head_seq) THEN excluded.head_priority ELSE ks.head_priority END,
      head_available_at = CASE WHEN NOT ks.waiting OR hub_claim_order_precedes(excluded.head_priority, excluded.head_available_at, excluded.head_seq,
        ks.head_priority, ks.head_available_at, ks.head_seq) THEN excluded.head_available_at ELSE ks.head_available_at END,
      head_seq = CASE WHEN NOT ks.waiting OR hub_claim_order_precedes(excluded.head_priority, excluded.head_available_at, excluded.head_seq,
        ks.head_priority, ks.head_available_at, ks.head_seq) THEN excluded.head_seq ELSE ks.head_seq END;
  END IF;
  RETURN NEW;
END;
$$;

--
-- Name: hub_job_key_value_of(jsonb, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_job_key_value_of(context jsonb, concurrency_key text) RETURNS jsonb
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT CASE WHEN concurrency_key IS NULL THEN NULL ELSE coalesce(context -> concurrency_key, 'null'::jsonb) END $$;

--
-- Name: hub_maintenance_until(uuid, uuid, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_maintenance_until(p_automation_id uuid, p_sector_id uuid, p_timeout_seconds integer) RETURNS timestamp with time zone
    LANGUAGE plpgsql STABLE
    AS $$
DECLARE
  v_lead interval := CASE WHEN p_timeout_seconds IS NULL THEN interval '0' ELSE make_interval(secs => p_timeout_seconds) END;
  v_until timestamptz;
  v_next timestamptz;
BEGIN
  SELECT max(o.ends_at) INTO v_until FROM maintenance_occurrences o
  WHERE o.scope_id IN (p_automation_id, p_sector_id, '00000000-0000-0000-0000-000000000000'::uuid) AND o.ends_at > now()
    AND (o.starts_at <= now() OR (o.drain AND o.starts_at < now() + v_lead));
  IF v_until IS NULL THEN
    RETURN NULL;
  END IF;
  LOOP
    SELECT max(o.ends_at) INTO v_next FROM maintenance_occurrences o
    WHERE o.scope_id IN (p_automation_id, p_sector_id, '00000000-0000-0000-0000-000000000000'::uuid) AND o.ends_at > v_until
      AND (o.starts_at <= v_until OR (o.drain AND o.starts_at < v_until + v_lead));
    EXIT WHEN v_next IS NULL;
    v_until := v_next;
  END LOOP;
  RETURN v_until;
END;
$$;

--
-- Name: hub_note_finished_dependency_v1(uuid, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_note_finished_dependency_v1(p_id uuid, p_status text) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
DECLARE
  v_completed text := coalesce(current_setting('hub.completed_dependencies', true), '');
  v_failed text := coalesce(current_setting('hub.failed_dependencies', true), '');
BEGIN
  IF current_setting('hub.finishing_dependencies', true) = 'on' THEN
    RETURN false;
  END IF;
  -- An id is 36 characters and a comma.
  IF octet_length(v_completed) + octet_length(v_failed) >= 37 * 1000 THEN
    RETURN true;
  END IF;
  IF p_status = 'completed' THEN
    PERFORM set_config('hub.completed_dependencies', CASE WHEN v_completed = '' THEN '' ELSE v_completed || ',' END || p_id::text, true);
  ELSE
    PERFORM set_config('hub.failed_dependencies', CASE WHEN v_failed = '' THEN '' ELSE v_failed || ',' END || p_id::text, true);
  END IF;
  RETURN v_completed = '' AND v_failed = '';
END $$;

--
-- Name: hub_notify_credentials_changed(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_notify_credentials_changed() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  PERFORM pg_notify('hub_credentials_changed', TG_TABLE_NAME);
  RETURN NULL;
END;
$$;

--
-- Name: hub_record_job_context_values(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_record_job_context_values() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  INSERT INTO job_context_values (pair_hash, created_at, job_id, automation_id)
  SELECT hub_job_context_pair_hash(pair.key, pair.value), j.created_at, j.id, j.automation_id
  FROM new_jobs j CROSS JOIN LATERAL jsonb_each(j.context) AS pair
  WHERE jsonb_typeof(pair.value) = 'string';
  RETURN NULL;
END $$;

--
-- Name: hub_rewrite_job_context_values(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_rewrite_job_context_values() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  DELETE FROM job_context_values v
  USING jsonb_each(OLD.context) AS pair
  WHERE jsonb_typeof(pair.value) = 'string'
    AND v.pair_hash = hub_job_context_pair_hash(pair.key, pair.value) AND v.created_at = OLD.created_at AND v.job_id = OLD.id;
  INSERT INTO job_context_values (pair_hash, created_at, job_id, automation_id)
  SELECT hub_job_context_pair_hash(pair.key, pair.value), NEW.created_at, NEW.id, NEW.automation_id
  FROM jsonb_each(NEW.context) AS pair
  WHERE jsonb_typeof(pair.value) = 'string';
  RETURN NULL;
END $$;

--
-- Name: hub_start_ring_normalized(timestamp with time zone[], integer, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_start_ring_normalized(p_starts timestamp with time zone[], p_head integer, p_count integer) RETURNS timestamp with time zone[]
    LANGUAGE sql IMMUTABLE
    AS $$
  SELECT array_fill(NULL::timestamptz, ARRAY[greatest(p_count - count(*), 0)::integer])
    || coalesce((array_agg(r.t ORDER BY r.n))[greatest(count(*) - p_count, 0) + 1:], '{}')
  FROM (
    SELECT s.t, CASE WHEN s.n >= p_head THEN s.n - p_head ELSE s.n + cardinality(p_starts) END AS n
    FROM unnest(p_starts) WITH ORDINALITY AS s(t, n)
  ) r
  WHERE r.t IS NOT NULL
$$;

--
-- Name: hub_start_ring_push(timestamp with time zone[], integer, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_start_ring_push(INOUT p_starts timestamp with time zone[], INOUT p_head integer, p_count integer) RETURNS record
    LANGUAGE plpgsql STABLE
    AS $$
BEGIN
  IF cardinality(p_starts) <> p_count OR p_head NOT BETWEEN 1 AND p_count THEN
    p_starts := hub_start_ring_normalized(p_starts, p_head, p_count);
    p_head := 1;
  END IF;
  -- greatest() ignores NULL: an empty slot before head means no newer start.
  p_starts[p_head] := greatest(now(), p_starts[CASE WHEN p_head = 1 THEN p_count ELSE p_head - 1 END]);
  p_head := p_head % p_count + 1;
END;
$$;

--
-- Name: hub_start_window_opens_at(timestamp with time zone[], integer, integer, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hub_start_window_opens_at(p_starts timestamp with time zone[], p_head integer, p_count integer, p_period_seconds integer) RETURNS timestamp with time zone
    LANGUAGE sql IMMUTABLE
    AS $$
  SELECT CASE WHEN cardinality(p_starts) = p_count THEN p_starts[p_head]
    ELSE (hub_start_ring_normalized(p_starts, p_head, p_count))[1] END
    + make_interval(secs => p_period_seconds)
$$;

--
-- Name: __drizzle_migrations; Type: TABLE; Schema: drizzle; Owner: -
--

CREATE TABLE drizzle.__drizzle_migrations (
    id integer NOT NULL,
    hash text NOT NULL,
    created_at bigint
);

--
-- Name: __drizzle_migrations_id_seq; Type: SEQUENCE; Schema: drizzle; Owner: -
--

CREATE SEQUENCE drizzle.__drizzle_migrations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: __drizzle_migrations_id_seq; Type: SEQUENCE OWNED BY; Schema: drizzle; Owner: -
--

ALTER SEQUENCE drizzle.__drizzle_migrations_id_seq OWNED BY drizzle.__drizzle_migrations.id;

--
-- Name: hub_migration_kinds; Type: TABLE; Schema: drizzle; Owner: -
--

CREATE TABLE drizzle.hub_migration_kinds (
    created_at bigint NOT NULL,
    tag text NOT NULL,
    additive boolean NOT NULL,
    recorded_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: alert_evaluator; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.alert_evaluator (
    id boolean DEFAULT true NOT NULL,
    last_evaluated_at timestamp(3) with time zone DEFAULT '-infinity'::timestamp with time zone NOT NULL,
    CONSTRAINT alert_evaluator_one_row_check CHECK (id)
);

--
-- Name: alert_history; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.alert_history (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    rule_id uuid NOT NULL,
    automation_id uuid NOT NULL,
    kind text NOT NULL,
    value double precision NOT NULL,
    threshold double precision,
    message text NOT NULL,
    since timestamp(3) with time zone NOT NULL,
    resolved_at timestamp(3) with time zone NOT NULL
);

--
-- Name: alert_rules; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.alert_rules (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    automation_id uuid,
    kind text NOT NULL,
    threshold double precision,
    for_seconds integer DEFAULT 0 NOT NULL,
    window_seconds integer DEFAULT 900 NOT NULL,
    min_jobs integer DEFAULT 10 NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    created_by uuid,
    created_at timestamp(3) with time zone DEFAULT now() NOT NULL,
    updated_at timestamp(3) with time zone DEFAULT now() NOT NULL,
    CONSTRAINT alert_rules_for_seconds_check CHECK (((for_seconds >= 0) AND (for_seconds <= 86400))),
    CONSTRAINT alert_rules_kind_check CHECK ((kind = ANY (ARRAY['queue_age'::text, 'queue_depth'::text, 'failure_rate'::text, 'worker_offline'::text, 'job_duration'::text]))),
    CONSTRAINT alert_rules_min_jobs_check CHECK (((min_jobs >= 1) AND (min_jobs <= 10000))),
    CONSTRAINT alert_rules_window_seconds_check CHECK (((window_seconds >= 60) AND (window_seconds <= 86400)))
);

--
-- Name: alert_states; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.alert_states (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    rule_id uuid NOT NULL,
    automation_id uuid NOT NULL,
    pending_since timestamp(3) with time zone NOT NULL,
    firing_since timestamp(3) with time zone,
    value double precision NOT NULL,
    message text NOT NULL
);

--
-- Name: api_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.api_keys (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    user_id uuid NOT NULL,
    name text NOT NULL,
    prefix text NOT NULL,
    digest text NOT NULL,
    created_at timestamp(3) with time zone DEFAULT now() NOT NULL,
    expires_at timestamp(3) with time zone NOT NULL,
    last_used_at timestamp(3) with time zone,
    revoked_at timestamp(3) with time zone,
    automation_ids uuid[],
    read_only boolean DEFAULT false NOT NULL,
    acts_as_role text,
    CONSTRAINT api_keys_acts_as_role_check CHECK (((acts_as_role IS NULL) OR (acts_as_role = 'employee'::text))),
    CONSTRAINT api_keys_automation_ids_check CHECK (((automation_ids IS NULL) OR ((cardinality(automation_ids) >= 1) AND (cardinality(automation_ids) <= 100))))
);

--
-- Name: automation_start_states; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.automation_start_states (
    automation_id uuid NOT NULL,
    start_count bigint DEFAULT 0 NOT NULL,
    starts timestamp with time zone[] DEFAULT '{}'::timestamp with time zone[] NOT NULL,
    head integer DEFAULT 1 NOT NULL
);

--
-- Name: automations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.automations (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    name text NOT NULL,
    slug text NOT NULL,
    sector_id uuid NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    parameters jsonb DEFAULT '[]'::jsonb NOT NULL,
    max_concurrent_jobs integer DEFAULT 1 NOT NULL,
    is_active boolean DEFAULT true NOT NULL,
    is_development boolean DEFAULT false NOT NULL,
    created_at timestamp(3) with time zone DEFAULT now() NOT NULL,
    updated_at timestamp(3) with time zone DEFAULT now() NOT NULL,
    max_attempts integer,
    retry_backoff_seconds integer DEFAULT 10 NOT NULL,
    timeout_seconds integer,
    concurrency_key text,
    max_concurrent_per_key integer,
    rate_limit_count integer,
    rate_limit_period_seconds integer,
    rate_limit_per_key boolean DEFAULT false NOT NULL,
    requires_approval boolean DEFAULT false NOT NULL,
    approver_ids uuid[] DEFAULT '{}'::uuid[] NOT NULL,
    approval_timeout_seconds integer,
    CONSTRAINT automations_approval_timeout_seconds_check CHECK (((approval_timeout_seconds >= 60) AND (approval_timeout_seconds <= 2592000))),
    CONSTRAINT automations_approver_ids_check CHECK ((cardinality(approver_ids) <= 50)),
    CONSTRAINT automations_concurrency_key_check CHECK (((concurrency_key IS NULL) = (max_concurrent_per_key IS NULL))),
    CONSTRAINT automations_max_attempts_check CHECK (((max_attempts >= 1) AND (max_attempts <= 100))),
    CONSTRAINT automations_max_concurrent_jobs_check CHECK (((max_concurrent_jobs >= 1) AND (max_concurrent_jobs <= 1000))),
    CONSTRAINT automations_max_concurrent_per_key_check CHECK (((max_concurrent_per_key IS NULL) OR ((max_concurrent_per_key >= 1) AND (max_concurrent_per_key <= 1000)))),
    CONSTRAINT automations_rate_limit_check CHECK ((((rate_limit_count IS NULL) = (rate_limit_period_seconds IS NULL)) AND ((NOT rate_limit_per_key) OR ((rate_limit_count IS NOT NULL) AND (concurrency_key IS NOT NULL))))),
    CONSTRAINT automations_rate_limit_count_check CHECK (((rate_limit_count IS NULL) OR ((rate_limit_count >= 1) AND (rate_limit_count <= 100000)))),
    CONSTRAINT automations_rate_limit_period_seconds_check CHECK (((rate_limit_period_seconds IS NULL) OR ((rate_limit_period_seconds >= 1) AND (rate_limit_period_seconds <= 86400)))),
    CONSTRAINT automations_retry_backoff_seconds_check CHECK (((retry_backoff_seconds >= 0) AND (retry_backoff_seconds <= 3600))),
    CONSTRAINT automations_timeout_seconds_check CHECK (((timeout_seconds >= 1) AND (timeout_seconds <= 86400)))
);

--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    "position" bigint NOT NULL,
    aggregate_id uuid NOT NULL,
    event_type text NOT NULL,
    actor_id uuid,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp(3) with time zone DEFAULT now() NOT NULL,
    dispatched_at timestamp(3) with time zone
);

--
-- Name: events_position_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.events ALTER COLUMN "position" ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.events_position_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: idempotency_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.idempotency_keys (
    user_id uuid NOT NULL,
    key text NOT NULL,
    job_id uuid NOT NULL,
    created_at timestamp(3) with time zone DEFAULT now() NOT NULL
);

--
-- Name: job_context_values; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_context_values (
    pair_hash bigint NOT NULL,
    created_at timestamp(3) with time zone NOT NULL,
    job_id uuid NOT NULL,
    automation_id uuid NOT NULL
);

--
-- Name: job_key_states; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_key_states (
    automation_id uuid NOT NULL,
    key_value jsonb NOT NULL,
    waiting boolean DEFAULT true NOT NULL,
    last_start bigint,
    starts timestamp with time zone[] DEFAULT '{}'::timestamp with time zone[] NOT NULL,
    head integer DEFAULT 1 NOT NULL,
    head_priority integer,
    head_available_at timestamp with time zone,
    head_seq bigint
);

--
-- Name: job_logs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_logs (
    job_id uuid NOT NULL,
    seq bigint NOT NULL,
    ts timestamp(3) with time zone NOT NULL,
    attempt smallint NOT NULL,
    level smallint NOT NULL,
    message text NOT NULL,
    CONSTRAINT job_logs_level_check CHECK ((level = ANY (ARRAY[20, 30, 40, 50])))
);

--
-- Name: jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.jobs (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    automation_id uuid NOT NULL,
    status text DEFAULT 'queued'::text NOT NULL,
    context jsonb DEFAULT '{}'::jsonb NOT NULL,
    result jsonb,
    error text,
    attempts integer DEFAULT 0 NOT NULL,
    created_by uuid,
    worker_id uuid,
    created_at timestamp(3) with time zone DEFAULT now() NOT NULL,
    started_at timestamp(3) with time zone,
    finished_at timestamp(3) with time zone,
    lease_expires_at timestamp(3) with time zone,
    priority integer DEFAULT 0 NOT NULL,
    available_at timestamp(3) with time zone DEFAULT now() NOT NULL,
    seq bigint NOT NULL,
    retry_of uuid,
    run_at timestamp(3) with time zone,
    schedule_id uuid,
    fire_time timestamp(3) with time zone,
    progress jsonb,
    log_seq bigint DEFAULT 0 NOT NULL,
    log_bytes bigint DEFAULT 0 NOT NULL,
    log_truncated boolean DEFAULT false NOT NULL,
    key_value jsonb DEFAULT '{"hub": "key_value not set"}'::jsonb,
    traceparent text,
    tracestate text,
    depends_on uuid[],
    on_dependency_failure text,
    pending_dependencies integer,
    has_dependents boolean,
    approval_status text,
    approval_expires_at timestamp(3) with time zone,
    approval_decided_by uuid,
    approval_decided_at timestamp(3) with time zone,
    approval_comment text,
    CONSTRAINT jobs_approval_status_check CHECK ((approval_status = ANY (ARRAY['pending'::text, 'approved'::text, 'rejected'::text, 'expired'::text, 'withdrawn'::text]))),
    CONSTRAINT jobs_on_dependency_failure_check CHECK ((on_dependency_failure = ANY (ARRAY['cancel'::text, 'run'::text]))),
    CONSTRAINT jobs_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'running'::text, 'completed'::text, 'failed'::text, 'cancelled'::text, 'held'::text])))
);
ALTER TABLE ONLY public.jobs ALTER COLUMN key_value SET (n_distinct=-0.05);

--
-- Name: jobs_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.jobs ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.jobs_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: login_attempt_windows; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.login_attempt_windows (
    subject text NOT NULL,
    attempts timestamp with time zone[] DEFAULT '{}'::timestamp with time zone[] NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: login_known_addresses; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.login_known_addresses (
    email_digest text NOT NULL,
    address text NOT NULL,
    signed_in_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: maintenance_occurrences; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.maintenance_occurrences (
    window_id uuid NOT NULL,
    starts_at timestamp(3) with time zone NOT NULL,
    ends_at timestamp(3) with time zone NOT NULL,
    scope_id uuid NOT NULL,
    drain boolean NOT NULL,
    started_at timestamp(3) with time zone,
    ended_at timestamp(3) with time zone,
    CONSTRAINT maintenance_occurrences_span_check CHECK ((ends_at >= starts_at))
);

--
-- Name: maintenance_windows; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.maintenance_windows (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    automation_id uuid,
    sector_id uuid,
    starts_at timestamp(3) with time zone,
    ends_at timestamp(3) with time zone,
    cron text,
    timezone text,
    duration_seconds integer,
    drain boolean DEFAULT false NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    filled_until timestamp(3) with time zone,
    created_at timestamp(3) with time zone DEFAULT now() NOT NULL,
    updated_at timestamp(3) with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp(3) with time zone,
    CONSTRAINT maintenance_windows_form_check CHECK ((((starts_at IS NOT NULL) AND (ends_at IS NOT NULL) AND (ends_at > starts_at) AND (cron IS NULL) AND (timezone IS NULL) AND (duration_seconds IS NULL)) OR ((starts_at IS NULL) AND (ends_at IS NULL) AND (cron IS NOT NULL) AND (timezone IS NOT NULL) AND ((duration_seconds >= 60) AND (duration_seconds <= 604800))))),
    CONSTRAINT maintenance_windows_scope_check CHECK (((automation_id IS NULL) OR (sector_id IS NULL)))
);

--
-- Name: schedules; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schedules (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    automation_id uuid NOT NULL,
    key text,
    cron text NOT NULL,
    timezone text NOT NULL,
    context jsonb DEFAULT '{}'::jsonb NOT NULL,
    priority integer DEFAULT 0 NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    overlap text DEFAULT 'skip'::text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    next_run_at timestamp(3) with time zone,
    last_run_at timestamp(3) with time zone,
    last_job_id uuid,
    created_at timestamp(3) with time zone DEFAULT now() NOT NULL,
    updated_at timestamp(3) with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp(3) with time zone,
    CONSTRAINT schedules_overlap_check CHECK ((overlap = ANY (ARRAY['skip'::text, 'allow'::text]))),
    CONSTRAINT schedules_priority_check CHECK (((priority >= '-100'::integer) AND (priority <= 100)))
);

--
-- Name: sectors; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sectors (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    name text NOT NULL,
    color text NOT NULL,
    created_at timestamp(3) with time zone DEFAULT now() NOT NULL
);

--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    email text NOT NULL,
    password_hash text NOT NULL,
    role text NOT NULL,
    is_active boolean DEFAULT true NOT NULL,
    created_at timestamp(3) with time zone DEFAULT now() NOT NULL,
    deactivated_at timestamp(3) with time zone,
    credential_generation integer DEFAULT 0 NOT NULL,
    sector_ids uuid[],
    CONSTRAINT users_role_check CHECK ((role = ANY (ARRAY['admin'::text, 'employee'::text]))),
    CONSTRAINT users_sector_ids_check CHECK (((sector_ids IS NULL) OR ((cardinality(sector_ids) >= 1) AND (cardinality(sector_ids) <= 100))))
);

--
-- Name: webhook_deliveries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_deliveries (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    webhook_id uuid NOT NULL,
    event_id uuid NOT NULL,
    aggregate_id uuid NOT NULL,
    event_position bigint NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    schedule_step integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp(3) with time zone DEFAULT now(),
    lease_expires_at timestamp(3) with time zone,
    lease_token uuid,
    last_status_code integer,
    last_error text,
    delivered_at timestamp(3) with time zone,
    created_at timestamp(3) with time zone DEFAULT now() NOT NULL,
    CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text])))
);

--
-- Name: webhooks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhooks (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    url text NOT NULL,
    event_types text[] NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    secret_ciphertext text NOT NULL,
    previous_secret_ciphertext text,
    previous_secret_expires_at timestamp(3) with time zone,
    created_by uuid,
    created_at timestamp(3) with time zone DEFAULT now() NOT NULL,
    disabled_at timestamp(3) with time zone,
    deleted_at timestamp(3) with time zone,
    failing_since timestamp(3) with time zone,
    consecutive_failures integer DEFAULT 0 NOT NULL,
    format text DEFAULT 'standard'::text NOT NULL,
    CONSTRAINT webhooks_format_check CHECK ((format = ANY (ARRAY['standard'::text, 'slack'::text])))
);

--
-- Name: worker_key_holds; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.worker_key_holds (
    job_id uuid NOT NULL,
    worker_id uuid NOT NULL,
    attempt integer NOT NULL
);

--
-- Name: workers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.workers (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    automation_id uuid NOT NULL,
    cloud_instance_id text NOT NULL,
    api_key_hash text NOT NULL,
    status text DEFAULT 'stopped'::text NOT NULL,
    last_seen_at timestamp(3) with time zone,
    created_at timestamp(3) with time zone DEFAULT now() NOT NULL,
    unregistered_at timestamp(3) with time zone,
    previous_api_key_hash text,
    previous_api_key_expires_at timestamp(3) with time zone
);

--
-- Name: __drizzle_migrations id; Type: DEFAULT; Schema: drizzle; Owner: -
--

ALTER TABLE ONLY drizzle.__drizzle_migrations ALTER COLUMN id SET DEFAULT nextval('drizzle.__drizzle_migrations_id_seq'::regclass);

--
-- Name: __drizzle_migrations __drizzle_migrations_pkey; Type: CONSTRAINT; Schema: drizzle; Owner: -
--

ALTER TABLE ONLY drizzle.__drizzle_migrations
    ADD CONSTRAINT __drizzle_migrations_pkey PRIMARY KEY (id);

--
-- Name: hub_migration_kinds hub_migration_kinds_pkey; Type: CONSTRAINT; Schema: drizzle; Owner: -
--

ALTER TABLE ONLY drizzle.hub_migration_kinds
    ADD CONSTRAINT hub_migration_kinds_pkey PRIMARY KEY (created_at);

--
-- Name: alert_evaluator alert_evaluator_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_evaluator
    ADD CONSTRAINT alert_evaluator_pkey PRIMARY KEY (id);

--
-- Name: alert_history alert_history_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_history
    ADD CONSTRAINT alert_history_pkey PRIMARY KEY (id);

--
-- Name: alert_rules alert_rules_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_rules
    ADD CONSTRAINT alert_rules_pkey PRIMARY KEY (id);

--
-- Name: alert_states alert_states_rule_id_automation_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_states
    ADD CONSTRAINT alert_states_rule_id_automation_id_pk PRIMARY KEY (rule_id, automation_id);

--
-- Name: api_keys api_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);

--
-- Name: automation_start_states automation_start_states_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.automation_start_states
    ADD CONSTRAINT automation_start_states_pkey PRIMARY KEY (automation_id);

--
-- Name: automations automations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.automations
    ADD CONSTRAINT automations_pkey PRIMARY KEY (id);

--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id);

--
-- Name: idempotency_keys idempotency_keys_user_id_key_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_user_id_key_pk PRIMARY KEY (user_id, key);

--
-- Name: job_key_states job_key_states_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_key_states
    ADD CONSTRAINT job_key_states_pkey PRIMARY KEY (automation_id, key_value);

--
-- Name: job_logs job_logs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_logs
    ADD CONSTRAINT job_logs_pkey PRIMARY KEY (job_id, seq);

--
-- Name: jobs jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);

--
-- Name: login_attempt_windows login_attempt_windows_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.login_attempt_windows
    ADD CONSTRAINT login_attempt_windows_pkey PRIMARY KEY (subject);

--
-- Name: login_known_addresses login_known_addresses_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.login_known_addresses
    ADD CONSTRAINT login_known_addresses_pkey PRIMARY KEY (email_digest, address);

--
-- Name: maintenance_occurrences maintenance_occurrences_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.maintenance_occurrences
    ADD CONSTRAINT maintenance_occurrences_pkey PRIMARY KEY (window_id, starts_at);

--
-- Name: maintenance_windows maintenance_windows_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.maintenance_windows
    ADD CONSTRAINT maintenance_windows_pkey PRIMARY KEY (id);

--
-- Name: schedules schedules_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schedules
    ADD CONSTRAINT schedules_pkey PRIMARY KEY (id);

--
-- Name: sectors sectors_name_unique; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sectors
    ADD CONSTRAINT sectors_name_unique UNIQUE (name);

--
-- Name: sectors sectors_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sectors
    ADD CONSTRAINT sectors_pkey PRIMARY KEY (id);

--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);

--
-- Name: webhook_deliveries webhook_deliveries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);

--
-- Name: webhooks webhooks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhooks
    ADD CONSTRAINT webhooks_pkey PRIMARY KEY (id);

--
-- Name: worker_key_holds worker_key_holds_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.worker_key_holds
    ADD CONSTRAINT worker_key_holds_pkey PRIMARY KEY (job_id);

--
-- Name: workers workers_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.workers
    ADD CONSTRAINT workers_pkey PRIMARY KEY (id);

--
-- Name: alert_history_resolved_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX alert_history_resolved_idx ON public.alert_history USING btree (resolved_at, id);

--
-- Name: alert_rules_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX alert_rules_created_idx ON public.alert_rules USING btree (created_at, id);

--
-- Name: alert_states_automation_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX alert_states_automation_idx ON public.alert_states USING btree (automation_id);

--
-- Name: alert_states_firing_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX alert_states_firing_idx ON public.alert_states USING btree (firing_since, id) WHERE (firing_since IS NOT NULL);

--
-- Name: api_keys_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX api_keys_created_idx ON public.api_keys USING btree (created_at, id) WHERE (revoked_at IS NULL);

--
-- Name: api_keys_digest_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX api_keys_digest_key ON public.api_keys USING btree (digest);

--
-- Name: api_keys_prefix_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX api_keys_prefix_idx ON public.api_keys USING btree (prefix) WHERE (revoked_at IS NULL);

--
-- Name: api_keys_user_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX api_keys_user_created_idx ON public.api_keys USING btree (user_id, created_at, id) WHERE (revoked_at IS NULL);

--
-- Name: automations_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX automations_created_idx ON public.automations USING btree (created_at, id);

--
-- Name: automations_sector_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX automations_sector_idx ON public.automations USING btree (sector_id);

--
-- Name: automations_slug_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX automations_slug_key ON public.automations USING btree (slug);

--
-- Name: events_aggregate_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_aggregate_created_idx ON public.events USING btree (aggregate_id, created_at, id);

--
-- Name: events_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_created_idx ON public.events USING btree (created_at, id);

--
-- Name: events_position_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX events_position_key ON public.events USING btree ("position");

--
-- Name: events_type_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_type_created_idx ON public.events USING btree (event_type, created_at, id);

--
-- Name: events_undispatched_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_undispatched_idx ON public.events USING btree ("position") WHERE (dispatched_at IS NULL);

--
-- Name: idempotency_keys_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idempotency_keys_created_idx ON public.idempotency_keys USING btree (created_at);

--
-- Name: job_context_values_pair_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_context_values_pair_created_idx ON public.job_context_values USING btree (pair_hash, created_at, job_id) INCLUDE (automation_id);

--
-- Name: job_key_states_never_started_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_key_states_never_started_idx ON public.job_key_states USING btree (automation_id, head_priority DESC, head_available_at NULLS FIRST, head_seq NULLS FIRST) WHERE (waiting AND (last_start IS NULL));

--
-- Name: job_key_states_waiting_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_key_states_waiting_idx ON public.job_key_states USING btree (automation_id, last_start) WHERE waiting;

--
-- Name: jobs_approval_expiry_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_approval_expiry_idx ON public.jobs USING btree (approval_expires_at) WHERE ((approval_status = 'pending'::text) AND (approval_expires_at IS NOT NULL));

--
-- Name: jobs_approval_pending_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_approval_pending_idx ON public.jobs USING btree (created_at, id) WHERE (approval_status = 'pending'::text);

--
-- Name: jobs_automation_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_automation_created_idx ON public.jobs USING btree (automation_id, created_at, id);

--
-- Name: jobs_automation_finished_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_automation_finished_idx ON public.jobs USING btree (automation_id, status, finished_at) WHERE (finished_at IS NOT NULL);

--
-- Name: jobs_automation_status_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_automation_status_created_idx ON public.jobs USING btree (automation_id, status, created_at, id);

--
-- Name: jobs_claim_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_claim_idx ON public.jobs USING btree (automation_id, priority DESC NULLS LAST, available_at, seq) WHERE (status = 'queued'::text);

--
-- Name: jobs_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_created_idx ON public.jobs USING btree (created_at, id);

--
-- Name: jobs_depends_on_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_depends_on_idx ON public.jobs USING gin (depends_on) WITH (fastupdate=off) WHERE (depends_on IS NOT NULL);

--
-- Name: jobs_finished_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_finished_idx ON public.jobs USING btree (finished_at) WHERE (status = ANY (ARRAY['completed'::text, 'failed'::text, 'cancelled'::text]));

--
-- Name: jobs_key_claim_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_key_claim_idx ON public.jobs USING btree (automation_id, key_value, priority DESC NULLS LAST, available_at, seq) WHERE ((status = 'queued'::text) AND (key_value IS NOT NULL));

--
-- Name: jobs_queued_available_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_queued_available_idx ON public.jobs USING btree (available_at, id) WHERE (status = 'queued'::text);

--
-- Name: jobs_retry_of_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_retry_of_idx ON public.jobs USING btree (retry_of) WHERE (retry_of IS NOT NULL);

--
-- Name: jobs_running_lease_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_running_lease_idx ON public.jobs USING btree (lease_expires_at) WHERE (status = 'running'::text);

--
-- Name: jobs_schedule_active_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_schedule_active_idx ON public.jobs USING btree (schedule_id) WHERE ((schedule_id IS NOT NULL) AND (status = ANY (ARRAY['queued'::text, 'held'::text, 'running'::text])));

--
-- Name: jobs_schedule_fire_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX jobs_schedule_fire_key ON public.jobs USING btree (schedule_id, fire_time) WHERE (schedule_id IS NOT NULL);

--
-- Name: jobs_status_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_status_created_idx ON public.jobs USING btree (status, created_at, id);

--
-- Name: login_attempt_windows_updated_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX login_attempt_windows_updated_idx ON public.login_attempt_windows USING btree (updated_at);

--
-- Name: login_known_addresses_signed_in_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX login_known_addresses_signed_in_idx ON public.login_known_addresses USING btree (signed_in_at);

--
-- Name: maintenance_occurrences_end_due_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX maintenance_occurrences_end_due_idx ON public.maintenance_occurrences USING btree (ends_at) WHERE (ended_at IS NULL);

--
-- Name: maintenance_occurrences_end_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX maintenance_occurrences_end_idx ON public.maintenance_occurrences USING btree (ends_at) INCLUDE (scope_id, starts_at, drain);

--
-- Name: maintenance_occurrences_start_due_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX maintenance_occurrences_start_due_idx ON public.maintenance_occurrences USING btree (starts_at) WHERE (started_at IS NULL);

--
-- Name: maintenance_windows_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX maintenance_windows_created_idx ON public.maintenance_windows USING btree (created_at, id) WHERE (deleted_at IS NULL);

--
-- Name: maintenance_windows_fill_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX maintenance_windows_fill_idx ON public.maintenance_windows USING btree (filled_until) WHERE ((deleted_at IS NULL) AND (cron IS NOT NULL));

--
-- Name: schedules_automation_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX schedules_automation_created_idx ON public.schedules USING btree (automation_id, created_at, id) WHERE (deleted_at IS NULL);

--
-- Name: schedules_automation_key_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX schedules_automation_key_key ON public.schedules USING btree (automation_id, key) WHERE ((key IS NOT NULL) AND (deleted_at IS NULL));

--
-- Name: schedules_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX schedules_created_idx ON public.schedules USING btree (created_at, id) WHERE (deleted_at IS NULL);

--
-- Name: schedules_next_run_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX schedules_next_run_idx ON public.schedules USING btree (next_run_at) WHERE (next_run_at IS NOT NULL);

--
-- Name: sectors_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sectors_created_idx ON public.sectors USING btree (created_at, id);

--
-- Name: users_active_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX users_active_created_idx ON public.users USING btree (created_at, id) WHERE is_active;

--
-- Name: users_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX users_created_idx ON public.users USING btree (created_at, id);

--
-- Name: users_email_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX users_email_key ON public.users USING btree (email);

--
-- Name: webhook_deliveries_event_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_event_idx ON public.webhook_deliveries USING btree (event_id);

--
-- Name: webhook_deliveries_leased_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_leased_idx ON public.webhook_deliveries USING btree (webhook_id, lease_expires_at) WHERE ((status = 'pending'::text) AND (lease_expires_at IS NOT NULL));

--
-- Name: webhook_deliveries_list_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_list_idx ON public.webhook_deliveries USING btree (webhook_id, created_at, id);

--
-- Name: webhook_deliveries_pending_aggregate_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_pending_aggregate_idx ON public.webhook_deliveries USING btree (webhook_id, aggregate_id, event_position) WHERE (status = 'pending'::text);

--
-- Name: webhook_deliveries_pending_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_pending_idx ON public.webhook_deliveries USING btree (webhook_id, event_position) WHERE (status = 'pending'::text);

--
-- Name: webhook_deliveries_webhook_event_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX webhook_deliveries_webhook_event_key ON public.webhook_deliveries USING btree (webhook_id, event_id);

--
-- Name: webhooks_listed_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhooks_listed_idx ON public.webhooks USING btree (created_at, id) WHERE (deleted_at IS NULL);

--
-- Name: worker_key_holds_worker_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX worker_key_holds_worker_idx ON public.worker_key_holds USING btree (worker_id);

--
-- Name: workers_api_key_hash_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX workers_api_key_hash_key ON public.workers USING btree (api_key_hash);

--
-- Name: workers_one_per_automation; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX workers_one_per_automation ON public.workers USING btree (automation_id) WHERE (unregistered_at IS NULL);

--
-- Name: workers_previous_api_key_expires_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX workers_previous_api_key_expires_idx ON public.workers USING btree (previous_api_key_expires_at) WHERE (previous_api_key_expires_at IS NOT NULL);

--
-- Name: workers_previous_api_key_hash_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX workers_previous_api_key_hash_key ON public.workers USING btree (previous_api_key_hash) WHERE (previous_api_key_hash IS NOT NULL);

--
-- Name: workers_running_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX workers_running_idx ON public.workers USING btree (last_seen_at) WHERE ((status = 'running'::text) AND (unregistered_at IS NULL));

--
-- Name: api_keys api_keys_credentials_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER api_keys_credentials_changed AFTER DELETE OR UPDATE OF revoked_at, expires_at, digest, user_id ON public.api_keys FOR EACH STATEMENT EXECUTE FUNCTION public.hub_notify_credentials_changed();

--
-- Name: jobs jobs_finish_dependency; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_finish_dependency AFTER UPDATE OF status ON public.jobs FOR EACH ROW WHEN ((new.has_dependents AND (new.status = ANY (ARRAY['completed'::text, 'failed'::text, 'cancelled'::text])) AND (old.status <> ALL (ARRAY['completed'::text, 'failed'::text, 'cancelled'::text])) AND public.hub_note_finished_dependency_v1(new.id, new.status))) EXECUTE FUNCTION public.hub_finish_dependency_v1();

--
-- Name: jobs jobs_forget_context_values; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_forget_context_values AFTER DELETE ON public.jobs REFERENCING OLD TABLE AS old_jobs FOR EACH STATEMENT EXECUTE FUNCTION public.hub_forget_job_context_values();

--
-- Name: jobs jobs_key_value; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_key_value BEFORE INSERT ON public.jobs FOR EACH ROW WHEN ((new.key_value IS NOT NULL)) EXECUTE FUNCTION public.hub_job_key_value();

--
-- Name: jobs jobs_record_context_values; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_record_context_values AFTER INSERT ON public.jobs REFERENCING NEW TABLE AS new_jobs FOR EACH STATEMENT EXECUTE FUNCTION public.hub_record_job_context_values();

--
-- Name: jobs jobs_rewrite_context_values; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_rewrite_context_values AFTER UPDATE OF context, created_at, automation_id ON public.jobs FOR EACH ROW WHEN (((old.context IS DISTINCT FROM new.context) OR (old.created_at IS DISTINCT FROM new.created_at) OR (old.automation_id IS DISTINCT FROM new.automation_id))) EXECUTE FUNCTION public.hub_rewrite_job_context_values();

--
-- Name: users users_credentials_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER users_credentials_changed AFTER DELETE OR UPDATE OF is_active, role, password_hash, credential_generation ON public.users FOR EACH STATEMENT EXECUTE FUNCTION public.hub_notify_credentials_changed();

--
-- Name: users users_sectors_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER users_sectors_changed AFTER UPDATE OF sector_ids ON public.users FOR EACH STATEMENT EXECUTE FUNCTION public.hub_notify_credentials_changed();

--
-- Name: workers workers_credentials_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER workers_credentials_changed AFTER DELETE OR UPDATE OF api_key_hash, unregistered_at, automation_id ON public.workers FOR EACH STATEMENT EXECUTE FUNCTION public.hub_notify_credentials_changed();

--
-- Name: alert_rules alert_rules_automation_id_automations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_rules
    ADD CONSTRAINT alert_rules_automation_id_automations_id_fk FOREIGN KEY (automation_id) REFERENCES public.automations(id);

--
-- Name: alert_rules alert_rules_created_by_users_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_rules
    ADD CONSTRAINT alert_rules_created_by_users_id_fk FOREIGN KEY (created_by) REFERENCES public.users(id);

--
-- Name: api_keys api_keys_user_id_users_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_user_id_users_id_fk FOREIGN KEY (user_id) REFERENCES public.users(id);

--
-- Name: automation_start_states automation_start_states_automation_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.automation_start_states
    ADD CONSTRAINT automation_start_states_automation_id_fkey FOREIGN KEY (automation_id) REFERENCES public.automations(id);

--
-- Name: automations automations_sector_id_sectors_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.automations
    ADD CONSTRAINT automations_sector_id_sectors_id_fk FOREIGN KEY (sector_id) REFERENCES public.sectors(id);

--
-- Name: idempotency_keys idempotency_keys_user_id_users_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_user_id_users_id_fk FOREIGN KEY (user_id) REFERENCES public.users(id);

--
-- Name: job_key_states job_key_states_automation_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_key_states
    ADD CONSTRAINT job_key_states_automation_id_fkey FOREIGN KEY (automation_id) REFERENCES public.automations(id);

--
-- Name: job_logs job_logs_job_id_jobs_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_logs
    ADD CONSTRAINT job_logs_job_id_jobs_id_fk FOREIGN KEY (job_id) REFERENCES public.jobs(id) ON DELETE CASCADE;

--
-- Name: jobs jobs_automation_id_automations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_automation_id_automations_id_fk FOREIGN KEY (automation_id) REFERENCES public.automations(id);

--
-- Name: jobs jobs_created_by_users_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_created_by_users_id_fk FOREIGN KEY (created_by) REFERENCES public.users(id);

--
-- Name: jobs jobs_schedule_id_schedules_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_schedule_id_schedules_id_fk FOREIGN KEY (schedule_id) REFERENCES public.schedules(id);

--
-- Name: jobs jobs_worker_id_workers_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_worker_id_workers_id_fk FOREIGN KEY (worker_id) REFERENCES public.workers(id);

--
-- Name: maintenance_occurrences maintenance_occurrences_window_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.maintenance_occurrences
    ADD CONSTRAINT maintenance_occurrences_window_id_fkey FOREIGN KEY (window_id) REFERENCES public.maintenance_windows(id);

--
-- Name: maintenance_windows maintenance_windows_automation_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.maintenance_windows
    ADD CONSTRAINT maintenance_windows_automation_id_fkey FOREIGN KEY (automation_id) REFERENCES public.automations(id);

--
-- Name: maintenance_windows maintenance_windows_sector_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.maintenance_windows
    ADD CONSTRAINT maintenance_windows_sector_id_fkey FOREIGN KEY (sector_id) REFERENCES public.sectors(id);

--
-- Name: schedules schedules_automation_id_automations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schedules
    ADD CONSTRAINT schedules_automation_id_automations_id_fk FOREIGN KEY (automation_id) REFERENCES public.automations(id);

--
-- Name: webhook_deliveries webhook_deliveries_event_id_events_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_event_id_events_id_fk FOREIGN KEY (event_id) REFERENCES public.events(id);

--
-- Name: webhook_deliveries webhook_deliveries_webhook_id_webhooks_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_webhook_id_webhooks_id_fk FOREIGN KEY (webhook_id) REFERENCES public.webhooks(id);

--
-- Name: webhooks webhooks_created_by_users_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhooks
    ADD CONSTRAINT webhooks_created_by_users_id_fk FOREIGN KEY (created_by) REFERENCES public.users(id);

--
-- Name: worker_key_holds worker_key_holds_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.worker_key_holds
    ADD CONSTRAINT worker_key_holds_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(id) ON DELETE CASCADE;

--
-- Name: worker_key_holds worker_key_holds_worker_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.worker_key_holds
    ADD CONSTRAINT worker_key_holds_worker_id_fkey FOREIGN KEY (worker_id) REFERENCES public.workers(id) ON DELETE CASCADE;

--
-- Name: workers workers_automation_id_automations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.workers
    ADD CONSTRAINT workers_automation_id_automations_id_fk FOREIGN KEY (automation_id) REFERENCES public.automations(id);

--
-- PostgreSQL database dump complete
--
