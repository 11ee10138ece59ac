/** What a job's log readers follow besides the lines (CONTRACT §6.12): its status, progress and last seq. */
import type { JobProgress, JobStatus } from "@hub/shared";
import { runStatement, type Executor, type NamedStatement } from "../../executor";

/** What a log stream follows of its job besides the lines. */
export interface LogState {
  status: JobStatus;
  progress: JobProgress | null;
  /** The job's highest seq (0: no line yet). */
  lastSeq: number;
}

const stateStatement: NamedStatement = {
  name: "hub_job_logs_state",
  text: "select status, progress, log_seq from jobs where id = $1",
};

/** The job's status, progress and last seq; null when there is no such job. */
export async function readLogState(executor: Executor, jobId: string): Promise<LogState | null> {
  const [row] = await runStatement<{ status: JobStatus; progress: JobProgress | null; log_seq: string }>(executor, stateStatement, [jobId]);
  return row ? { status: row.status, progress: row.progress, lastSeq: Number(row.log_seq) } : null;
}
