-- Every change that can make a credential stop working announces itself on the channel `hub_credentials_changed`,
-- from the database itself (triggers on users, workers and api_keys), so that no writer (the API, a script, an
-- operator's psql) can forget to. API processes keep what they verified on this channel's word
-- (apps/api/src/http/credential-cache.ts) and forget it when a notification arrives. NOTIFY is delivered at commit
-- only (never for a rolled-back change) and folded per transaction.
CREATE OR REPLACE FUNCTION hub_notify_credentials_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('hub_credentials_changed', TG_TABLE_NAME);
  RETURN NULL;
END;
$$;
