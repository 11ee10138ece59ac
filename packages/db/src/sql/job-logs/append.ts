/**
 * Job log lines (CONTRACT §6.12): a worker appends them under its lease; anyone who may read the
 * job reads them back by `seq`. They never enter the outbox. Lines go with their job: the foreign
 * key cascades, so retention's delete of a job takes them along.
 *
 * Order and the byte limit are decided under the job row's lock: the append locks the row
 * (`FOR NO KEY UPDATE`, as the lease fence's UPDATE would), reads `log_seq`, `log_bytes` and
 * `log_truncated` from its latest version, stores what fits and moves the counters, all in one
 * statement. Appends for one job therefore take turns, a line's seq is above every seq committed
 * before it, and a reader that has seen seq n has seen every line before n (a later commit can
 * only bring higher seqs): resuming after a seq is exact.
 */
import { JOB_LOG_LEVEL_CODES, jobLogLimitMessage, type JobLogLevel } from "@hub/shared";
import { runStatement, type Executor, type NamedStatement } from "../../executor";
import { leasedBy, ofAutomation } from "../jobs/row";
import type { LeaseHolder, LeaseRefusal } from "../jobs/lease";

/** One line as a worker sends it. */
export interface NewLine {
  message: string;
  level: JobLogLevel;
  /** As sent; undefined: the hub's time of acceptance. */
  ts?: Date | undefined;
}

export type AppendResult =
  | {
      ok: true;
      /** The request's lines stored (never the limit's marker line). */
      accepted: number;
      /** A line of this job was ever dropped at the limit (this request's or an earlier one's). */
      truncated: boolean;
      /** UTF-8 bytes of the messages stored by this request. */
      acceptedBytes: number;
      /** This request stored the limit's marker line. */
      markerStored: boolean;
      /** The job's highest seq after this request (0: no line yet). */
      lastSeq: number;
    }
  | { ok: false; refusal: LeaseRefusal };

/**
 * $1 job, $2 automation, $3 worker, $4 attempt (nullable), $5 messages, $6 level codes, $7 times
 * (null: now), $8 HUB_JOB_LOG_MAX_BYTES, $9 the marker's message.
 *
 * `held` locks the job row when it is running under the caller's lease (rechecked on the latest
 * version after a wait). `fits` is the longest prefix of the request whose bytes, added to the
 * job's, stay within the limit — nothing once the job's log was truncated. The marker goes in once,
 * with the seq after the last kept line, when this request is the first to drop a line.
 */
const appendStatement: NamedStatement = {
  name: "hub_job_logs_append",
  text: `
  with held as (
    select j.id, j.attempts, j.log_seq, j.log_bytes, j.log_truncated from jobs j
    where j.id = $1 and ${ofAutomation("$2")} and ${leasedBy("$3", "$4::int")}
    for no key update of j
  ), input as (
    select l.ord, l.message, l.level, l.ts, sum(octet_length(l.message)) over (order by l.ord) as upto
    from unnest($5::text[], $6::smallint[], $7::timestamptz[]) with ordinality as l(message, level, ts, ord)
  ), fits as (
    select i.* from input i, held h where not h.log_truncated and h.log_bytes + i.upto <= $8::bigint
  ), verdict as (
    select h.*, (select count(*) from fits) as kept, coalesce((select max(upto) from fits), 0) as kept_bytes,
      (not h.log_truncated and (select count(*) from fits) < (select count(*) from input)) as marker
    from held h
  ), stored as (
    insert into job_logs (job_id, seq, ts, attempt, level, message)
    select v.id, v.log_seq + f.ord, coalesce(f.ts, now()), v.attempts, f.level, f.message from verdict v, fits f
    union all
    select v.id, v.log_seq + v.kept + 1, now(), v.attempts, ${JOB_LOG_LEVEL_CODES.warn}, $9::text from verdict v where v.marker
  ), moved as (
    update jobs j set log_seq = v.log_seq + v.kept + (case when v.marker then 1 else 0 end),
      log_bytes = v.log_bytes + v.kept_bytes, log_truncated = v.log_truncated or v.marker
    from verdict v where j.id = v.id
    returning j.log_seq, j.log_truncated
  )
  select (select automation_id from jobs where id = $1) as owner_automation_id,
    v.kept, v.kept_bytes, v.marker, m.log_seq, m.log_truncated
  from (select 1) as one left join verdict v on true left join moved m on true`,
};

interface AppendRow {
  owner_automation_id: string | null;
  kept: string | null;
  kept_bytes: string | null;
  marker: boolean | null;
  log_seq: string | null;
  log_truncated: boolean | null;
}

/**
 * Appends a worker's lines to a job running under its lease, in input order, up to the job's byte
 * limit `maxBytes` (see the module comment). One statement.
 */
export async function append(executor: Executor, jobId: string, worker: LeaseHolder, lines: readonly NewLine[], maxBytes: number): Promise<AppendResult> {
  const [row] = await runStatement<AppendRow>(executor, appendStatement, [
    jobId,
    worker.automationId,
    worker.id,
    worker.attempt ?? null,
    lines.map((line) => line.message),
    lines.map((line) => JOB_LOG_LEVEL_CODES[line.level]),
    lines.map((line) => line.ts ?? null),
    maxBytes,
    jobLogLimitMessage(maxBytes),
  ]);
  if (!row || row.owner_automation_id !== worker.automationId) return { ok: false, refusal: "not_found" };
  if (row.kept === null || row.log_seq === null) return { ok: false, refusal: "not_leased" };
  return {
    ok: true,
    accepted: Number(row.kept),
    acceptedBytes: Number(row.kept_bytes),
    markerStored: row.marker === true,
    truncated: row.log_truncated === true,
    lastSeq: Number(row.log_seq),
  };
}
