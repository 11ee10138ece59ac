-- migration: additive. Limits per key, rate limits and fair sharing (CONTRACT §6.13): new nullable automation columns, a job key column set by a trigger, start-state tables and hub_claim_jobs_v3; builds before it keep calling hub_claim_jobs_v2, which stays.
--
-- This file is the source of truth of hub_claim_jobs_v3 and its helpers (packages/db/schema.sql shows the schema a
-- fresh migrate produces).
--
-- Where the state lives:
-- - jobs.key_value: the job's value of its automation's concurrency_key, as JSON (`context -> key`, JSON null when the
--   context lacks it), NULL when the automation has no key. Set on insert by the trigger below, whatever statement
--   inserts; rewritten for queued and running jobs by the PUT that changes the key (which locks the automation row
--   FOR UPDATE, so no insert reads the old key and commits after that rewrite). jobs_key_claim_idx orders a key
--   value's queued jobs in claim order; it holds only jobs of automations with a key.
-- - automation_start_states: per automation, the start counter of fair sharing (incremented by each start, never a
--   clock) and the ring of the last rate_limit.count start times.
-- - job_key_states: per automation and key value, the counter value of its last start (NULL: never started), its own
--   ring, and `waiting`: set by the insert trigger when a job of the value is queued, cleared by a claim that finds the
--   value with nothing queued and nothing running. A claim walks only waiting values, never started first, then by
--   last start, and stops at the first that offers the highest priority due: in the usual case (one priority, values
--   at their limit skipped by a look-up in the running counts) a few index probes per start, whatever the backlog.
-- A ring is an array of `count` start times and `head`, the index of the oldest: the start after it overwrites it.
-- A start is allowed when the oldest is at least period_seconds old (fewer than `count` starts since), one array read.
-- Times pushed are greatest(now(), the newest entry), so a ring stays in time order although a claim whose
-- transaction began earlier may take the lock later; then for any two starts `count` apart in lock order the later
-- one's now() is at least period_seconds after the earlier one's, which is the limit, exactly, on job.started times.
-- Starts are recorded while a rate limit is set (so the claim without one costs what it did); a ring whose length
-- differs from the current count is resized at the next start, keeping its newest entries.

ALTER TABLE "automations" ADD COLUMN "concurrency_key" text;
ALTER TABLE "automations" ADD COLUMN "max_concurrent_per_key" integer;
ALTER TABLE "automations" ADD COLUMN "rate_limit_count" integer;
ALTER TABLE "automations" ADD COLUMN "rate_limit_period_seconds" integer;
ALTER TABLE "automations" ADD COLUMN "rate_limit_per_key" boolean DEFAULT false NOT NULL;
ALTER TABLE "automations" ADD CONSTRAINT "automations_max_concurrent_per_key_check"
  CHECK ("max_concurrent_per_key" IS NULL OR ("max_concurrent_per_key" >= 1 AND "max_concurrent_per_key" <= 1000));
ALTER TABLE "automations" ADD CONSTRAINT "automations_rate_limit_count_check"
  CHECK ("rate_limit_count" IS NULL OR ("rate_limit_count" >= 1 AND "rate_limit_count" <= 100000));
ALTER TABLE "automations" ADD CONSTRAINT "automations_rate_limit_period_seconds_check"
  CHECK ("rate_limit_period_seconds" IS NULL OR ("rate_limit_period_seconds" >= 1 AND "rate_limit_period_seconds" <= 86400));
-- A key and its per-key limit come together; a rate limit is a count and a period; per_key needs both a limit and a key.
ALTER TABLE "automations" ADD CONSTRAINT "automations_concurrency_key_check"
  CHECK (("concurrency_key" IS NULL) = ("max_concurrent_per_key" IS NULL));
ALTER TABLE "automations" ADD CONSTRAINT "automations_rate_limit_check"
  CHECK (("rate_limit_count" IS NULL) = ("rate_limit_period_seconds" IS NULL)
    AND (NOT "rate_limit_per_key" OR ("rate_limit_count" IS NOT NULL AND "concurrency_key" IS NOT NULL)));

ALTER TABLE "jobs" ADD COLUMN "key_value" jsonb;
CREATE INDEX "jobs_key_claim_idx" ON "jobs" USING btree ("automation_id", "key_value", "priority" DESC NULLS LAST, "available_at", "seq")
  WHERE "status" = 'queued' AND "key_value" IS NOT NULL;

