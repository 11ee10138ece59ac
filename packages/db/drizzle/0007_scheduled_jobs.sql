-- migration: additive. New nullable columns and a queued-jobs index replacing another: builds before it never write the columns, and their queries stay correct (only the index they used is gone).
DROP INDEX "jobs_queued_idx";--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "run_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "schedule_id" uuid;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "fire_time" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "jobs_queued_available_idx" ON "jobs" USING btree ("available_at","id") WHERE "jobs"."status" = 'queued';