-- migration: additive. New nullable columns and an index on job_key_states, a new helper function, and new bodies (same signatures) for the key trigger and hub_claim_jobs_v3: builds before it call the same functions and insert the same rows.
-- The keyed claim read every waiting value that never started, with a probe of its jobs each, on every call: with a
-- month-end round of 999 customers' first jobs waiting, 5.5 ms of PostgreSQL per claim on average and tens of ms in
-- that round (issue 27's keys bench: 2.4 ms of PostgreSQL per job of the 3.3 the claim cost), so the hub fell behind
-- exactly when fairness matters. Now a value that never started keeps the place in claim order of its first queued
-- job (its head) in its job_key_states row, and the claim reads those values in head order, stopping once it has its
-- p_max_jobs: about one probe per value taken.
--
-- The head is a lower bound, never later in claim order than the value's first queued job:
-- - the key trigger sets it when the value starts waiting and moves it earlier when a job inserted precedes it
--   (under the row's lock, so concurrent inserts compose); an insert that rolls back leaves it earlier still;
-- - a job leaving the queue (started, cancelled) only makes the value's first job later;
-- - a reschedule (the only change of a queued job's priority or available_at) moves it earlier when the job precedes it
--   (jobs.reschedule);
-- - NULL means unknown (rows written by a rekey, or before this migration): read first, as earlier than everything.
-- A probe reads the value's actual first due job. Reading values in head order, a probed job is final once the next
-- value's head comes after it, which is why the claim order of CONTRACT §6.13 (never started first, among themselves
-- in the order of their first due job) holds exactly, with heads exact or not; a value whose head is stale costs one
-- probe more. hub_claim_jobs_v3 below is 0017's with only the never-started read replaced (0017's comment describes
-- the rest); this file is now its source of truth.
-- hub_claim_order_precedes: packages/db/functions/hub_claim_order_precedes.sql holds its body, applied after the migrations.
--> statement-breakpoint
ALTER TABLE "job_key_states" ADD COLUMN "head_priority" integer;
--> statement-breakpoint
ALTER TABLE "job_key_states" ADD COLUMN "head_available_at" timestamptz;
--> statement-breakpoint
ALTER TABLE "job_key_states" ADD COLUMN "head_seq" bigint;
--> statement-breakpoint
-- The claim's read of the values that never started, in head order (unknown heads first).
CREATE INDEX "job_key_states_never_started_idx" ON "job_key_states" USING btree
  ("automation_id", "head_priority" DESC NULLS FIRST, "head_available_at" NULLS FIRST, "head_seq" NULLS FIRST)
  WHERE "waiting" AND "last_start" IS NULL;
--> statement-breakpoint
-- hub_job_key_value: packages/db/functions/hub_job_key_value.sql holds its body, applied after the migrations.
--> statement-breakpoint
-- hub_claim_jobs_v3: packages/db/functions/hub_claim_jobs_v3.sql holds its body, applied after the migrations.
