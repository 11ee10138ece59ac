import { activeTracing } from "@hub/tracing";
import { pino, type Logger } from "pino";

/** Paths pino must never print: credentials in headers and any password/key fields. */
export const REDACTED_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  'req.headers["x-worker-api-key"]',
  "password",
  "*.password",
  "api_key",
  "*.api_key",
  "apiKey",
  "*.apiKey",
  "access_token",
  "*.access_token",
];

/**
 * Log lines are written in chunks of at least this many bytes (about ten request lines), or
 * {@link LOG_FLUSH_INTERVAL_MS} after the first line held, rather than one write per line: under
 * load the API wrote a line per request, and those writes were ~8 % of its busy time
 * (`BENCH_CPU_PROF=api pnpm bench`). pino writes what is held when the process exits
 * (also after a crash guard's fatal line); a SIGKILL loses at most this much.
 */
const LOG_BUFFER_BYTES = 4096;
/** Longest a log line waits in the buffer. */
export const LOG_FLUSH_INTERVAL_MS = 250;

/**
 * A buffered destination on `fd` whose flush is armed by a write, not by a clock. sonic-boom's own
 * `periodicFlush` flushes on an interval whether or not anything is held, and a flush of nothing
 * is still an empty `write(2)` through libuv's thread pool: four wake-ups a second of an idle
 * process plus a pool thread's, about 1 ms of CPU a second per process ("idle is idle").
 */
export function bufferedDestination(fd: number): ReturnType<typeof pino.destination> {
  const destination = pino.destination({ dest: fd, sync: false, minLength: LOG_BUFFER_BYTES });
  // sonic-boom 4's own state (not in its types): closed, a write in flight, the bytes it holds.
  // Without them (another version), every armed flush just flushes, as its periodic flush did.
  const state = destination as unknown as { destroyed?: boolean; _writing?: boolean; _len?: number };
  const write = destination.write.bind(destination);
  let flushTimer: NodeJS.Timeout | undefined;
  const armFlush = () => {
    if (flushTimer) return;
    flushTimer = setTimeout(flushHeld, LOG_FLUSH_INTERVAL_MS);
    flushTimer.unref();
  };
  function flushHeld(): void {
    flushTimer = undefined;
    if (state.destroyed) return;
    // A flush during a write does nothing, and what that write leaves below the chunk size stays
    // held: look again once it is done rather than leave the last lines unwritten.
    if (state._writing) {
      armFlush();
      return;
    }
    // A full chunk already went out with the line that armed this flush.
    if (state._len === 0) return;
    destination.flush();
  }
  destination.write = (line: string) => {
    const accepted = write(line);
    armFlush();
    return accepted;
  };
  return destination;
}

/**
 * One JSON-lines logger per process, named after the app, on stdout (`fd` 1 unless told). While
 * tracing is on (started before the logger is made), each line written inside a span carries its
 * `trace_id` and `span_id` (CONTRACT §6.20); off, there is no mixin at all.
 */
export function createLogger(app: string, level: string, fd = 1): Logger {
  const tracing = activeTracing();
  return pino(
    {
      name: app,
      ...(tracing ? { mixin: () => tracing.logFields() } : {}),
      level,
      base: { app, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    },
    bufferedDestination(fd),
  );
}

export type { Logger };
