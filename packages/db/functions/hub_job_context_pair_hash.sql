CREATE OR REPLACE FUNCTION hub_job_context_pair_hash(name text, value jsonb) RETURNS bigint
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT hashtextextended(jsonb_build_object(name, value)::text, 0) $$;
