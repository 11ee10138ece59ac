/** What the logs mode's live-control part (./cancel.ts) measures: the signals streams' memory and cancel-to-signal. */
import type { AuditCheck } from "../lib/audit";
import type { LatencySummary } from "../lib/stats";

export interface StreamMemory {
  streams: number;
  /** Streams the hub opened (a 429 or a failure leaves one out). */
  opened: number;
  rssBeforeMiB: number;
  rssAfterMiB: number;
  /** (RSS with the streams open − RSS before) ÷ streams opened. */
  perStreamKiB: number;
}

export interface CancelFigures {
  /** Jobs running when the cancels started, and how many were cancelled singly and in bulk. */
  running: number;
  single: number;
  bulk: number;
  /** Handlers aborted through `event: cancel` of the signals stream, and by another route (a heartbeat's or log batch's 409). */
  bySignal: number;
  otherwise: number;
  /** Cancelled jobs whose handler never aborted. */
  neverAborted: number;
  /**
   * Commit → handler aborted by the signal, all of them, then the single and the bulk cancels apart.
   * The commit is seen by polling PostgreSQL (CommitWatch): its time is the start of the last poll
   * that did not yet see the job cancelled, so these are upper bounds, within one poll.
   */
  signalMs: LatencySummary;
  singleSignalMs: LatencySummary;
  bulkSignalMs: LatencySummary;
  /** The job's finished_at (now() of the cancelling transaction: its start) → aborted: the transaction's length on top. */
  singleFromFinishedAtMs: LatencySummary;
  bulkFromFinishedAtMs: LatencySummary;
  /** The API's answer → aborted (negative when the signal came first): lower bounds, the commit being before the answer. */
  answerToSignalMs: LatencySummary;
  bulkAnswerToSignalMs: LatencySummary;
  /** Milliseconds between the starts of successive polls of CommitWatch: p50 and max. */
  pollGapMs: { p50: number; max: number };
  /** The hub's own histogram over the cancels (`hub_signal_delay_seconds`, commit → write on the stream): signals, and those within 0.5 s and 1 s. */
  hubHistogram: { signals: number; withinHalfSecond: number; withinOneSecond: number };
}

export interface CancelRun {
  workers: number;
  memory: StreamMemory[];
  cancel: CancelFigures;
  audit: AuditCheck[];
}
