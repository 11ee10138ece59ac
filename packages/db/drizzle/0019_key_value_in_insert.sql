-- migration: additive. Builds before it insert jobs without key_value: the column's new default makes the trigger compute it for them as before, and the context-values triggers do what they did.
-- A job insert of an automation without a concurrency_key cost two lookups per row more than before 0017: the key
-- trigger read the automation for every row, and the context-pair hash, a SQL function PostgreSQL would not inline,
-- ran as a statement of its own per string pair. Now the statements that insert jobs set key_value themselves
-- (hub_job_key_value_of), the column's default is a marker that has the trigger compute it for inserts that leave it
-- out, the trigger fires only for rows whose key_value is not NULL, and the pair hash is declared STABLE. The
-- functions' comments in packages/db/functions/ say how each works.
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
