-- migration: additive. New nullable or defaulted columns, their checks and a foreign key on the new column: a build before it never writes them.
ALTER TABLE "automations" ADD COLUMN "max_attempts" integer;--> statement-breakpoint
ALTER TABLE "automations" ADD COLUMN "retry_backoff_seconds" integer DEFAULT 10 NOT NULL;--> statement-breakpoint
ALTER TABLE "automations" ADD COLUMN "timeout_seconds" integer;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "retry_of" uuid;--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_retry_of_jobs_id_fk" FOREIGN KEY ("retry_of") REFERENCES "public"."jobs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automations" ADD CONSTRAINT "automations_max_attempts_check" CHECK ("automations"."max_attempts" between 1 and 100);--> statement-breakpoint
ALTER TABLE "automations" ADD CONSTRAINT "automations_retry_backoff_seconds_check" CHECK ("automations"."retry_backoff_seconds" between 0 and 3600);--> statement-breakpoint
ALTER TABLE "automations" ADD CONSTRAINT "automations_timeout_seconds_check" CHECK ("automations"."timeout_seconds" between 1 and 86400);
