-- migration: additive. Nullable columns without defaults (no table rewrite; builds before it never name them), a
-- status check that admits `held` (added NOT VALID, then validated without blocking writes), a partial GIN index
-- with no entry for a job without dependencies, and a row trigger whose WHEN clause is false unless the finished job
-- has dependents, so finishing any other job calls no function.
--
-- `held` (CONTRACT §6.16, §6.17): a queued job that may not be handed out yet. Claims, dispatch scans, queue
-- positions and queue counts read `status = 'queued'` alone and so never see it; the API shows it as `queued`.
ALTER TABLE "jobs" ADD COLUMN "depends_on" uuid[];--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "on_dependency_failure" text;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "pending_dependencies" integer;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "has_dependents" boolean;--> statement-breakpoint
ALTER TABLE "jobs" DROP CONSTRAINT "jobs_status_check";--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_status_check" CHECK ("jobs"."status" in ('queued','running','completed','failed','cancelled','held')) NOT VALID;--> statement-breakpoint
ALTER TABLE "jobs" VALIDATE CONSTRAINT "jobs_status_check";--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_on_dependency_failure_check" CHECK ("jobs"."on_dependency_failure" in ('cancel','run'));--> statement-breakpoint
CREATE INDEX "jobs_depends_on_idx" ON "jobs" USING gin ("depends_on") WHERE "jobs"."depends_on" is not null;--> statement-breakpoint
-- The retries of a job (POST /jobs/{id}/retry with with_dependents skips a dependent already retried); a job that is
-- no retry has no entry.
CREATE INDEX "jobs_retry_of_idx" ON "jobs" USING btree ("retry_of") WHERE "jobs"."retry_of" is not null;--> statement-breakpoint
-- A schedule's overlap check (`overlap: "skip"`) counts a held job as the queued job it is.
DROP INDEX "jobs_schedule_active_idx";--> statement-breakpoint
CREATE INDEX "jobs_schedule_active_idx" ON "jobs" USING btree ("schedule_id") WHERE "jobs"."schedule_id" is not null and "jobs"."status" in ('queued','held','running');--> statement-breakpoint
-- The body is packages/db/functions/hub_finish_dependency_v1.sql, applied after the migrations; this stand-in lets the
-- trigger be created here.
CREATE FUNCTION hub_finish_dependency_v1() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;--> statement-breakpoint
CREATE TRIGGER jobs_finish_dependency AFTER UPDATE OF status ON jobs
  FOR EACH ROW WHEN (NEW.has_dependents AND NEW.status IN ('completed','failed','cancelled') AND OLD.status NOT IN ('completed','failed','cancelled'))
  EXECUTE FUNCTION hub_finish_dependency_v1();
