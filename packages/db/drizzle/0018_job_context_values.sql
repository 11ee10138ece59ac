-- migration: additive. A new table filled by new triggers on jobs: builds before it read and write jobs as before (the triggers keep the table in step with their writes too).
-- GET /jobs's context filters (CONTRACT §6.14) must give the newest page of the jobs whose context
-- holds a string value at a key in a few milliseconds whatever the number of matches. An index
-- on jobs.context cannot: a GIN index yields the matches unordered, so every match's row is read
-- and sorted (10,000 matches: 10,000 rows, tens of milliseconds and more). Here each top-level
-- string pair of a job's context is one row, keyed by a 64-bit hash of the pair
-- (`{"<name>": "<value>"}` as jsonb text) and ordered as GET /jobs is, so the first page is the
-- first 100 entries of one index range. A hash collision only makes the query's recheck of
-- jobs.context drop a row. Triggers on jobs keep the table in step, whatever inserts or deletes
-- jobs (POST /jobs, batches, retries, schedule fires, retention); nothing updates a job's context
-- or created_at, and a trigger keeps the table right if something ever does.
CREATE TABLE "job_context_values" (
	"pair_hash" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"job_id" uuid NOT NULL,
	"automation_id" uuid NOT NULL
);--> statement-breakpoint
CREATE FUNCTION hub_job_context_pair_hash(name text, value jsonb) RETURNS bigint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT hashtextextended(jsonb_build_object(name, value)::text, 0) $$;--> statement-breakpoint
CREATE FUNCTION hub_record_job_context_values() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO job_context_values (pair_hash, created_at, job_id, automation_id)
  SELECT hub_job_context_pair_hash(pair.key, pair.value), j.created_at, j.id, j.automation_id
  FROM new_jobs j CROSS JOIN LATERAL jsonb_each(j.context) AS pair
  WHERE jsonb_typeof(pair.value) = 'string';
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION hub_forget_job_context_values() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM job_context_values v
  USING old_jobs j CROSS JOIN LATERAL jsonb_each(j.context) AS pair
  WHERE jsonb_typeof(pair.value) = 'string'
    AND v.pair_hash = hub_job_context_pair_hash(pair.key, pair.value) AND v.created_at = j.created_at AND v.job_id = j.id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION hub_rewrite_job_context_values() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;--> statement-breakpoint
CREATE TRIGGER jobs_record_context_values AFTER INSERT ON jobs
  REFERENCING NEW TABLE AS new_jobs FOR EACH STATEMENT EXECUTE FUNCTION hub_record_job_context_values();--> statement-breakpoint
CREATE TRIGGER jobs_forget_context_values AFTER DELETE ON jobs
  REFERENCING OLD TABLE AS old_jobs FOR EACH STATEMENT EXECUTE FUNCTION hub_forget_job_context_values();--> statement-breakpoint
CREATE TRIGGER jobs_rewrite_context_values AFTER UPDATE OF context, created_at, automation_id ON jobs
  FOR EACH ROW WHEN (OLD.context IS DISTINCT FROM NEW.context OR OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.automation_id IS DISTINCT FROM NEW.automation_id)
  EXECUTE FUNCTION hub_rewrite_job_context_values();--> statement-breakpoint
INSERT INTO job_context_values (pair_hash, created_at, job_id, automation_id)
SELECT hub_job_context_pair_hash(pair.key, pair.value), j.created_at, j.id, j.automation_id
FROM jobs j CROSS JOIN LATERAL jsonb_each(j.context) AS pair
WHERE jsonb_typeof(pair.value) = 'string';--> statement-breakpoint
CREATE INDEX "job_context_values_pair_created_idx" ON "job_context_values" USING btree ("pair_hash","created_at","job_id") INCLUDE ("automation_id");
