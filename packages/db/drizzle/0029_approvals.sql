-- migration: additive. Approvals (CONTRACT §6.17): an automation's approval settings and a job's approval, in columns older builds never name.
-- Automations: whether their jobs need a person's approval, who may give it, and how long a request waits before it
-- expires (null: never). The defaults are constants, so adding the columns rewrites no table.
ALTER TABLE "automations" ADD COLUMN "requires_approval" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "automations" ADD COLUMN "approver_ids" uuid[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "automations" ADD COLUMN "approval_timeout_seconds" integer;--> statement-breakpoint
ALTER TABLE "automations" ADD CONSTRAINT "automations_approval_timeout_seconds_check" CHECK ("approval_timeout_seconds" between 60 and 2592000);--> statement-breakpoint
ALTER TABLE "automations" ADD CONSTRAINT "automations_approver_ids_check" CHECK (cardinality("approver_ids") <= 50);--> statement-breakpoint
-- Jobs: the approval of a job that needs one; every column null for a job that does not (no default, no rewrite).
-- `approval_status` null = no approval; requested_at is the job's created_at. `approval_decided_by` has no foreign
-- key: its check would be a trigger call on every job insert, and users are never deleted (only deactivated).
ALTER TABLE "jobs" ADD COLUMN "approval_status" text;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "approval_expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "approval_decided_by" uuid;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "approval_decided_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "approval_comment" text;--> statement-breakpoint
-- NOT VALID, then VALIDATE: the scan of existing jobs (all null) runs without blocking writes.
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_approval_status_check" CHECK ("approval_status" in ('pending','approved','rejected','expired','withdrawn')) NOT VALID;--> statement-breakpoint
ALTER TABLE "jobs" VALIDATE CONSTRAINT "jobs_approval_status_check";--> statement-breakpoint
-- GET /approvals: the pending approvals, oldest first, keyset-paged. A job without an approval has no entry.
CREATE INDEX "jobs_approval_pending_idx" ON "jobs" ("created_at", "id") WHERE "approval_status" = 'pending';--> statement-breakpoint
-- The dispatchers' expiry: pending approvals by when they expire; one probe of a small index when none is due.
CREATE INDEX "jobs_approval_expiry_idx" ON "jobs" ("approval_expires_at") WHERE "approval_status" = 'pending' AND "approval_expires_at" IS NOT NULL;
-- A dependent awaiting approval stays held when its last dependency finishes: a diff of
-- packages/db/functions/hub_finish_dependency_v1.sql, which the same trigger calls.
