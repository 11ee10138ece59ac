/** A job's log lines read back by seq (CONTRACT §6.12): GET /jobs/{id}/logs and the log stream. */
import { JOB_LOG_LEVEL_CODES, jobLogLevelOf, type JobLogLevel } from "@hub/shared";
import { runStatement, type Executor, type NamedStatement } from "../../executor";

/** One stored line. */
export interface Line {
  seq: number;
  ts: Date;
  level: JobLogLevel;
  message: string;
  attempt: number;
}

export interface ListQuery {
  /** Only lines after this seq. */
  afterSeq?: number | undefined;
  /** Only lines of this attempt. */
  attempt?: number | undefined;
  /** Only lines of this level and above. */
  minLevel?: JobLogLevel | undefined;
  limit: number;
}

const listStatement: NamedStatement = {
  name: "hub_job_logs_list",
  text: `select seq, ts, attempt, level, message from job_logs
  where job_id = $1 and seq > $2::bigint and ($3::int is null or attempt = $3::int) and level >= $4::smallint
  order by seq limit $5`,
};

interface LogRow {
  seq: string;
  ts: Date;
  attempt: number;
  level: number;
  message: string;
}

/** A job's lines in seq order (through the primary key), at most `limit`. */
export async function list(executor: Executor, jobId: string, query: ListQuery): Promise<Line[]> {
  const rows = await runStatement<LogRow>(executor, listStatement, [
    jobId,
    query.afterSeq ?? 0,
    query.attempt ?? null,
    JOB_LOG_LEVEL_CODES[query.minLevel ?? "debug"],
    query.limit,
  ]);
  return rows.map((row) => ({ seq: Number(row.seq), ts: row.ts, attempt: row.attempt, level: jobLogLevelOf(row.level), message: row.message }));
}
