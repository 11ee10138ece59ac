-- A job's key value (hub_claim_jobs_v3's comment: "Where the state lives"): its context's value of the automation's
-- concurrency_key as JSON, JSON null when the context lacks it, NULL when the automation has no key. The statements
-- that insert jobs compute it with this, and so does the key trigger for an insert that left it out.
CREATE OR REPLACE FUNCTION "hub_job_key_value_of"(context jsonb, concurrency_key text) RETURNS jsonb
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN concurrency_key IS NULL THEN NULL ELSE coalesce(context -> concurrency_key, 'null'::jsonb) END $$;
