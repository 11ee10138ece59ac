-- migration: additive. Indexes only (two rebuilt in another order, four new): builds before it read and write the same columns.
DROP INDEX "jobs_created_idx";--> statement-breakpoint
DROP INDEX "jobs_status_created_idx";--> statement-breakpoint
CREATE INDEX "automations_created_idx" ON "automations" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "jobs_automation_created_idx" ON "jobs" USING btree ("automation_id","created_at","id");--> statement-breakpoint
CREATE INDEX "sectors_created_idx" ON "sectors" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "users_active_created_idx" ON "users" USING btree ("created_at","id") WHERE "users"."is_active";--> statement-breakpoint
CREATE INDEX "jobs_created_idx" ON "jobs" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "jobs_status_created_idx" ON "jobs" USING btree ("status","created_at","id");