import type { Logger } from "@hub/shared";

/**
 * Runs `task` every `intervalMs` (measured from the end of one run to the start of the next, so
 * runs never overlap); a task that resolves with a number sets the pause before its next run
 * itself (a timer that sleeps until something is due). A failing run is counted and retried
 * after `intervalMs`, so a task resumes on its own within one interval of PostgreSQL or Redis
 * coming back. Only the first failure of a streak is logged as a warning (an outage would
 * otherwise log four lines a second per task), and the first success after it says how many runs
 * failed. `poke` runs the task now (after the run in flight, if one is). `stop` waits for the run
 * in flight.
 */
export function periodic(name: string, intervalMs: number, task: () => Promise<void | number>, logger: Logger, onError: () => void) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;
  let failedRuns = 0;
  /** A poke came while a run was in flight: the next run follows it at once. */
  let pokedWhileRunning = false;
  const tick = () => {
    let pauseMs = intervalMs;
    pokedWhileRunning = false;
    running = task()
      .then(
        (nextPauseMs) => {
          if (failedRuns > 0) logger.info({ task: name, failedRuns }, "periodic task recovered");
          failedRuns = 0;
          if (typeof nextPauseMs === "number") pauseMs = nextPauseMs;
        },
        (error: unknown) => {
          onError();
          failedRuns += 1;
          const details = { err: error, task: name, failedRuns };
          if (failedRuns === 1) logger.warn(details, "periodic task failed; retrying on the next tick");
          else logger.debug(details, "periodic task failed again");
        },
      )
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(tick, pokedWhileRunning ? 0 : pauseMs);
      });
  };
  return {
    start() {
      stopped = false;
      timer = setTimeout(tick, 0);
    },
    poke() {
      if (stopped) return;
      if (running) {
        pokedWhileRunning = true;
        return;
      }
      clearTimeout(timer);
      timer = setTimeout(tick, 0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
