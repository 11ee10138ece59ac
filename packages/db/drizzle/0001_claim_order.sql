-- migration: additive. New columns with defaults and a new index: a build before it inserts jobs without them and gets the defaults.
ALTER TABLE "jobs" ADD COLUMN "priority" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "available_at" timestamp (3) with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
-- Jobs created before this migration keep their place: available since they were created.
UPDATE "jobs" SET "available_at" = "created_at";--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "seq" bigint NOT NULL GENERATED ALWAYS AS IDENTITY (sequence name "jobs_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1);--> statement-breakpoint
CREATE INDEX "jobs_claim_idx" ON "jobs" USING btree ("automation_id","priority" DESC NULLS LAST,"available_at","seq") WHERE "jobs"."status" = 'queued';
