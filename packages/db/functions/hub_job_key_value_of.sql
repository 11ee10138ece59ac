CREATE OR REPLACE FUNCTION "hub_job_key_value_of"(context jsonb, concurrency_key text) RETURNS jsonb
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN concurrency_key IS NULL THEN NULL ELSE coalesce(context -> concurrency_key, 'null'::jsonb) END $$;
