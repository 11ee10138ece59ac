-- Until when a maintenance window holds an automation's jobs (CONTRACT §6.18), NULL when none does now: read by the
-- claim (hub_claim_jobs_v3, only once its own probe found a window), the waiting reason and resumes_at of GET
-- /jobs/{id}, the stats' maintenance_until and the gauge hub_maintenance_active.
--
-- An occurrence (maintenance_occurrences, one row per occurrence of a window, overlapping occurrences of one window
-- already merged when written) of a window scoped to the automation, its sector or every automation (the nil uuid)
-- holds it from its start to its end; with drain, also from timeout_seconds before its start (nothing when
-- p_timeout_seconds is NULL). Occurrences of different windows that overlap make one (§6.18): the end is followed
-- through every occurrence that holds the automation at or before the end found so far, so a job held by two
-- windows in a row resumes at the last end, not between them.
CREATE OR REPLACE FUNCTION "hub_maintenance_until"(
  p_automation_id uuid, p_sector_id uuid, p_timeout_seconds integer
) RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_lead interval := CASE WHEN p_timeout_seconds IS NULL THEN interval '0' ELSE make_interval(secs => p_timeout_seconds) END;
  v_until timestamptz;
  v_next timestamptz;
BEGIN
  SELECT max(o.ends_at) INTO v_until FROM maintenance_occurrences o
  WHERE o.scope_id IN (p_automation_id, p_sector_id, '00000000-0000-0000-0000-000000000000'::uuid) AND o.ends_at > now()
    AND (o.starts_at <= now() OR (o.drain AND o.starts_at < now() + v_lead));
  IF v_until IS NULL THEN
    RETURN NULL;
  END IF;
  LOOP
    SELECT max(o.ends_at) INTO v_next FROM maintenance_occurrences o
    WHERE o.scope_id IN (p_automation_id, p_sector_id, '00000000-0000-0000-0000-000000000000'::uuid) AND o.ends_at > v_until
      AND (o.starts_at <= v_until OR (o.drain AND o.starts_at < v_until + v_lead));
    EXIT WHEN v_next IS NULL;
    v_until := v_next;
  END LOOP;
  RETURN v_until;
END;
$$;
