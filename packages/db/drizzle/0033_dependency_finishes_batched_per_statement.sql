-- migration: additive. One trigger recreated with a wider WHEN; builds before it send the same statements and see the
-- same releases and cancels.
--
-- jobs_finish_dependency (migration 0028) now notes each finished job with dependents as the row is updated
-- (hub_note_finished_dependency_v1, packages/db/functions/), so that when the statement's row triggers fire, the first
-- of them finds every job this statement finished and runs one wave for all of them (hub_finish_dependency_v1): a
-- complete-batch that finishes sixteen dependencies of one fan-in rewrites the fan-in once, not sixteen times. The
-- note function is a stand-in here (it notes nothing and lets the trigger fire for every row, so the body in place
-- until the function files are applied, which handles its own row, stays exact); its file defines it after the
-- migrations.
CREATE FUNCTION hub_note_finished_dependency_v1(p_id uuid, p_status text) RETURNS boolean LANGUAGE sql VOLATILE AS $$ SELECT true $$;--> statement-breakpoint
DROP TRIGGER jobs_finish_dependency ON jobs;--> statement-breakpoint
CREATE TRIGGER jobs_finish_dependency AFTER UPDATE OF status ON jobs
  FOR EACH ROW WHEN (NEW.has_dependents AND NEW.status IN ('completed','failed','cancelled') AND OLD.status NOT IN ('completed','failed','cancelled')
    AND hub_note_finished_dependency_v1(NEW.id, NEW.status))
  EXECUTE FUNCTION hub_finish_dependency_v1();
