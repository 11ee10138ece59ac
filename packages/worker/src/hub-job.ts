/** A job as the hub hands it to a worker (CONTRACT §3 "Job", §6.16 for its dependencies). */
export const JOB_STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** A job as the hub returns it (CONTRACT §3 "Job"); timestamps are ISO 8601 strings. */
export interface HubJob {
  id: string;
  automation_id: string;
  status: JobStatus;
  context: Record<string, unknown>;
  result: Record<string, unknown> | null;
  error: string | null;
  attempts: number;
  created_by: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  lease_expires_at: string | null;
  /** What the worker last reported with a heartbeat (CONTRACT §6.12); null until then, and after a re-queue. */
  progress?: { percent: number | null; message: string | null; updated_at: string } | null;
  /**
   * On a claimed job, while the hub traces (CONTRACT §6.20): the W3C `traceparent` of this
   * attempt's `job.run` span. The client sends it with every call about the job, so the hub's spans
   * of those calls join the job's trace; null or absent when the hub does not trace.
   */
  traceparent?: string | null;
  tracestate?: string | null;
  /**
   * On a claimed job (CONTRACT §6.16): the jobs it waited for, in its `depends_on` order, with
   * their outcomes. Past 1 MiB of results in all, a result is null with `result_omitted: true`
   * ({@link HubWorkerClient.dependencies} reads them whole; the worker does it for its handler).
   */
  dependencies?: JobDependency[];
  depends_on?: string[];
}

/** A dependency of a claimed job: a job it waited for, and how that one ended. */
export interface JobDependency {
  id: string;
  automation_id: string;
  status: JobStatus;
  result: Record<string, unknown> | null;
  error: string | null;
  result_omitted?: true;
}
