/**
 * Tells this process's job log streams that their job changed, whichever API process accepted the
 * change ("PostgreSQL decides, Redis delivers"): after the commit of log lines or of a progress,
 * the accepting process PUBLISHes on the job's channel; every process SUBSCRIBEs to the channels of
 * the jobs it has streams open for, and each stream then reads what is new from PostgreSQL.
 *
 * The message carries nothing but "look again": PostgreSQL stays the only source of the lines, so a
 * lost or late message costs at most the streams' periodic re-read (JOB_LOG_STREAM_RECHECK_MS), a
 * duplicate costs one read, and resuming by seq stays exact. A job's finish is announced too (its
 * stream's `event: end` is due within 1 s, CONTRACT §6.12): the API paths that finish a job
 * publish after their commit, and what the dispatcher or another process takes from a running
 * job (a timeout, a lapsed lease, a re-queue) already NOTIFYs a worker signal, which every API
 * process hears from PostgreSQL and hands to {@link changedHere}.
 */
import type { Logger, RedisConnection, RedisKeys } from "@hub/shared";

type Follower = { changed(): void; close(): void };

export class JobLogFeed {
  private readonly followers = new Map<string, Set<Follower>>();
  private closed = false;

  constructor(
    /** A connection in subscriber mode, used for nothing else. */
    private readonly subscriber: RedisConnection,
    /** Where the announcements are published (the process's command connection). */
    private readonly publisher: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly logger: Logger,
  ) {
    subscriber.on("message", (channel: string) => {
      const jobId = this.jobIdOf(channel);
      if (jobId === undefined) return;
      for (const follower of this.followers.get(jobId) ?? []) follower.changed();
    });
  }

  private jobIdOf(channel: string): string | undefined {
    const prefix = this.keys.jobLogChannel("");
    return channel.startsWith(prefix) ? channel.slice(prefix.length) : undefined;
  }

  /**
   * After a commit that changed a job's log or progress: every stream of the job, in any process,
   * looks again. Never fails the request (the streams' re-read covers a lost message).
   */
  announce(jobId: string): void {
    this.publisher.publish(this.keys.jobLogChannel(jobId), "").catch((error: unknown) => {
      this.logger.debug({ err: error, job_id: jobId }, "job log announcement not published (streams find the change on their next re-read)");
    });
  }

  /** {@link announce} for each of many jobs (a bulk cancel, a deactivation). */
  announceAll(jobIds: readonly string[]): void {
    for (const jobId of jobIds) this.announce(jobId);
  }

  /** The job changed, as every API process heard from PostgreSQL: this process's streams of it look again. */
  changedHere(jobId: string): void {
    for (const follower of this.followers.get(jobId) ?? []) follower.changed();
  }

  /**
   * Calls `changed` whenever the job is announced, until the returned function is called; `close`
   * when the process shuts down. Subscribing may fail while Redis is away: the stream's own re-read
   * carries it then.
   */
  follow(jobId: string, follower: Follower): () => void {
    if (this.closed) {
      follower.close();
      return () => undefined;
    }
    let set = this.followers.get(jobId);
    if (!set) {
      set = new Set();
      this.followers.set(jobId, set);
      this.subscriber.subscribe(this.keys.jobLogChannel(jobId)).catch(() => undefined);
    }
    set.add(follower);
    return () => {
      const current = this.followers.get(jobId);
      if (!current?.delete(follower) || current.size > 0) return;
      this.followers.delete(jobId);
      if (!this.closed) this.subscriber.unsubscribe(this.keys.jobLogChannel(jobId)).catch(() => undefined);
    };
  }

  /** Ends every stream (API shutdown: clients resume elsewhere with Last-Event-ID) and disconnects. */
  close(): void {
    this.closed = true;
    for (const set of this.followers.values()) for (const follower of set) follower.close();
    this.followers.clear();
    this.subscriber.disconnect();
  }
}
