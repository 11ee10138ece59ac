-- POST /jobs/{job_id}/complete-and-claim (CONTRACT §6.12) in one round trip and one transaction, where it took two of
-- each: the fenced complete of packages/db/src/sql/jobs/lease.ts (hub_jobs_complete) with its job.completed event,
-- then, when it was recorded, the claim of hub_claim_jobs_v4 for the slot it freed. One commit less per job, and one
-- statement the API sends and waits for less.
--
-- Why it is safe: both commit together or not at all. A result that is not recorded claims nothing; a claim that
-- fails fails the completion with it, which is then not recorded either (the request answers as a failed complete
-- does and the worker may send it again), so nothing is recorded twice or half. A process that dies after the commit
-- leaves a job running under a lease nobody holds, as a plain claim whose answer was lost does: the lease sweeper
-- queues it again.
--
-- Lock order: the automation row first (FOR NO KEY UPDATE, as the claim takes it anyway), then the job's row, the
-- house order (packages/db/src/sql/jobs/cancel.ts): deactivating (FOR UPDATE on the automation, then its jobs) waits
-- for this call or this call waits for it, never both. Completions alone still never lock the automation row.
--
-- The fence is hub_jobs_complete's (`ofAutomation` and `leasedBy` in packages/db/src/sql/jobs/row.ts), each test
-- written `(…) IS TRUE` so that the primary key alone finds the job (jobs/batch-fence-plans.test.ts): written
-- plainly, a custom plan of the UPDATE (PL/pgSQL plans its statements as a prepared statement's: custom plans first)
-- walked jobs_automation_created_idx whenever the statistics said the automation had few jobs, as they do for a
-- burst's automation until autovacuum analyses the table again, or jobs_running_lease_idx: every entry of the
-- automation, dead versions included, on each completion.
--
-- Returns, first, one row for the completion: row_kind 'completed' with the completed job's columns, or 'refused'
-- with owner_automation_id alone (the job's automation, NULL when there is no such job: the caller tells not_found
-- from not_leased by it) and nothing claimed. After 'completed', the rows of hub_claim_jobs_v4, row_kind 'claim'.
-- Each row carries the dependency and approval columns (v1's, which builds of before v2 call, do not: v1 is this
-- function with v1's columns): the completed job's has_dependents tells the API to offer what the completion released
-- (packages/db/src/sql/jobs/hold.ts). ROWS 2: the completion and, under load, the one job claimed.
CREATE OR REPLACE FUNCTION "hub_complete_and_claim_v2"(
  p_job_id uuid, p_automation_id uuid, p_worker_id uuid, p_attempt integer, p_result jsonb,
  p_max_jobs integer, p_lease_seconds integer, p_candidate_ids uuid[]
) RETURNS TABLE (
  row_kind text, owner_automation_id uuid,
  outcome text, slots_left integer, stale_ids uuid[], retry_after_ms integer,
  id uuid, automation_id uuid, status text, context jsonb, result jsonb, error text, attempts integer,
  created_by uuid, worker_id uuid, created_at timestamptz, started_at timestamptz, finished_at timestamptz,
  lease_expires_at timestamptz, priority integer, available_at timestamptz, seq bigint, retry_of uuid,
  run_at timestamptz, schedule_id uuid, fire_time timestamptz,
  progress jsonb, log_seq bigint, log_bytes bigint, log_truncated boolean,
  depends_on uuid[], on_dependency_failure text, has_dependents boolean,
  approval_status text, approval_expires_at timestamptz, approval_decided_by uuid, approval_decided_at timestamptz,
  approval_comment text
) ROWS 2 LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
  v_done jobs%ROWTYPE;
BEGIN
  PERFORM 1 FROM automations a WHERE a.id = p_automation_id FOR NO KEY UPDATE;

  UPDATE jobs j SET status = 'completed', result = p_result, finished_at = now(), lease_expires_at = NULL
  WHERE j.id = p_job_id AND (j.automation_id = p_automation_id) IS TRUE
    AND ((j.status = 'running') IS TRUE AND j.worker_id = p_worker_id AND (j.lease_expires_at > now()) IS TRUE
         AND (p_attempt IS NULL OR j.attempts = p_attempt))
  RETURNING j.* INTO v_done;

  IF NOT FOUND THEN
    RETURN QUERY SELECT 'refused'::text, (SELECT j.automation_id FROM jobs j WHERE j.id = p_job_id),
      NULL::text, NULL::integer, NULL::uuid[], NULL::integer,
      NULL::uuid, NULL::uuid, NULL::text, NULL::jsonb, NULL::jsonb, NULL::text, NULL::integer,
      NULL::uuid, NULL::uuid, NULL::timestamptz, NULL::timestamptz, NULL::timestamptz,
      NULL::timestamptz, NULL::integer, NULL::timestamptz, NULL::bigint, NULL::uuid,
      NULL::timestamptz, NULL::uuid, NULL::timestamptz,
      NULL::jsonb, NULL::bigint, NULL::bigint, NULL::boolean,
      NULL::uuid[], NULL::text, NULL::boolean, NULL::text, NULL::timestamptz, NULL::uuid, NULL::timestamptz, NULL::text;
    RETURN;
  END IF;

  INSERT INTO events (aggregate_id, event_type, actor_id, payload)
  VALUES (v_done.id, 'job.completed', NULL,
    jsonb_build_object('automation_id', v_done.automation_id, 'worker_id', v_done.worker_id, 'result', v_done.result));

  RETURN QUERY SELECT 'completed'::text, v_done.automation_id,
    NULL::text, NULL::integer, NULL::uuid[], NULL::integer,
    v_done.id, v_done.automation_id, v_done.status, v_done.context, v_done.result, v_done.error, v_done.attempts,
    v_done.created_by, v_done.worker_id, v_done.created_at::timestamptz, v_done.started_at::timestamptz,
    v_done.finished_at::timestamptz, v_done.lease_expires_at::timestamptz, v_done.priority,
    v_done.available_at::timestamptz, v_done.seq, v_done.retry_of, v_done.run_at::timestamptz, v_done.schedule_id,
    v_done.fire_time::timestamptz, v_done.progress, v_done.log_seq, v_done.log_bytes, v_done.log_truncated,
    v_done.depends_on, v_done.on_dependency_failure, v_done.has_dependents, v_done.approval_status,
    v_done.approval_expires_at::timestamptz, v_done.approval_decided_by, v_done.approval_decided_at::timestamptz,
    v_done.approval_comment;

  RETURN QUERY SELECT 'claim'::text, p_automation_id,
    c.outcome, c.slots_left, c.stale_ids, c.retry_after_ms,
    c.id, c.automation_id, c.status, c.context, c.result, c.error, c.attempts, c.created_by, c.worker_id,
    c.created_at, c.started_at, c.finished_at, c.lease_expires_at, c.priority, c.available_at, c.seq, c.retry_of,
    c.run_at, c.schedule_id, c.fire_time, NULL::jsonb, NULL::bigint, NULL::bigint, NULL::boolean,
    c.depends_on, c.on_dependency_failure, c.has_dependents, c.approval_status, c.approval_expires_at,
    c.approval_decided_by, c.approval_decided_at, c.approval_comment
  FROM hub_claim_jobs_v4(p_automation_id, p_worker_id, p_max_jobs, p_lease_seconds, p_candidate_ids) c;
END;
$$;
