-- The WHEN clause of the trigger jobs_finish_dependency (migration 0033) calls this as each row a statement finishes
-- is updated, for a job with dependents only: it notes the job for the statement's dependency wave
-- (hub_finish_dependency_v1) and says whether the trigger fires for this row. It fires for the first job noted: row
-- triggers fire when the statement has updated all its rows, so that one call finds every job the statement noted
-- and handles them in one wave. A statement finishing sixteen jobs with dependents so calls the trigger once.
--
-- The notes are two transaction-local settings, comma lists of ids: `hub.completed_dependencies` and
-- `hub.failed_dependencies` (ended `failed` or `cancelled`); the wave empties them. A statement rolled back to a
-- savepoint takes its notes with it. Past 1,000 noted jobs (each note copies the list) a job is not noted and the
-- trigger fires for it alone, as it did for every job before migration 0033. While a wave runs
-- (`hub.finishing_dependencies` on), the jobs it cancels are its own to cascade: the trigger does not fire for them.
CREATE OR REPLACE FUNCTION "hub_note_finished_dependency_v1"(p_id uuid, p_status text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_completed text := coalesce(current_setting('hub.completed_dependencies', true), '');
  v_failed text := coalesce(current_setting('hub.failed_dependencies', true), '');
BEGIN
  IF current_setting('hub.finishing_dependencies', true) = 'on' THEN
    RETURN false;
  END IF;
  -- An id is 36 characters and a comma.
  IF octet_length(v_completed) + octet_length(v_failed) >= 37 * 1000 THEN
    RETURN true;
  END IF;
  IF p_status = 'completed' THEN
    PERFORM set_config('hub.completed_dependencies', CASE WHEN v_completed = '' THEN '' ELSE v_completed || ',' END || p_id::text, true);
  ELSE
    PERFORM set_config('hub.failed_dependencies', CASE WHEN v_failed = '' THEN '' ELSE v_failed || ',' END || p_id::text, true);
  END IF;
  RETURN v_completed = '' AND v_failed = '';
END $$;
