/** What a job's log readers follow besides the lines (CONTRACT §6.12): its status, progress and last seq. */
import type { JobProgress, JobStatus } from "@hub/shared";
import { runStatement, type Executor, type NamedStatement } from "../../executor";
import { automationIdReachedText, reachesEverything, type Reach } from "../../reach";

/** What a log stream follows of its job besides the lines. */
export interface LogState {
  status: JobStatus;
  progress: JobProgress | null;
  /** The job's highest seq (0: no line yet). */
  lastSeq: number;
}

const stateStatement: NamedStatement = {
  name: "hub_job_logs_state",
  // As shown: a held job reads `queued` (jobs/hold.ts).
  text: "select case when status = 'held' then 'queued' else status end as status, progress, log_seq from jobs where id = $1",
};

type LogStateRow = { status: JobStatus; progress: JobProgress | null; log_seq: string };

/**
 * The job's status, progress and last seq; null when there is no such job or its automation lies
 * outside `reach`. The unscoped read stays the named statement; a scoped one adds its predicate.
 */
export async function readLogState(executor: Executor, reach: Reach, jobId: string): Promise<LogState | null> {
  let row: LogStateRow | undefined;
  if (reachesEverything(reach)) {
    [row] = await runStatement<LogStateRow>(executor, stateStatement, [jobId]);
  } else {
    const reached = automationIdReachedText(reach, "jobs.automation_id", 2);
    const result = await executor.query<LogStateRow>({ text: `${stateStatement.text} and ${reached.text}`, values: [jobId, ...reached.values] });
    row = result.rows[0];
  }
  return row ? { status: row.status, progress: row.progress, lastSeq: Number(row.log_seq) } : null;
}
