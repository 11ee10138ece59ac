-- migration: additive. New nullable columns and an index on job_key_states, a new helper function, and new bodies (same signatures) for the key trigger and hub_claim_jobs_v3: builds before it call the same functions and insert the same rows.
-- The keyed claim read every waiting value that never started, with a probe of its jobs each, on every call: 5.5 ms
-- of PostgreSQL per claim with a month-end round of 999 customers' first jobs waiting. Now a value that never started
-- keeps the place in claim order of its first queued job (its head) in its job_key_states row, and the claim reads
-- those values in head order: packages/db/functions/hub_claim_jobs_v3.sql says why that order is exact.
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
