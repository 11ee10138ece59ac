import type { Logger } from "@hub/shared";

/**
 * The longest a hub process takes to stop after SIGTERM (its drain: requests in flight answered,
 * webhook attempts finished, connections closed) before it exits anyway. A supervisor's grace
 * period must be longer (deploy/kubernetes: terminationGracePeriodSeconds; compose: stop_grace_period).
 */
export const SHUTDOWN_TIMEOUT_MS = 15_000;

/**
 * Runs `stop` once on SIGTERM/SIGINT, raced against `timeoutMs`; exits 0 when it finished, 1 when
 * it failed or timed out. A second signal exits at once.
 */
export function onShutdownSignal(logger: Logger, stop: () => Promise<void>, timeoutMs = SHUTDOWN_TIMEOUT_MS): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, "second signal: exiting now");
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, "shutting down");
    const timer = setTimeout(() => {
      logger.error({ timeoutMs }, "shutdown timed out");
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    stop().then(
      () => {
        logger.info("stopped cleanly");
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
}

/**
 * Keeps a dependency outage from killing the process, without hiding bugs.
 *
 * Every PostgreSQL and Redis connection has an 'error' listener and every background task catches
 * its failures, so an outage should never reach here; this is the net under a path that was
 * missed. A rejection or exception that `isOutage` recognises (PostgreSQL or Redis unreachable,
 * a connection cut) is logged and the process keeps running: the driver has already dropped the
 * broken connection and the next attempt opens a new one. Anything else is a programming error:
 * it is logged as fatal and the process exits 1, as Node would by default, so that a supervisor
 * restarts it in a known state rather than leaving it running in an unknown one.
 */
export function installCrashGuards(logger: Logger, isOutage: (error: unknown) => boolean): void {
  const handle = (kind: "unhandledRejection" | "uncaughtException") => (error: unknown) => {
    if (isOutage(error)) {
      logger.warn({ err: error, kind }, "dependency outage escaped its handler; continuing");
      return;
    }
    logger.fatal({ err: error, kind }, "unexpected error; exiting");
    // pino writes synchronously to stdout by default, so the line above is out before the exit.
    process.exit(1);
  };
  process.on("unhandledRejection", handle("unhandledRejection"));
  process.on("uncaughtException", handle("uncaughtException"));
}
