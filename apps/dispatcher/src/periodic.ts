import type { Logger } from "@hub/shared";

/**
 * Runs `task` every `intervalMs` (measured from the end of one run to the start of the next, so
 * runs never overlap). A failing run is logged and retried on the next tick. `stop` waits for the
 * run in flight.
 */
export function periodic(name: string, intervalMs: number, task: () => Promise<void>, logger: Logger, onError: () => void) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = () => {
    running = task()
      .catch((error: unknown) => {
        onError();
        logger.warn({ err: error, task: name }, "periodic task failed; retrying on the next tick");
      })
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  return {
    start() {
      stopped = false;
      timer = setTimeout(tick, 0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
