-- migration: additive. Nullable and defaulted columns build before them never read, and a trigger that only NOTIFYs.
-- Users reach sectors (CONTRACT §6.22): `sector_ids` null is every sector, else the sectors an
-- employee reaches. Api keys carry scopes fixed at creation: the automations they reach, read-only,
-- and the role an admin's key acts with. API processes keep users and keys in caches emptied by
-- `hub_credentials_changed` (migration 0005), so a change of a user's sectors announces itself
-- there too, from whichever writer made it: every process narrows what the user reaches within 1 s.
ALTER TABLE users ADD COLUMN sector_ids uuid[];--> statement-breakpoint
ALTER TABLE users ADD CONSTRAINT users_sector_ids_check CHECK (sector_ids IS NULL OR cardinality(sector_ids) BETWEEN 1 AND 100);--> statement-breakpoint
ALTER TABLE api_keys ADD COLUMN automation_ids uuid[];--> statement-breakpoint
ALTER TABLE api_keys ADD COLUMN read_only boolean NOT NULL DEFAULT false;--> statement-breakpoint
ALTER TABLE api_keys ADD COLUMN acts_as_role text;--> statement-breakpoint
ALTER TABLE api_keys ADD CONSTRAINT api_keys_automation_ids_check CHECK (automation_ids IS NULL OR cardinality(automation_ids) BETWEEN 1 AND 100);--> statement-breakpoint
ALTER TABLE api_keys ADD CONSTRAINT api_keys_acts_as_role_check CHECK (acts_as_role IS NULL OR acts_as_role = 'employee');--> statement-breakpoint
CREATE TRIGGER users_sectors_changed
  AFTER UPDATE OF sector_ids ON users
  FOR EACH STATEMENT EXECUTE FUNCTION hub_notify_credentials_changed();
