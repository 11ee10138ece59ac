-- AFTER DELETE on jobs, per statement: forgets the deleted jobs' pairs in job_context_values.
CREATE OR REPLACE FUNCTION hub_forget_job_context_values() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM job_context_values v
  USING old_jobs j CROSS JOIN LATERAL jsonb_each(j.context) AS pair
  WHERE jsonb_typeof(pair.value) = 'string'
    AND v.pair_hash = hub_job_context_pair_hash(pair.key, pair.value) AND v.created_at = j.created_at AND v.job_id = j.id;
  RETURN NULL;
END $$;
