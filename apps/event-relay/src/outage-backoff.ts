/**
 * What the relay does while PostgreSQL or Redis is unavailable: retry after a capped, jittered
 * exponential back-off, count every failure, and log each outage twice — when it starts and
 * when it ends — rather than once per retry.
 */
import type { Logger } from "@hub/shared";
import type { RelayMetrics } from "./metrics";

export type Dependency = "redis" | "database";

/** A failure of one of the relay's dependencies; the relay backs off and retries. */
export class DependencyFailure extends Error {
  constructor(
    readonly dependency: Dependency,
    cause: unknown,
  ) {
    super(`${dependency}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "DependencyFailure";
  }
}

const INITIAL_BACKOFF_MS = 100;

/**
 * The pause before retry number `attempt` (1 for the first): 100 ms doubling up to `capMs`, less
 * up to 20 % of jitter so that relays failing together do not retry in step. Never above `capMs`.
 */
export function backoffMs(attempt: number, capMs: number): number {
  const exponential = Math.min(capMs, INITIAL_BACKOFF_MS * 2 ** Math.max(0, attempt - 1));
  return exponential * (0.8 + Math.random() * 0.2);
}

export interface OutageLog {
  /** Records a failure: counted always, logged only when it starts an outage of its dependency. */
  failed(failure: DependencyFailure): void;
  /** Records a success with `dependency`: ends its outage, if there was one, with one log line. */
  recovered(dependency: Dependency): void;
  /** Whether `dependency` is failing right now. */
  isDown(dependency: Dependency): boolean;
}

export function createOutageLog(logger: Logger, metrics: RelayMetrics): OutageLog {
  const outages = new Map<Dependency, { since: number; failures: number }>();
  return {
    failed(failure) {
      metrics.failures.inc({ dependency: failure.dependency });
      const outage = outages.get(failure.dependency);
      if (outage) {
        outage.failures++;
        return;
      }
      outages.set(failure.dependency, { since: Date.now(), failures: 1 });
      logger.warn({ err: failure.cause, dependency: failure.dependency }, `${failure.dependency} unavailable; retrying with back-off`);
    },
    recovered(dependency) {
      const outage = outages.get(dependency);
      if (!outage) return;
      outages.delete(dependency);
      logger.info({ dependency, downForMs: Date.now() - outage.since, failures: outage.failures }, `${dependency} available again; catching up`);
    },
    isDown: (dependency) => outages.has(dependency),
  };
}

/** A sleep that {@link WakeableSleep.wake} ends early (stop, or a dependency coming back). */
export interface WakeableSleep {
  (ms: number): Promise<void>;
  wake(): void;
}

/** `skip`: while it returns true, sleeps end at once (a stop that came just before the sleep began). */
export function createWakeableSleep(skip: () => boolean): WakeableSleep {
  let wakeSleeper: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (skip()) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeSleeper = undefined;
        resolve();
      }
      wakeSleeper = done;
    });
  return Object.assign(sleep, { wake: () => wakeSleeper?.() });
}
