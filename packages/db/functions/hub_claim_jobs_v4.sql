-- The claim (CONTRACT §3 "Worker protocol", §6.8, §6.13): the hub's concurrency limit, limits per key, rate limits
-- and fair sharing are enforced here. Called by the claim statement (packages/db/src/sql/jobs/claim.ts) and by
-- hub_complete_and_claim_v2; hub_claim_jobs_v3, which builds of before v4 call, is this claim with v3's columns.
--
-- Maintenance windows (CONTRACT §6.18), checked first: under the
-- automation row lock, once the claim knows a slot is free, one probe of maintenance_occurrences_end_idx (the occurrences
-- not ended, their scope read from the included columns) asks whether an occurrence of a window scoped to the
-- automation, its sector or every automation is in effect at now() (or, with
-- drain, begins before now() + the automation's timeout_seconds). If so nothing starts: the claim answers 'blocked'
-- with slots_left 0 and retry_after_ms until those windows end (hub_maintenance_until follows overlapping ones to the
-- last end), so a long-poll looks again exactly then and the held jobs start in claim order under every limit below.
-- A window written after this claim took the lock is seen by the next claim: the check reads now() of this
-- transaction, which began before the lock was granted, so a claim that began before a window's start never starts a
-- job after it (its job.started carries this now()). With no window defined the check costs that one probe of an
-- empty index.
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
-- An automation with neither a concurrency_key nor a rate_limit takes the first branch: one statement that starts
-- the first due jobs in claim order. Its ORDER BY says `priority DESC NULLS LAST` because jobs_claim_idx is built
-- that way and PostgreSQL matches an ORDER BY to an index only when the NULLS order matches too. Otherwise jobs are
-- picked one at a time, each under the rules of §6.13, in this transaction and under the automation's lock, so every
-- start sees the ones before it:
-- - the automation's window (rate_limit without per_key) full: stop, retry_after_ms says when it opens;
-- - without a key: the first due job in claim order;
-- - with a key: among the waiting key values whose running count is below max_concurrent_per_key (running counted
--   once, by context, as §6.13 says) and, under per_key, whose window allows a start, the first due job of each in
--   claim order (jobs_key_claim_idx); among those the highest priority, then the value whose last start is oldest by
--   the start counter (never started first, among themselves by that job's claim order).
-- The picked job is locked SKIP LOCKED (a cancel may hold it); a job found locked is passed over for this call.
--
-- Where the state lives:
-- - jobs.key_value: the job's value of its automation's concurrency_key, as JSON (`context -> key`, JSON null when the
--   context lacks it), NULL when the automation has no key. Set by the statements that insert jobs, or by the key
--   trigger (hub_job_key_value) for an insert that leaves it out; rewritten for queued and running jobs by the PUT
--   that changes the key (which locks the automation row FOR UPDATE, so no insert reads the old key and commits after
--   that rewrite). jobs_key_claim_idx orders a key value's queued jobs in claim order; it holds only jobs of
--   automations with a key.
-- - automation_start_states: per automation, the start counter of fair sharing (incremented by each start, never a
--   clock) and the ring of the last rate_limit.count start times.
-- - job_key_states: per automation and key value, the counter value of its last start (NULL: never started), its own
--   ring, `waiting` (set by the key trigger when a job of the value is queued, cleared by a claim that finds the value
--   with nothing queued and nothing running) and, for a value that never started, its head (below). A claim walks
--   only waiting values: those that never started in head order, stopping once it has its p_max_jobs (about one
--   probe per value taken), then the others by last start, stopping at the first that offers the highest priority
--   due: in the usual case (one priority, values at their limit skipped by a look-up in the running counts) a few
--   index probes per start, whatever the backlog.
-- A ring is an array of `count` start times and `head`, the index of the oldest: the start after it overwrites it
-- (hub_start_ring_push). A start is allowed when the oldest is at least period_seconds old (fewer than `count` starts
-- since), one array read (hub_start_window_opens_at). Times pushed are greatest(now(), the newest entry), so a ring
-- stays in time order although a claim whose transaction began earlier may take the lock later; then for any two
-- starts `count` apart in lock order the later one's now() is at least period_seconds after the earlier one's, which
-- is the limit, exactly, on job.started times. Starts are recorded while a rate limit is set (so the claim without one
-- costs nothing more); a ring whose length differs from the current count is resized at the next start, keeping its
-- newest entries.
--
-- The head of a value that never started (job_key_states.head_priority, head_available_at, head_seq) is a lower
-- bound, never later in claim order than the value's first queued job:
-- - the key trigger sets it when the value starts waiting and moves it earlier when a job inserted precedes it
--   (under the row's lock, so concurrent inserts compose); an insert that rolls back leaves it earlier still;
-- - a job leaving the queue (started, cancelled) only makes the value's first job later;
-- - a reschedule (the only change of a queued job's priority or available_at) moves it earlier when the job precedes
--   it (jobs.reschedule);
-- - NULL means unknown (rows written by a rekey, or before heads were kept): read first, as earlier than everything.
-- A probe reads the value's actual first due job. Reading values in head order, a probed job is final once the next
-- value's head comes after it, which is why the claim order of §6.13 (never started first, among themselves in the
-- order of their first due job) holds exactly, with heads exact or not; a value whose head is stale costs one probe
-- more.
--
-- Two statements name their jobs by id, and only the primary key can find them (jobs/batch-fence-plans.test.ts):
-- the check of the candidates the ready set offered is a subquery per candidate that looks its job up by id alone
-- (an anti-join on the same tests could be planned as a hash join over a scan of jobs), and the keyed path's lock of
-- the job it picked tests `(j.status = 'queued') IS TRUE`, as the worker fences do. Written plainly, a custom plan
-- (PL/pgSQL plans its statements as a prepared statement's: custom plans first) took the automation's stretch of
-- jobs_claim_idx as cheap whenever the statistics said the automation had few queued jobs, as they do for a burst's
-- automation until autovacuum analyses the table again, and read every queued job of the automation, dead versions
-- included, on each claim.
--
-- Returns one row per started job, in the order they were picked, or one row with null job columns: outcome
-- 'claimed' | 'none' (a slot was free but nothing claimable) | 'blocked' (inactive, development mode, worker not
-- registered, or no slot free); slots_left after this claim (0 when a window stopped the claim, so no claim is woken
-- for a start the window would refuse); stale_ids, those of p_candidate_ids (ids the dispatch layer offered) that
-- were no longer queued before this claim; retry_after_ms (from clock_timestamp(), rounded up), when to look again,
-- NULL when no window stopped it. It returns every column the API hands out itself, the dependency (§6.16) and
-- approval (§6.17) columns included, and declares ROWS 1 (a claim starts a handful of jobs), so the claim statement
-- reads no table but through the function: a set-returning function is estimated at 1,000 rows, and a join back to
-- jobs became, as a generic plan, a hash join over a sequential scan of jobs. (v3 returned the job columns of before
-- §6.16, and the statement read the others by a probe of jobs' primary key per row, on the hot path of every job.)
CREATE OR REPLACE FUNCTION "hub_claim_jobs_v4"(
  p_automation_id uuid, p_worker_id uuid, p_max_jobs integer, p_lease_seconds integer, p_candidate_ids uuid[]
) RETURNS TABLE (
  outcome text, slots_left integer, stale_ids uuid[], retry_after_ms integer,
  id uuid, automation_id uuid, status text, context jsonb, result jsonb, error text, attempts integer,
  created_by uuid, worker_id uuid, created_at timestamptz, started_at timestamptz, finished_at timestamptz,
  lease_expires_at timestamptz, priority integer, available_at timestamptz, seq bigint, retry_of uuid,
  run_at timestamptz, schedule_id uuid, fire_time timestamptz,
  depends_on uuid[], on_dependency_failure text, has_dependents boolean,
  approval_status text, approval_expires_at timestamptz, approval_decided_by uuid, approval_decided_at timestamptz,
  approval_comment text
) ROWS 1 LANGUAGE plpgsql VOLATILE AS $$
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
