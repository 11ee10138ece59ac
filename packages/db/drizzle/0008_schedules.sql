-- migration: additive. A new table, and a foreign key and indexes on jobs.schedule_id, which builds before it leave null.
CREATE TABLE "schedules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"automation_id" uuid NOT NULL,
	"key" text,
	"cron" text NOT NULL,
	"timezone" text NOT NULL,
	"context" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"priority" integer DEFAULT 0 NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"overlap" text DEFAULT 'skip' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"next_run_at" timestamp (3) with time zone,
	"last_run_at" timestamp (3) with time zone,
	"last_job_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp (3) with time zone,
	CONSTRAINT "schedules_priority_check" CHECK ("schedules"."priority" between -100 and 100),
	CONSTRAINT "schedules_overlap_check" CHECK ("schedules"."overlap" in ('skip','allow'))
);
--> statement-breakpoint
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_automation_id_automations_id_fk" FOREIGN KEY ("automation_id") REFERENCES "public"."automations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_last_job_id_jobs_id_fk" FOREIGN KEY ("last_job_id") REFERENCES "public"."jobs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "schedules_automation_key_key" ON "schedules" USING btree ("automation_id","key") WHERE "schedules"."key" is not null and "schedules"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "schedules_created_idx" ON "schedules" USING btree ("created_at","id") WHERE "schedules"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "schedules_automation_created_idx" ON "schedules" USING btree ("automation_id","created_at","id") WHERE "schedules"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "schedules_next_run_idx" ON "schedules" USING btree ("next_run_at") WHERE "schedules"."next_run_at" is not null;--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_schedule_id_schedules_id_fk" FOREIGN KEY ("schedule_id") REFERENCES "public"."schedules"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_schedule_fire_key" ON "jobs" USING btree ("schedule_id","fire_time") WHERE "jobs"."schedule_id" is not null;--> statement-breakpoint
CREATE INDEX "jobs_schedule_active_idx" ON "jobs" USING btree ("schedule_id") WHERE "jobs"."schedule_id" is not null and "jobs"."status" in ('queued','running');