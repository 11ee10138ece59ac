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

/** One JSON-lines logger per process, named after the app. */
export function createLogger(app: string, level: string): Logger {
  return pino({
    name: app,
    level,
    base: { app, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
  });
}

export type { Logger };
