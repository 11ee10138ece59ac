-- migration: additive. A new partial index: builds before it never read it, and the jobs they insert without retry_of add no entry.
-- GET /jobs?retry_of=<job id> finds the retries of one job, so a failed job's page can link to its retry. Only retries
-- carry retry_of, so the index holds one entry per retry and nothing for a job made by POST /jobs or a schedule.
CREATE INDEX IF NOT EXISTS "jobs_retry_of_idx" ON "jobs" USING btree ("retry_of") WHERE "jobs"."retry_of" is not null;
