/** The relay's tunables, with their defaults (the app sets them from `env.ts`). */
export interface EventRelayConfig {
  /** Approximate length the stream is trimmed to on every XADD (`MAXLEN ~`). Default 100000. */
  streamMaxLen: number;
  /** Most events per batch. Default 500. */
  batchSize: number;
  /**
   * Pause between probes while the owned partitions are drained, in the second after an event or
   * a nudge (a writer's "events were committed", @hub/shared outbox-nudge.ts). Default 10 ms.
   */
  idlePollMs: number;
  /**
   * Longest pause between probes once a second passed without events or nudges: the pause doubles
   * from 25 ms up to this. A nudge ends it at once, so this only bounds how late an event whose
   * nudge was lost (Redis away) is relayed. Default 1000 ms.
   */
  quietPollMs: number;
  /** Interval of the partition rebalance (and of taking over a dead relay's partitions). Default 1000 ms. */
  rebalanceMs: number;
  /** Longest wait for Redis to take one batch before it counts as failed. Default 5000 ms. */
  publishTimeoutMs: number;
  /**
   * Cap of the exponential back-off after a failure. Default 2000 ms, so that relaying resumes
   * within a few seconds of a dependency's return (reconnecting the lock session is capped at
   * `rebalanceMs`, and a Redis connection that becomes ready ends the back-off at once).
   */
  maxBackoffMs: number;
  /** How often the scan floor is moved up (see ../README.md, "Scan floor"). Default 250 ms. */
  scanFloorRefreshMs: number;
}

export const defaultRelayConfig: EventRelayConfig = {
  streamMaxLen: 100_000,
  batchSize: 500,
  idlePollMs: 10,
  quietPollMs: 1000,
  rebalanceMs: 1000,
  publishTimeoutMs: 5000,
  maxBackoffMs: 2000,
  scanFloorRefreshMs: 250,
};
