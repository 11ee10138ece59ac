-- migration: additive. Two nullable columns without defaults: no table rewrite, and builds before it never name them.
-- The W3C trace context of the request (or schedule fire) that created a job (CONTRACT §6.20): the parent of every
-- attempt's `job.run` span and what a claim hands the worker. Null when tracing was off at creation.
ALTER TABLE "jobs" ADD COLUMN "traceparent" text;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "tracestate" text;
