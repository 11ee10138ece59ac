-- Jobs with dependents have finished (CONTRACT §6.16): the trigger jobs_finish_dependency (migrations 0028, 0033)
-- calls this after an UPDATE that made them `completed`, `failed` (for good: a re-queue is not a finish) or
-- `cancelled`, whatever statement did it — a worker's complete or fail, a batch of them, complete-and-claim, the lease
-- and timeout sweeps, a cancel, a bulk cancel, a deactivation. Its WHEN clause reads `has_dependents`, so a job no job
-- waits for never calls this function, and notes each finished job (hub_note_finished_dependency_v1.sql), so that it
-- is called once per statement, for the first job noted, and handles every job the statement finished in one wave:
-- a batch finishing sixteen dependencies of one fan-in locks and rewrites the fan-in once.
--
-- In the finishing transaction, under the row locks of the dependents (taken in id order; when one of the finished
-- jobs failed, every job its cascade can reach and every direct dependent, before the first wave):
-- - each held dependent counts as many dependencies fewer as the wave finished of its own (`pending_dependencies`);
-- - under `on_dependency_failure = 'cancel'` (null reads so), a dependency that ended `failed` or `cancelled` cancels
--   the dependent: `cancelled`, with `job.cancelled` {automation_id, reason: "dependency_failed", dependency_id}
--   (the first of its own `depends_on` that ended so in this wave) and the actor of the change that caused it
--   (`hub.actor_id`, set locally by the cancel statements; null for a worker's or a sweep's change);
-- - otherwise a dependent whose count reaches 0 is released: `queued`, `available_at` the later of its own and now
--   (the release rule of packages/db/src/sql/jobs/hold.ts). The process that finished the job offers it to dispatch
--   after its commit; the dispatcher's reconciler offers any it did not.
-- - a dependent whose approval is still pending (CONTRACT §6.17) stays held when its last dependency finishes (it
--   waits for both), and one cancelled while its approval is pending has it `withdrawn`.
-- The jobs this cancels are finished in their turn, and their dependents are handled the same way, wave after wave,
-- in this one call (their trigger does not fire: `hub.finishing_dependencies` is on), so a cascade of any depth costs
-- no stack and one statement per wave however many dependents a wave has.
--
-- Exactly once: the dependent's count is read and written under its row lock on the row's latest version, so two
-- dependencies finishing at the same instant on two connections decrement it one after the other, and only the
-- change that takes it to 0 releases it; each finished job is either noted once and taken by its statement's wave,
-- or has a call of its own.
-- A job created with this one as a dependency locked this row first (so its finish waited for that commit and now
-- sees `has_dependents` and the dependent), or saw it finished.
--
-- Upgrading: the function files are applied after the migrations, so from migration 0033 until they are, the
-- trigger runs the body before this one (one wave per finished row, reading no notes) beside the stand-in of the
-- migration, which notes nothing and fires for every row; from then on, this body beside the note function. This
-- body also handles alone a job that no note names, so it is exact beside either.
--
-- Plans: generic, always (the SET below). PL/pgSQL plans its statements as a prepared statement's, custom plans first,
-- and kept planning the wave anew for the ids of each call, because a plan that knows the ids looks cheaper: 906 plans
-- in 1,333 waves of the flows bench, about 0.16 ms of CPU each by perf, a tenth of a wave's CPU (2026-12-07). The
-- generic plans are the ones statement-plans.test.ts checks.
CREATE OR REPLACE FUNCTION "hub_finish_dependency_v1"() RETURNS trigger LANGUAGE plpgsql VOLATILE
SET plan_cache_mode = force_generic_plan AS $$
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
