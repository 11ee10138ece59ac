-- migration: additive. A new job_logs table, and new nullable or defaulted columns on jobs (progress, log counters) and workers (the previous key of a rotation with overlap) that builds before it never read; their deletes of jobs take the lines along (cascade).
-- Log lines live in PostgreSQL, never in the outbox (CONTRACT §6.12). The key is (job_id, seq):
-- lines are read by job in seq order, and a job's lines go with it. seq is per job, assigned from
-- the job row's log_seq under its row lock, so it increases in order of acceptance (commit order)
-- and a reader that has seen seq n has seen every line before it. level is pino's number
-- (smallint), attempt a smallint (max_attempts ≤ 100): 36 bytes of fixed columns a line.
ALTER TABLE "jobs" ADD COLUMN "progress" jsonb;
--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "log_seq" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "log_bytes" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "log_truncated" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
CREATE TABLE "job_logs" (
	"job_id" uuid NOT NULL,
	"seq" bigint NOT NULL,
	"ts" timestamp (3) with time zone NOT NULL,
	"attempt" smallint NOT NULL,
	"level" smallint NOT NULL,
	"message" text NOT NULL,
	CONSTRAINT "job_logs_pkey" PRIMARY KEY("job_id","seq"),
	CONSTRAINT "job_logs_level_check" CHECK ("level" in (20, 30, 40, 50))
);
--> statement-breakpoint
ALTER TABLE "job_logs" ADD CONSTRAINT "job_logs_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
-- Worker key rotation with an overlap (CONTRACT §6.12): the key before the last rotation keeps
-- working until previous_api_key_expires_at; a rotation replaces it, so there is one at most.
ALTER TABLE "workers" ADD COLUMN "previous_api_key_hash" text;
--> statement-breakpoint
ALTER TABLE "workers" ADD COLUMN "previous_api_key_expires_at" timestamp (3) with time zone;
--> statement-breakpoint
CREATE UNIQUE INDEX "workers_previous_api_key_hash_key" ON "workers" USING btree ("previous_api_key_hash") WHERE "workers"."previous_api_key_hash" is not null;
