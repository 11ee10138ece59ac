/**
 * A job's log as it grows: GET /jobs/{id}/logs/stream read with the typed client (the token in
 * the Authorization header, as for the event stream), from the first stored line. A dropped
 * connection is reopened with `Last-Event-ID` (the last line's `seq`), which the hub resumes
 * exactly; `event: end` says the job finished, and following stops there.
 */
import { useEffect, useState } from "react";
import { call, describeError, hub } from "./api";
import { pause, readMessages, reconnectDelayMs, type LiveStatus } from "./live";

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** One stored line, as the stream and `GET /jobs/{id}/logs` give it. */
export interface LogLine {
  seq: number;
  ts: string;
  level: LogLevel;
  message: string;
  attempt: number;
}

/** The job's progress as its worker last reported it. */
export interface JobProgress {
  percent: number | null;
  message: string | null;
  updated_at: string;
}

export interface JobLogHandlers {
  onLines(lines: LogLine[]): void;
  onProgress(progress: JobProgress | null): void;
  /** The job finished: the hub sent every line and closed the stream. */
  onEnd(status: string): void;
  onStatus(status: LiveStatus): void;
  /** The hub refused the request (not found, not allowed): following stops. */
  onRefused(detail: string): void;
}

/** Follows the job's log until it ends or `signal` aborts. */
export async function followJobLog(jobId: string, handlers: JobLogHandlers, signal: AbortSignal): Promise<void> {
  let lastSeq: number | undefined;
  let failures = 0;
  while (!signal.aborted) {
    handlers.onStatus(failures === 0 && lastSeq === undefined ? "connecting" : "reconnecting");
    let ended = false;
    try {
      const { data, error, response } = await hub.GET("/jobs/{job_id}/logs/stream", {
        params: { path: { job_id: jobId } },
        headers: lastSeq === undefined ? {} : { "Last-Event-ID": String(lastSeq) },
        parseAs: "stream",
        signal,
      });
      if (response.status === 401) return; // the session ended: the app signs out
      if (response.status >= 400 && response.status < 500 && response.status !== 429) {
        handlers.onRefused(await call(Promise.resolve({ error, response })).then(String, describeError));
        return;
      }
      if (response.ok && data) {
        failures = 0;
        handlers.onStatus("live");
        // Lines come in bursts (the stored ones at first): hand them on together, once per read.
        let burst: LogLine[] = [];
        await readMessages(
          data,
          signal,
          (message) => {
            if (message.event === "message") {
              const line = JSON.parse(message.data) as LogLine;
              // A resume is exact; this only guards against showing a line twice should it not be.
              if (lastSeq !== undefined && line.seq <= lastSeq) return;
              lastSeq = line.seq;
              burst.push(line);
              return;
            }
            if (burst.length > 0) handlers.onLines(burst);
            burst = [];
            if (message.event === "progress") handlers.onProgress(JSON.parse(message.data) as JobProgress | null);
            else if (message.event === "end") {
              ended = true;
              handlers.onEnd((JSON.parse(message.data) as { status: string }).status);
            }
          },
          () => {
            if (burst.length > 0) handlers.onLines(burst);
            burst = [];
          },
        );
      }
    } catch {
      // Network failure or abort: retried below unless aborted.
    }
    if (ended || signal.aborted) return;
    failures += 1;
    handlers.onStatus("reconnecting");
    await pause(reconnectDelayMs(failures), signal);
  }
}

/** What the job page shows of the log: every line so far, the progress, and the stream's state. */
export interface JobLogState {
  lines: LogLine[];
  /** The stream's latest progress; undefined until it said anything (the job record's then holds). */
  progress: JobProgress | null | undefined;
  status: LiveStatus | "ended";
  error: string | undefined;
}

/** Follows the job's log while the component is mounted. */
export function useJobLog(jobId: string): JobLogState {
  const [state, setState] = useState<JobLogState>({ lines: [], progress: undefined, status: "connecting", error: undefined });
  useEffect(() => {
    const abort = new AbortController();
    setState({ lines: [], progress: undefined, status: "connecting", error: undefined });
    void followJobLog(
      jobId,
      {
        onLines: (lines) => setState((previous) => ({ ...previous, lines: [...previous.lines, ...lines] })),
        onProgress: (progress) => setState((previous) => ({ ...previous, progress })),
        onEnd: () => setState((previous) => ({ ...previous, status: "ended" })),
        onStatus: (status) => setState((previous) => ({ ...previous, status })),
        onRefused: (error) => setState((previous) => ({ ...previous, error, status: "ended" })),
      },
      abort.signal,
    );
    return () => abort.abort();
  }, [jobId]);
  return state;
}

/** The lines as a text file: one line each, `<ts> <LEVEL> [attempt N] <message>`. */
export function logAsText(lines: LogLine[]): string {
  return lines.map((line) => `${line.ts} ${line.level.toUpperCase().padEnd(5)} [attempt ${line.attempt}] ${line.message}\n`).join("");
}
