-- The key of one string pair of a job's context in job_context_values, which GET /jobs's context filter probes.
-- Declared STABLE (what jsonb_build_object is) rather than IMMUTABLE so that PostgreSQL inlines it into the triggers'
-- and GET /jobs's statements instead of running it as a statement of its own per pair; its results never change.
CREATE OR REPLACE FUNCTION hub_job_context_pair_hash(name text, value jsonb) RETURNS bigint
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT hashtextextended(jsonb_build_object(name, value)::text, 0) $$;