CREATE TABLE "automation_start_states" (
  "automation_id" uuid PRIMARY KEY NOT NULL REFERENCES "automations"("id"),
  "start_count" bigint DEFAULT 0 NOT NULL,
  "starts" timestamptz[] DEFAULT '{}' NOT NULL,
  "head" integer DEFAULT 1 NOT NULL
);

CREATE TABLE "job_key_states" (
  "automation_id" uuid NOT NULL REFERENCES "automations"("id"),
  "key_value" jsonb NOT NULL,
  "waiting" boolean DEFAULT true NOT NULL,
  "last_start" bigint,
  "starts" timestamptz[] DEFAULT '{}' NOT NULL,
  "head" integer DEFAULT 1 NOT NULL,
  PRIMARY KEY ("automation_id", "key_value")
);
-- The claim's walk: the waiting values of an automation, never started (NULL) apart, the others by last start.
CREATE INDEX "job_key_states_waiting_idx" ON "job_key_states" USING btree ("automation_id", "last_start") WHERE "waiting";

-- The job's key value under its automation's key (see above). Each statement of a VOLATILE function takes a fresh
-- snapshot, so the key read here is the one committed when the row is inserted.
CREATE FUNCTION "hub_job_key_value"() RETURNS trigger LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_key text;
BEGIN
  SELECT a.concurrency_key INTO v_key FROM automations a WHERE a.id = NEW.automation_id;
  NEW.key_value := CASE WHEN v_key IS NULL THEN NULL ELSE coalesce(NEW.context -> v_key, 'null'::jsonb) END;
  IF NEW.key_value IS NOT NULL THEN
    -- Its value waits from now on. FOR SHARE (concurrent inserts do not wait on each other) keeps a claim from
    -- marking the value idle before this insert commits; a value not waiting yet is (re)marked.
    PERFORM 1 FROM job_key_states ks WHERE ks.automation_id = NEW.automation_id AND ks.key_value = NEW.key_value AND ks.waiting FOR SHARE;
    IF NOT FOUND THEN
      INSERT INTO job_key_states (automation_id, key_value, waiting) VALUES (NEW.automation_id, NEW.key_value, true)
      ON CONFLICT (automation_id, key_value) DO UPDATE SET waiting = true;
    END IF;
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER "jobs_key_value" BEFORE INSERT ON "jobs" FOR EACH ROW EXECUTE FUNCTION "hub_job_key_value"();

-- A ring's start times oldest first, resized to p_count entries: the newest kept, NULLs (no start) in front.
CREATE FUNCTION "hub_start_ring_normalized"(p_starts timestamptz[], p_head integer, p_count integer)
RETURNS timestamptz[] LANGUAGE sql IMMUTABLE AS $$
  SELECT array_fill(NULL::timestamptz, ARRAY[greatest(p_count - count(*), 0)::integer])
    || coalesce((array_agg(r.t ORDER BY r.n))[greatest(count(*) - p_count, 0) + 1:], '{}')
  FROM (
    SELECT s.t, CASE WHEN s.n >= p_head THEN s.n - p_head ELSE s.n + cardinality(p_starts) END AS n
    FROM unnest(p_starts) WITH ORDINALITY AS s(t, n)
  ) r
  WHERE r.t IS NOT NULL
$$;

-- When the window next allows a start: the oldest of the last p_count starts plus the period; NULL when fewer than
-- p_count starts were recorded (it allows one now). A start is allowed when this is NULL or not after now().
CREATE FUNCTION "hub_start_window_opens_at"(p_starts timestamptz[], p_head integer, p_count integer, p_period_seconds integer)
RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN cardinality(p_starts) = p_count THEN p_starts[p_head]
    ELSE (hub_start_ring_normalized(p_starts, p_head, p_count))[1] END
    + make_interval(secs => p_period_seconds)
$$;

-- Records a start in a ring (resized first when its length is not p_count): the time pushed is the later of now()
-- and the newest entry, so the ring stays in time order.
CREATE FUNCTION "hub_start_ring_push"(INOUT p_starts timestamptz[], INOUT p_head integer, p_count integer)
LANGUAGE plpgsql STABLE AS $$
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

