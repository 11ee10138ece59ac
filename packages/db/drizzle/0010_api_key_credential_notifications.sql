-- migration: additive. A trigger that only NOTIFYs a channel builds before it do not listen on; no row changes.
-- Api keys join users and workers on `hub_credentials_changed` (migration 0005): revoking a key,
-- or changing what it opens, announces itself, so API processes can keep the keys they looked up
-- and still refuse a revoked one from the next request. `last_used_at` is not among the columns:
-- its once-a-minute writes change nothing a cached key decides.
CREATE TRIGGER api_keys_credentials_changed
  AFTER UPDATE OF revoked_at, expires_at, digest, user_id OR DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION hub_notify_credentials_changed();
