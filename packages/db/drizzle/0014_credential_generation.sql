-- migration: additive. A defaulted column builds before it never read, and a trigger that only adds a column to the NOTIFY list.
-- Every user has a credential generation (CONTRACT §6.11): login tokens carry it as `gen`, and a
-- password change or reset, a role change or a deactivation adds 1 to it in the same transaction,
-- which refuses every token of the old generation. API processes keep users in a cache emptied by
-- `hub_credentials_changed` (migration 0005), so the column joins the columns that announce a change.
ALTER TABLE users ADD COLUMN credential_generation integer NOT NULL DEFAULT 0;--> statement-breakpoint
DROP TRIGGER users_credentials_changed ON users;--> statement-breakpoint
CREATE TRIGGER users_credentials_changed
  AFTER UPDATE OF is_active, role, password_hash, credential_generation OR DELETE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION hub_notify_credentials_changed();--> statement-breakpoint
-- GET /identity/users?include_inactive=true: every user, oldest first, keyset-paged.
CREATE INDEX users_created_idx ON users (created_at, id);
