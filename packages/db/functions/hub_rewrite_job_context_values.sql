-- AFTER UPDATE of a job's context, created_at or automation_id: rewrites its pairs in job_context_values.
CREATE OR REPLACE FUNCTION hub_rewrite_job_context_values() RETURNS trigger LANGUAGE plpgsql AS $$
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
