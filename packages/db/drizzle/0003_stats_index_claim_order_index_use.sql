-- migration: additive. A new index and a new function (hub_claim_jobs) that builds before it never call.
CREATE INDEX "jobs_automation_finished_idx" ON "jobs" USING btree ("automation_id","status","finished_at") WHERE "jobs"."finished_at" is not null;--> statement-breakpoint
-- hub_claim_jobs: packages/db/functions/hub_claim_jobs.sql holds its body, applied after the migrations.
