/**
 * GET /jobs/{job_id}/logs/stream (CONTRACT §6.12): a job's log lines as server-sent events — the
 * stored lines after `Last-Event-ID` (a seq) or all of them, the progress once when there is one,
 * then new lines, progress changes, and `event: end` once the job finished.
 *
 * PostgreSQL is the only source: the stream reads the job's lines after the last seq it handled,
 * in seq order. Because a job's seqs are assigned under its row lock and committed in that order
 * (@hub/db sql/job-logs/append.ts), "after the last seq" never skips a line, and a resume — on any process,
 * after any restart — is exact. It reads again when the job is announced (./job-log-feed.ts: a
 * line or progress accepted, the job finished, cancelled or queued again, by any process) and
 * every {@link JOB_LOG_STREAM_RECHECK_MS}, which covers a lost announcement (Redis away). Reads of
 * one stream never overlap: a change that arrives during a read makes one more read after it.
 *
 * `event: end` carries `id: end`, so the client's EventSource reconnects with `Last-Event-ID: end`
 * and gets a 204, on which it stops (CONTRACT §6.12, §6.21): never a loop of ends.
 */
import type { Request, Response } from "express";
import { jobLogs, jobs } from "@hub/db";
import { FINISHED_JOB_STATUSES, type JobLogLevel, type JobStatus } from "@hub/shared";
import type { AppContext } from "../context";
import type { UserCaller } from "../http/auth";
import { NotFoundError } from "../http/http-errors";
import { drained, openEventStream, sseMessage } from "../http/sse";
import { USER_MAX_STREAMS } from "../events/event-stream";
import { toJobLogLineRecord } from "./job-logs.service";

/** The `id:` of `event: end`, and the `Last-Event-ID` a client that saw it reconnects with. */
export const END_EVENT_ID = "end";

/** How often an open stream reads its job again, announcements aside (a lost one). */
export const JOB_LOG_STREAM_RECHECK_MS = 2000;
/** Lines one read takes; a stream catching up reads batch after batch. */
const READ_BATCH_LINES = 200;
/** Unsent bytes a stream lets pile up before it waits for the client to read. */
const MAX_BUFFERED_BYTES = 256 * 1024;

export interface JobLogStreamRequest {
  ctx: AppContext;
  req: Request;
  res: Response;
  caller: UserCaller;
  jobId: string;
  minLevel: JobLogLevel | undefined;
  /** The `Last-Event-ID` header: a seq, or anything else (read as absent). */
  lastEventId: string | undefined;
}

/** A `Last-Event-ID` as a seq: a non-negative integer, else undefined (CONTRACT §6.15: never 500). */
export function seqFromLastEventId(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,15}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

/**
 * Answers the request with the stream and keeps it open until the job finished (after `end`), the
 * client leaves, its credential stops being valid or the API shuts down. 404 for an unknown job,
 * 429 at the caller's cap, both before anything is sent; after the 404, a client that already saw
 * `end` (`Last-Event-ID: end`) gets 204, whatever the job's status now.
 */
export async function serveJobLogStream({ ctx, req, res, caller, jobId, minLevel, lastEventId }: JobLogStreamRequest): Promise<"streamed" | "ended"> {
  const pool = ctx.database.pool;
  // What the caller reaches now: narrowed by a change of its sectors, the stream ends as if the job were gone.
  let reach = caller.reach;
  if (!(await jobs.readLogState(pool, reach, jobId))) throw new NotFoundError("Job not found");
  if (lastEventId?.trim() === END_EVENT_ID) return "ended";
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    res.end();
  };
  const resumeAfter = seqFromLastEventId(lastEventId);
  const releaseSlot = await ctx.streamSlots.take({
    stream: "job_logs",
    owner: `user:${caller.user.id}`,
    cap: USER_MAX_STREAMS,
    resuming: resumeAfter !== undefined,
    displace: end,
  });
  if (res.closed) {
    releaseSlot();
    return "streamed";
  }

  /** Every line up to this seq was handled (sent, or filtered out). */
  let handledSeq = resumeAfter ?? 0;
  /** The progress the client was last sent, as JSON; "null" before any. */
  let sentProgress = "null";
  let reading = false;
  let readAgain = false;
  /** The recheck and heartbeat timers, once the stream is open. */
  const timers: NodeJS.Timeout[] = [];

  const write = async (chunk: string) => {
    if (ended) return;
    res.write(chunk);
    if (res.writableLength > MAX_BUFFERED_BYTES) await drained(res);
  };

  const sendLinesAfter = async (state: jobs.LogState) => {
    // Every line up to state.lastSeq was committed with the counter: reading past handledSeq finds
    // them all (and any committed since, with higher seqs).
    if (state.lastSeq <= handledSeq) return;
    for (;;) {
      const lines = await jobLogs.list(pool, jobId, { afterSeq: handledSeq, minLevel, limit: READ_BATCH_LINES });
      for (const line of lines) {
        if (ended) return;
        await write(sseMessage({ id: line.seq, data: JSON.stringify(toJobLogLineRecord(line)) }));
        handledSeq = line.seq;
      }
      if (lines.length < READ_BATCH_LINES) break;
    }
    // Lines filtered out by level up to the counter were handled too.
    handledSeq = Math.max(handledSeq, state.lastSeq);
  };

  const readOnce = async () => {
    // The state first: a job seen finished here has all its lines committed, so `end` follows them all.
    const state = await jobs.readLogState(pool, reach, jobId);
    if (!state) return end();
    await sendLinesAfter(state);
    const progress = JSON.stringify(state.progress);
    if (progress !== sentProgress && !ended) {
      sentProgress = progress;
      await write(sseMessage({ event: "progress", data: progress }));
    }
    if ((FINISHED_JOB_STATUSES as readonly JobStatus[]).includes(state.status)) {
      await write(sseMessage({ id: END_EVENT_ID, event: "end", data: JSON.stringify({ status: state.status }) }));
      end();
    }
  };

  const read = async () => {
    if (reading) {
      readAgain = true;
      return;
    }
    reading = true;
    try {
      do {
        readAgain = false;
        await readOnce();
      } while (readAgain && !ended);
    } catch (error) {
      // PostgreSQL unreachable: the next announcement or recheck reads again from handledSeq.
      req.log.warn({ err: error }, "job log stream could not read its job; reading again later");
    } finally {
      reading = false;
    }
  };

  // Followed before the first read: a change committed meanwhile is read, at the latest, after it.
  const unfollow = ctx.jobLogs.follow(jobId, { changed: () => void read(), close: end });
  const untrack = ctx.streams.track({
    name: "job_logs",
    req,
    requirement: "user",
    onCaller: (current) => {
      reach = current.reach;
      void read();
    },
    end,
  });
  res.once("close", () => {
    ended = true;
    for (const timer of timers) clearInterval(timer);
    unfollow();
    untrack();
    releaseSlot();
  });
  if (ended) return "streamed";

  openEventStream(req, res);
  timers.push(
    setInterval(() => void read(), JOB_LOG_STREAM_RECHECK_MS),
    setInterval(() => void write(": heartbeat\n\n"), ctx.env.HUB_EVENTS_STREAM_HEARTBEAT_SECONDS * 1000),
  );
  await read();
  return "streamed";
}
