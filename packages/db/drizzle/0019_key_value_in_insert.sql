-- migration: additive. Builds before it insert jobs without key_value: the column's new default makes the trigger compute it for them as before, and the context-values triggers do what they did.
-- A job insert of an automation without a concurrency_key cost two lookups per row more than before
-- migration 0017 (CONTRACT §6.13 wants that path to cost what it did): the key trigger read the
-- automation for every row, and 0018's hash of a context pair, a SQL function PostgreSQL would not
-- inline (declared IMMUTABLE around the STABLE jsonb_build_object), ran as a statement of its own
-- per string pair. Now:
-- - The statements that insert jobs (packages/db/src/sql/jobs/insert.ts, retry.ts,
--   sql/schedules/fire.ts) set key_value themselves, hub_job_key_value_of(context, concurrency_key)
--   of the automation row they hold FOR KEY SHARE. A PUT that changes the key takes that row FOR
--   UPDATE before it rewrites the jobs (jobs.rekey), so an insert either read the key and commits
--   before the rewrite, which then covers its jobs, or waits and reads the new key: the key cannot
--   change between the read and the commit (sql/jobs/key-value.test.ts shows both orders).
-- - key_value's default is a marker, '{"hub": "key_value not set"}': an insert that leaves the
--   column out (a build before this one, a fixture) gets the key computed by the trigger as 0017
--   did. A statement that computes a value equal to the marker (a context could hold that object)
--   only has it computed again, the same way.
-- - The trigger fires only for rows whose key_value is not NULL (WHEN, evaluated without calling
--   the function): jobs of automations without a key cost nothing more. For keyed rows it marks the
--   value waiting (job_key_states), as before.
-- - hub_job_context_pair_hash is declared STABLE, which it is at least, so it is inlined into
--   the triggers' and GET /jobs's statements; its results are unchanged.
-- hub_job_key_value_of: packages/db/functions/hub_job_key_value_of.sql holds its body, applied after the migrations.
--> statement-breakpoint
ALTER TABLE "jobs" ALTER COLUMN "key_value" SET DEFAULT '{"hub": "key_value not set"}'::jsonb;
--> statement-breakpoint
-- hub_job_key_value: packages/db/functions/hub_job_key_value.sql holds its body, applied after the migrations.
--> statement-breakpoint
DROP TRIGGER "jobs_key_value" ON "jobs";
--> statement-breakpoint
CREATE TRIGGER "jobs_key_value" BEFORE INSERT ON "jobs" FOR EACH ROW WHEN (NEW.key_value IS NOT NULL) EXECUTE FUNCTION "hub_job_key_value"();
--> statement-breakpoint
ALTER FUNCTION "hub_job_context_pair_hash"(text, jsonb) STABLE;