-- Limits per key, rate limits and fair sharing on top of hub_claim_jobs_v2 (migration 0013, whose comment explains
-- the lock, the snapshot of each statement and the outcomes; all of it holds here).
--
-- An automation with neither a concurrency_key nor a rate_limit takes the first branch, v2's statement unchanged (its
-- only addition is the NULL retry_after_ms column). Otherwise jobs are picked one at a time, each under the rules of
-- CONTRACT §6.13, in this transaction and under the automation's lock, so every start sees the ones before it:
-- - the automation's window (rate_limit without per_key) full: stop, retry_after_ms says when it opens;
-- - without a key: the first due job in claim order;
-- - with a key: among the waiting key values whose running count is below max_concurrent_per_key (running counted
--   once, by context, as §6.13 says) and, under per_key, whose window allows a start, the first due job of each in
--   claim order (jobs_key_claim_idx); among those the highest priority, then the value whose last start is oldest by
--   the start counter (never started first, among themselves by that job's claim order).
-- The picked job is locked SKIP LOCKED (a cancel may hold it); a job found locked is passed over for this call.
-- Returns the jobs in the order they were picked; slots_left is 0 when a window stopped the claim, so no claim is
-- woken for a start that the window would refuse, and retry_after_ms (from clock_timestamp(), rounded up) says when
-- to look again; NULL when no window stopped it.
CREATE FUNCTION "hub_claim_jobs_v3"(
  p_automation_id uuid, p_worker_id uuid, p_max_jobs integer, p_lease_seconds integer, p_candidate_ids uuid[]
) RETURNS TABLE (
  outcome text, slots_left integer, stale_ids uuid[], retry_after_ms integer,
  id uuid, automation_id uuid, status text, context jsonb, result jsonb, error text, attempts integer,
  created_by uuid, worker_id uuid, created_at timestamptz, started_at timestamptz, finished_at timestamptz,
  lease_expires_at timestamptz, priority integer, available_at timestamptz, seq bigint, retry_of uuid,
  run_at timestamptz, schedule_id uuid, fire_time timestamptz
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
BEGIN
  SELECT a.max_concurrent_jobs, a.concurrency_key, a.max_concurrent_per_key, a.rate_limit_count, a.rate_limit_period_seconds,
    a.rate_limit_per_key
  INTO v_limit, v_key, v_per_key, v_rate_count, v_rate_period, v_rate_per_key
  FROM automations a
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
      greatest(v_slots, 0) - (SELECT count(*) FROM started)::integer, v_stale, NULL::integer,
      s.id, s.automation_id, s.status, s.context, s.result, s.error, s.attempts, s.created_by, s.worker_id,
      s.created_at, s.started_at, s.finished_at, s.lease_expires_at, s.priority, s.available_at, s.seq, s.retry_of,
      s.run_at, s.schedule_id, s.fire_time
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
        -- The highest priority due (an upper bound of what an allowed value can offer).
        SELECT j.priority INTO v_top FROM jobs j
        WHERE j.automation_id = p_automation_id AND j.status = 'queued' AND j.available_at <= now() AND j.id <> ALL (v_passed) AND j.id <> ALL (v_picked)
        ORDER BY j.priority DESC NULLS LAST, j.available_at, j.seq
        LIMIT 1;
        EXIT WHEN NOT FOUND;
        -- Values that never started come first, in the claim order of their first due job: read once per call (the
        -- p_max_jobs best), since a pick takes one of them out and changes none of the others.
        IF v_never_started IS NULL THEN
          SELECT coalesce(array_agg(c.id ORDER BY c.n), '{}'), coalesce(array_agg(c.key_value ORDER BY c.n), '{}'),
            coalesce(array_agg(c.priority ORDER BY c.n), '{}')
          INTO v_never_started, v_never_started_keys, v_never_started_priorities
          FROM (
            SELECT h.id, ks.key_value, h.priority, row_number() OVER (ORDER BY h.priority DESC NULLS LAST, h.available_at, h.seq) AS n
            FROM job_key_states ks
            CROSS JOIN LATERAL (
              SELECT j.id, j.priority, j.available_at, j.seq FROM jobs j
              WHERE j.automation_id = p_automation_id AND j.status = 'queued' AND j.key_value IS NOT NULL AND j.key_value = ks.key_value
                AND j.available_at <= now()
              ORDER BY j.priority DESC NULLS LAST, j.available_at, j.seq
              LIMIT 1
            ) h
            WHERE ks.automation_id = p_automation_id AND ks.waiting AND ks.last_start IS NULL
              AND coalesce((v_running ->> (ks.key_value::text))::integer, 0) < v_per_key
              AND (NOT v_rate_per_key OR coalesce(hub_start_window_opens_at(ks.starts, ks.head, v_rate_count, v_rate_period) <= now(), true))
            ORDER BY n
            LIMIT p_max_jobs
          ) c;
          v_never_started_next := 1;
        END IF;
        IF v_never_started_next <= cardinality(v_never_started) THEN
          v_pick_id := v_never_started[v_never_started_next];
          v_pick_key := v_never_started_keys[v_never_started_next];
          v_best_priority := v_never_started_priorities[v_never_started_next];
        END IF;
        -- Then the values that started, oldest last start first, until one offers the highest priority due.
        IF v_pick_id IS NULL OR v_best_priority < v_top THEN
          FOR v_state_row IN
            SELECT ks.key_value, ks.starts, ks.head FROM job_key_states ks
            WHERE ks.automation_id = p_automation_id AND ks.waiting AND ks.last_start IS NOT NULL
            ORDER BY ks.last_start
          LOOP
            CONTINUE WHEN coalesce((v_running ->> (v_state_row.key_value::text))::integer, 0) >= v_per_key;
            CONTINUE WHEN v_rate_per_key AND hub_start_window_opens_at(v_state_row.starts, v_state_row.head, v_rate_count, v_rate_period) > now();
            SELECT j.id, j.priority INTO v_head_id, v_head_priority FROM jobs j
            WHERE j.automation_id = p_automation_id AND j.status = 'queued' AND j.key_value IS NOT NULL AND j.key_value = v_state_row.key_value
              AND j.available_at <= now() AND j.id <> ALL (v_passed) AND j.id <> ALL (v_picked)
            ORDER BY j.priority DESC NULLS LAST, j.available_at, j.seq
            LIMIT 1;
            IF v_head_id IS NULL THEN
              -- Nothing due: with nothing queued and nothing running the value goes idle (see job_key_states).
              -- SKIP LOCKED: an insert of this value holds its row FOR SHARE until it commits; it is not idle then.
              IF coalesce((v_running ->> (v_state_row.key_value::text))::integer, 0) = 0 THEN
                PERFORM 1 FROM job_key_states ks WHERE ks.automation_id = p_automation_id AND ks.key_value = v_state_row.key_value
                FOR UPDATE SKIP LOCKED;
                IF FOUND AND NOT EXISTS (
                  SELECT 1 FROM jobs j WHERE j.automation_id = p_automation_id AND j.status = 'queued' AND j.key_value IS NOT NULL
                    AND j.key_value = v_state_row.key_value
                ) THEN
                  UPDATE job_key_states ks SET waiting = false WHERE ks.automation_id = p_automation_id AND ks.key_value = v_state_row.key_value;
                END IF;
              END IF;
              CONTINUE;
            END IF;
            IF v_pick_id IS NULL OR v_head_priority > v_best_priority THEN
              v_pick_id := v_head_id;
              v_pick_key := v_state_row.key_value;
              v_best_priority := v_head_priority;
            END IF;
            EXIT WHEN v_best_priority >= v_top;
          END LOOP;
        END IF;
      END IF;
      EXIT WHEN v_pick_id IS NULL;
      -- A never-started value's job is taken out of the list whether it starts or is found locked.
      IF v_never_started_next <= cardinality(v_never_started) AND v_never_started[v_never_started_next] = v_pick_id THEN
        v_never_started_next := v_never_started_next + 1;
      END IF;

      PERFORM 1 FROM jobs j WHERE j.id = v_pick_id AND j.status = 'queued' FOR UPDATE SKIP LOCKED;
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
        IF v_rate_count IS NULL THEN
          INSERT INTO job_key_states AS ks (automation_id, key_value, last_start) VALUES (p_automation_id, v_pick_key, v_state.start_count)
          ON CONFLICT (automation_id, key_value) DO UPDATE SET last_start = excluded.last_start;
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
    s.run_at, s.schedule_id, s.fire_time
  FROM (SELECT 1) AS one
  LEFT JOIN (unnest(v_picked) WITH ORDINALITY AS p(id, n) JOIN jobs s ON s.id = p.id) ON true
  ORDER BY p.n;
END;
$$;
