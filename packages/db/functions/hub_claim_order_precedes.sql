-- Whether a job at (p1, a1, s1) comes before one at (p2, a2, s2) in claim order (CONTRACT §6.8: priority descending,
-- then available_at, then seq). The key trigger (hub_job_key_value) keeps a never-started value's head with it.
CREATE OR REPLACE FUNCTION "hub_claim_order_precedes"(p1 integer, a1 timestamptz, s1 bigint, p2 integer, a2 timestamptz, s2 bigint)
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT p1 > p2 OR (p1 = p2 AND (a1, s1) < (a2, s2)) $$;
