-- migration: additive. Limits per key, rate limits and fair sharing (CONTRACT §6.13): new nullable automation columns, a job key column set by a trigger, start-state tables and hub_claim_jobs_v3; builds before it keep calling hub_claim_jobs_v2, which stays.
-- The state the claim keeps (jobs.key_value, automation_start_states, job_key_states) and the rules it follows are
-- described beside the claim, packages/db/functions/hub_claim_jobs_v3.sql. The key trigger's function is created here
-- as it was then, because the trigger names it; packages/db/functions/hub_job_key_value.sql holds its current body.

ALTER TABLE "automations" ADD COLUMN "concurrency_key" text;
ALTER TABLE "automations" ADD COLUMN "max_concurrent_per_key" integer;
ALTER TABLE "automations" ADD COLUMN "rate_limit_count" integer;
ALTER TABLE "automations" ADD COLUMN "rate_limit_period_seconds" integer;
ALTER TABLE "automations" ADD COLUMN "rate_limit_per_key" boolean DEFAULT false NOT NULL;
ALTER TABLE "automations" ADD CONSTRAINT "automations_max_concurrent_per_key_check"
  CHECK ("max_concurrent_per_key" IS NULL OR ("max_concurrent_per_key" >= 1 AND "max_concurrent_per_key" <= 1000));
ALTER TABLE "automations" ADD CONSTRAINT "automations_rate_limit_count_check"
  CHECK ("rate_limit_count" IS NULL OR ("rate_limit_count" >= 1 AND "rate_limit_count" <= 100000));
ALTER TABLE "automations" ADD CONSTRAINT "automations_rate_limit_period_seconds_check"
  CHECK ("rate_limit_period_seconds" IS NULL OR ("rate_limit_period_seconds" >= 1 AND "rate_limit_period_seconds" <= 86400));
-- A key and its per-key limit come together; a rate limit is a count and a period; per_key needs both a limit and a key.
ALTER TABLE "automations" ADD CONSTRAINT "automations_concurrency_key_check"
  CHECK (("concurrency_key" IS NULL) = ("max_concurrent_per_key" IS NULL));
ALTER TABLE "automations" ADD CONSTRAINT "automations_rate_limit_check"
  CHECK (("rate_limit_count" IS NULL) = ("rate_limit_period_seconds" IS NULL)
    AND (NOT "rate_limit_per_key" OR ("rate_limit_count" IS NOT NULL AND "concurrency_key" IS NOT NULL)));

ALTER TABLE "jobs" ADD COLUMN "key_value" jsonb;
CREATE INDEX "jobs_key_claim_idx" ON "jobs" USING btree ("automation_id", "key_value", "priority" DESC NULLS LAST, "available_at", "seq")
  WHERE "status" = 'queued' AND "key_value" IS NOT NULL;

CREATE TABLE "automation_start_states" (
  "automation_id" uuid PRIMARY KEY NOT NULL REFERENCES "automations"("id"),
  "start_count" bigint DEFAULT 0 NOT NULL,
  "starts" timestamptz[] DEFAULT '{}' NOT NULL,
  "head" integer DEFAULT 1 NOT NULL
);

CREATE TABLE "job_key_states" (
  "automation_id" uuid NOT NULL REFERENCES "automations"("id"),
  "key_value" jsonb NOT NULL,
  "waiting" boolean DEFAULT true NOT NULL,
  "last_start" bigint,
  "starts" timestamptz[] DEFAULT '{}' NOT NULL,
  "head" integer DEFAULT 1 NOT NULL,
  PRIMARY KEY ("automation_id", "key_value")
);
-- The claim's walk: the waiting values of an automation, never started (NULL) apart, the others by last start.
CREATE INDEX "job_key_states_waiting_idx" ON "job_key_states" USING btree ("automation_id", "last_start") WHERE "waiting";

CREATE FUNCTION "hub_job_key_value"() RETURNS trigger LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_key text;
BEGIN
  SELECT a.concurrency_key INTO v_key FROM automations a WHERE a.id = NEW.automation_id;
  NEW.key_value := CASE WHEN v_key IS NULL THEN NULL ELSE coalesce(NEW.context -> v_key, 'null'::jsonb) END;
  IF NEW.key_value IS NOT NULL THEN
    -- Its value waits from now on. FOR SHARE (concurrent inserts do not wait on each other) keeps a claim from
    -- marking the value idle before this insert commits; a value not waiting yet is (re)marked.
    PERFORM 1 FROM job_key_states ks WHERE ks.automation_id = NEW.automation_id AND ks.key_value = NEW.key_value AND ks.waiting FOR SHARE;
    IF NOT FOUND THEN
      INSERT INTO job_key_states (automation_id, key_value, waiting) VALUES (NEW.automation_id, NEW.key_value, true)
      ON CONFLICT (automation_id, key_value) DO UPDATE SET waiting = true;
    END IF;
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER "jobs_key_value" BEFORE INSERT ON "jobs" FOR EACH ROW EXECUTE FUNCTION "hub_job_key_value"();
-- hub_start_ring_normalized: packages/db/functions/hub_start_ring_normalized.sql holds its body, applied after the migrations.
-- hub_start_window_opens_at: packages/db/functions/hub_start_window_opens_at.sql holds its body, applied after the migrations.
-- hub_start_ring_push: packages/db/functions/hub_start_ring_push.sql holds its body, applied after the migrations.
-- hub_claim_jobs_v3: packages/db/functions/hub_claim_jobs_v3.sql holds its body, applied after the migrations.
