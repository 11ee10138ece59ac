-- migration: additive. Drops foreign keys older builds never rely on and adds indexes.
-- Retention (README "Retention"): old finished jobs are removed while rows that name them stay.
-- A retry's retry_of, a schedule's last_job_id and an expired Idempotency-Key binding may name a
-- removed job (reading it answers 404), so their foreign keys go: they would refuse the removal,
-- and each check would cost a scan per removed job (none of the three columns is indexed).
-- jobs_finished_idx lets a sweep read finished jobs oldest outcome first; webhook_deliveries_event_idx
-- serves the "no pending delivery" check and the remaining foreign key's check on each removed event.
-- Additive for older builds: they neither rely on the dropped constraints nor see the new indexes.
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_job_id_jobs_id_fk";
--> statement-breakpoint
ALTER TABLE "jobs" DROP CONSTRAINT "jobs_retry_of_jobs_id_fk";
--> statement-breakpoint
ALTER TABLE "schedules" DROP CONSTRAINT "schedules_last_job_id_jobs_id_fk";
--> statement-breakpoint
CREATE INDEX "jobs_finished_idx" ON "jobs" USING btree ("finished_at") WHERE "jobs"."status" in ('completed','failed','cancelled');--> statement-breakpoint
CREATE INDEX "webhook_deliveries_event_idx" ON "webhook_deliveries" USING btree ("event_id");