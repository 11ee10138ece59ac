-- AFTER INSERT on jobs, per statement: records each string pair of the new jobs' contexts in job_context_values.
CREATE OR REPLACE FUNCTION hub_record_job_context_values() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO job_context_values (pair_hash, created_at, job_id, automation_id)
  SELECT hub_job_context_pair_hash(pair.key, pair.value), j.created_at, j.id, j.automation_id
  FROM new_jobs j CROSS JOIN LATERAL jsonb_each(j.context) AS pair
  WHERE jsonb_typeof(pair.value) = 'string';
  RETURN NULL;
END $$;
