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
 * Log lines are written to stdout in chunks of at least this many bytes (about ten request lines),
 * or every {@link LOG_FLUSH_INTERVAL_MS}, rather than one write per line: under load the API wrote
 * a line per request, and those writes were ~8 % of its busy time (`BENCH_CPU_PROF=api pnpm bench`,
 * issue 9). pino writes what is held when the process exits (also after a crash guard's fatal
 * line); a SIGKILL loses at most this much.
 */
const LOG_BUFFER_BYTES = 4096;
/** Longest a log line waits in the buffer. */
const LOG_FLUSH_INTERVAL_MS = 250;

/** One JSON-lines logger per process, named after the app, on stdout. */
export function createLogger(app: string, level: string): Logger {
  return pino(
    {
      name: app,
      level,
      base: { app, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    },
    pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_INTERVAL_MS }),
  );
}

export type { Logger };
