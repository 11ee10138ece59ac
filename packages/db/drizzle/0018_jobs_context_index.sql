-- migration: additive. One new index: builds before it read and write the same columns.
-- GET /jobs's context filters (CONTRACT §6.14) ask `context @> '{"<name>": "<value>"}'`, which a
-- GIN index with the jsonb_path_ops operator class answers from the hashes of each path and value
-- (smaller and cheaper to write than jsonb_ops, and @> is the only operator the hub asks). Built
-- without CONCURRENTLY, as every migration here (they run in one transaction): it holds writes to
-- jobs while it builds, a few seconds per million jobs. IF NOT EXISTS: an operator may have built
-- it beforehand with CREATE INDEX CONCURRENTLY (docs/operations.md, "Long migrations").
CREATE INDEX IF NOT EXISTS "jobs_context_idx" ON "jobs" USING gin ("context" jsonb_path_ops);
