-- The key trigger on jobs (BEFORE INSERT, for rows whose key_value is not NULL): marks the job's key value waiting in
-- job_key_states and keeps the head of a value that never started (hub_claim_jobs_v3's comment says what both are
-- for). The statements that insert jobs (packages/db/src/sql/jobs/insert.ts, retry.ts, sql/schedules/fire.ts) set
-- key_value themselves, hub_job_key_value_of(context, concurrency_key) of the automation row they hold FOR KEY SHARE.
-- key_value's default is a marker, '{"hub": "key_value not set"}': an insert that leaves the column out (an older
-- build, a fixture) has the key computed here. Each statement of a VOLATILE function takes a fresh snapshot, so the
-- key read for such a row is the one committed when the row is inserted. A statement that computes a value equal to
-- the marker (a context could hold that object) only has it computed again, the same way.
--
-- The fast path stays a FOR SHARE read (concurrent inserts do not wait on each other; it keeps a claim from marking
-- the value idle before this insert commits) whenever the value waits and the job does not precede its head: every
-- job of a started value, and every job of a backlog inserted in claim order but its first.
CREATE OR REPLACE FUNCTION "hub_job_key_value"() RETURNS trigger LANGUAGE plpgsql VOLATILE AS $$
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
