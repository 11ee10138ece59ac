-- migration: additive. New tables builds before it never touch, and a defaulted column on webhooks they never read.
-- Alerts (CONTRACT §6.19): the rules people set up, the state of each alert (a rule and one automation) while its
-- condition holds, the history of resolved alerts, and the one row that makes each evaluation round happen once
-- whatever the number of dispatchers. No foreign key from an alert to its automation: the evaluation never waits on
-- an automation's row lock (a deactivation holds it while it resolves that automation's alerts).
CREATE TABLE "alert_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"automation_id" uuid,
	"kind" text NOT NULL,
	"threshold" double precision,
	"for_seconds" integer DEFAULT 0 NOT NULL,
	"window_seconds" integer DEFAULT 900 NOT NULL,
	"min_jobs" integer DEFAULT 10 NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"created_by" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alert_rules_kind_check" CHECK ("alert_rules"."kind" in ('queue_age','queue_depth','failure_rate','worker_offline','job_duration')),
	CONSTRAINT "alert_rules_for_seconds_check" CHECK ("alert_rules"."for_seconds" between 0 and 86400),
	CONSTRAINT "alert_rules_window_seconds_check" CHECK ("alert_rules"."window_seconds" between 60 and 86400),
	CONSTRAINT "alert_rules_min_jobs_check" CHECK ("alert_rules"."min_jobs" between 1 and 10000)
);
--> statement-breakpoint
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_automation_id_automations_id_fk" FOREIGN KEY ("automation_id") REFERENCES "public"."automations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_rules_created_idx" ON "alert_rules" USING btree ("created_at","id");--> statement-breakpoint
CREATE TABLE "alert_states" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"rule_id" uuid NOT NULL,
	"automation_id" uuid NOT NULL,
	"pending_since" timestamp (3) with time zone NOT NULL,
	"firing_since" timestamp (3) with time zone,
	"value" double precision NOT NULL,
	"message" text NOT NULL,
	CONSTRAINT "alert_states_rule_id_automation_id_pk" PRIMARY KEY("rule_id","automation_id")
);
--> statement-breakpoint
CREATE INDEX "alert_states_firing_idx" ON "alert_states" USING btree ("firing_since","id") WHERE "alert_states"."firing_since" is not null;--> statement-breakpoint
CREATE INDEX "alert_states_automation_idx" ON "alert_states" USING btree ("automation_id");--> statement-breakpoint
CREATE TABLE "alert_history" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"rule_id" uuid NOT NULL,
	"automation_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"value" double precision NOT NULL,
	"threshold" double precision,
	"message" text NOT NULL,
	"since" timestamp (3) with time zone NOT NULL,
	"resolved_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "alert_history_resolved_idx" ON "alert_history" USING btree ("resolved_at","id");--> statement-breakpoint
CREATE TABLE "alert_evaluator" (
	"id" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"last_evaluated_at" timestamp (3) with time zone DEFAULT '-infinity' NOT NULL,
	CONSTRAINT "alert_evaluator_one_row_check" CHECK ("alert_evaluator"."id")
);
--> statement-breakpoint
INSERT INTO "alert_evaluator" ("id") VALUES (true);--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "format" text DEFAULT 'standard' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_format_check" CHECK ("webhooks"."format" in ('standard','slack'));
