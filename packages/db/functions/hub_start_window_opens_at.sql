-- When the window next allows a start: the oldest of the last p_count starts plus the period; NULL when fewer than
-- p_count starts were recorded (it allows one now). A start is allowed when this is NULL or not after now().
CREATE OR REPLACE FUNCTION "hub_start_window_opens_at"(p_starts timestamptz[], p_head integer, p_count integer, p_period_seconds integer)
RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN cardinality(p_starts) = p_count THEN p_starts[p_head]
    ELSE (hub_start_ring_normalized(p_starts, p_head, p_count))[1] END
    + make_interval(secs => p_period_seconds)
$$;
