-- Records a start in a ring (resized first when its length is not p_count): the time pushed is the later of now()
-- and the newest entry, so the ring stays in time order (hub_claim_jobs_v3's comment says why that is the limit).
CREATE OR REPLACE FUNCTION "hub_start_ring_push"(INOUT p_starts timestamptz[], INOUT p_head integer, p_count integer)
LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF cardinality(p_starts) <> p_count OR p_head NOT BETWEEN 1 AND p_count THEN
    p_starts := hub_start_ring_normalized(p_starts, p_head, p_count);
    p_head := 1;
  END IF;
  -- greatest() ignores NULL: an empty slot before head means no newer start.
  p_starts[p_head] := greatest(now(), p_starts[CASE WHEN p_head = 1 THEN p_count ELSE p_head - 1 END]);
  p_head := p_head % p_count + 1;
END;
$$;
