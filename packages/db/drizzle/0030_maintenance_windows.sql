-- migration: additive. Two new tables that builds before them never read; the claim reads them (packages/db/functions/hub_claim_jobs_v3.sql, whose body changes with this migration; its signature does not).
-- Maintenance windows (CONTRACT §6.18): while one is in effect no job of its scope starts. A window is what people set
-- up (one-off: starts_at/ends_at; recurring: cron + timezone + duration_seconds). Its occurrences are rows of their own,
-- written by the API in the transaction that creates or changes the window and kept 8 days ahead by the dispatchers
-- (apps/dispatcher/src/tasks/maintenance.ts), so the claim reads a table, never a cron expression.
--
-- maintenance_occurrences.scope_id is the automation's id, the sector's id, or the nil uuid for every automation: the
-- claim (packages/db/functions/hub_claim_jobs_v3.sql) probes maintenance_occurrences_end_idx once for the occurrences
-- that have not ended (`ends_at > now()`) and filters its automation's three scope ids on the included columns. With no
-- window defined that is one probe of an empty index (one descent; a scope-first index took one descent per scope id).
-- started_at / ended_at say when maintenance_window.started / .ended were written: the row is stamped in the
-- transaction that writes the event, so each is written once whatever the number of dispatchers.
CREATE TABLE maintenance_windows (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  automation_id uuid REFERENCES automations(id),
  sector_id uuid REFERENCES sectors(id),
  starts_at timestamp(3) with time zone,
  ends_at timestamp(3) with time zone,
  cron text,
  timezone text,
  duration_seconds integer,
  drain boolean NOT NULL DEFAULT false,
  description text NOT NULL DEFAULT '',
  filled_until timestamp(3) with time zone,
  created_at timestamp(3) with time zone NOT NULL DEFAULT now(),
  updated_at timestamp(3) with time zone NOT NULL DEFAULT now(),
  deleted_at timestamp(3) with time zone,
  CONSTRAINT maintenance_windows_scope_check CHECK (automation_id IS NULL OR sector_id IS NULL),
  CONSTRAINT maintenance_windows_form_check CHECK (
    (starts_at IS NOT NULL AND ends_at IS NOT NULL AND ends_at > starts_at AND cron IS NULL AND timezone IS NULL AND duration_seconds IS NULL)
    OR (starts_at IS NULL AND ends_at IS NULL AND cron IS NOT NULL AND timezone IS NOT NULL AND duration_seconds BETWEEN 60 AND 604800)
  )
);--> statement-breakpoint
CREATE INDEX maintenance_windows_created_idx ON maintenance_windows (created_at, id) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX maintenance_windows_fill_idx ON maintenance_windows (filled_until) WHERE deleted_at IS NULL AND cron IS NOT NULL;--> statement-breakpoint
CREATE TABLE maintenance_occurrences (
  window_id uuid NOT NULL REFERENCES maintenance_windows(id),
  starts_at timestamp(3) with time zone NOT NULL,
  ends_at timestamp(3) with time zone NOT NULL,
  scope_id uuid NOT NULL,
  drain boolean NOT NULL,
  started_at timestamp(3) with time zone,
  ended_at timestamp(3) with time zone,
  PRIMARY KEY (window_id, starts_at),
  CONSTRAINT maintenance_occurrences_span_check CHECK (ends_at >= starts_at)
);--> statement-breakpoint
CREATE INDEX maintenance_occurrences_end_idx ON maintenance_occurrences (ends_at) INCLUDE (scope_id, starts_at, drain);--> statement-breakpoint
CREATE INDEX maintenance_occurrences_start_due_idx ON maintenance_occurrences (starts_at) WHERE started_at IS NULL;--> statement-breakpoint
CREATE INDEX maintenance_occurrences_end_due_idx ON maintenance_occurrences (ends_at) WHERE ended_at IS NULL;
-- hub_claim_jobs_v3's window check and hub_maintenance_until: packages/db/functions holds their bodies, applied after the migrations.
