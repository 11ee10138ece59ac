-- migration: additive. Which running jobs the previous worker key holds while a rotation's overlap lasts, so they go back to the queue when that key stops working (CONTRACT §6.21).
-- A row exists only for a job claimed or last heartbeated with the previous key during an overlap, in that attempt;
-- every other running job of the worker is held by its current key. Rows of another attempt or of a job no longer
-- running mean nothing (they are read through the job's row) and go when the overlap ends.
CREATE TABLE "worker_key_holds" (
  "job_id" uuid PRIMARY KEY REFERENCES "jobs" ("id") ON DELETE CASCADE,
  "worker_id" uuid NOT NULL REFERENCES "workers" ("id") ON DELETE CASCADE,
  "attempt" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX "worker_key_holds_worker_idx" ON "worker_key_holds" ("worker_id");
--> statement-breakpoint
-- The overlap sweep finds the previous keys whose time is up without reading every worker.
CREATE INDEX "workers_previous_api_key_expires_idx" ON "workers" ("previous_api_key_expires_at") WHERE "previous_api_key_expires_at" IS NOT NULL;
