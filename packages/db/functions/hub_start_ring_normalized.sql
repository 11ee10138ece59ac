-- A ring's start times oldest first, resized to p_count entries: the newest kept, NULLs (no start) in front. The
-- rings of rate limits are described in hub_claim_jobs_v3's comment.
CREATE OR REPLACE FUNCTION "hub_start_ring_normalized"(p_starts timestamptz[], p_head integer, p_count integer)
RETURNS timestamptz[] LANGUAGE sql IMMUTABLE AS $$
  SELECT array_fill(NULL::timestamptz, ARRAY[greatest(p_count - count(*), 0)::integer])
    || coalesce((array_agg(r.t ORDER BY r.n))[greatest(count(*) - p_count, 0) + 1:], '{}')
  FROM (
    SELECT s.t, CASE WHEN s.n >= p_head THEN s.n - p_head ELSE s.n + cardinality(p_starts) END AS n
    FROM unnest(p_starts) WITH ORDINALITY AS s(t, n)
  ) r
  WHERE r.t IS NOT NULL
$$;
