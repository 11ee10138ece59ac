import { z } from "zod";
import { commonEnvShape, envHelpers, parseEnv, webhookEnvShape } from "@hub/shared";
import { DEFAULT_PASSWORD_MIN_LENGTH } from "./identity/password-rules";
import { PASSWORD_MAX_BYTES } from "./identity/passwords";

const { intFromEnv, optionalString, boolFromEnv } = envHelpers;

/** At most 72: a longer minimum could never fit bcrypt's 72 bytes. */
const passwordMinLengthFromEnv = () => intFromEnv(DEFAULT_PASSWORD_MIN_LENGTH, 1, PASSWORD_MAX_BYTES);

export const apiEnvSchema = z.object({
  ...commonEnvShape,
  PORT: intFromEnv(8000, 0, 65_535),
  HUB_JWT_SECRET: z.string({ error: "is required (at least 32 characters)" }).min(32, "must be at least 32 characters"),
  HUB_ADMIN_EMAIL: optionalString(),
  HUB_ADMIN_PASSWORD: optionalString(),
  HUB_ACCESS_TOKEN_TTL_SECONDS: intFromEnv(3600, 60, 604_800),
  /** Fewest characters (Unicode code points) of a password set through the hub (CONTRACT §6.11); never applied to a login. */
  HUB_PASSWORD_MIN_LENGTH: passwordMinLengthFromEnv(),
  /** When set, GET /metrics needs `Authorization: Bearer <this>`; unset, /metrics is open (keep the port internal). */
  HUB_METRICS_TOKEN: optionalString().pipe(z.string().min(16, "must be at least 16 characters").optional()),
  /** Lets schedules take a leading seconds field (CONTRACT §6.9): for tests and demos, off by default. */
  HUB_SCHEDULES_ALLOW_SECONDS: boolFromEnv(false),
  ...webhookEnvShape,
  /** Seconds between the comments GET /events/stream sends to keep connections (and proxies) open; the caller's credential is checked again at each. */
  HUB_EVENTS_STREAM_HEARTBEAT_SECONDS: intFromEnv(15, 1, 300),
  /** Where the built console is (`index.html` and `assets/`); default the @hub/console package's `dist`. */
  HUB_CONSOLE_DIR: optionalString(),
});

export type ApiEnv = z.output<typeof apiEnvSchema>;

/** The API's configuration, parsed once at start-up. The only reader of `process.env` in the API. */
export function loadApiEnv(source: Record<string, string | undefined> = process.env): ApiEnv {
  return parseEnv(apiEnvSchema, source);
}

/** The variables of the `create-admin` command (`pnpm --filter @hub/api create-admin`); the admin's are required. */
export const createAdminEnvSchema = z.object({
  DATABASE_URL: commonEnvShape.DATABASE_URL,
  LOG_LEVEL: commonEnvShape.LOG_LEVEL,
  HUB_ADMIN_EMAIL: z.string().min(1, "must not be empty"),
  HUB_ADMIN_PASSWORD: z.string().min(1, "must not be empty"),
  HUB_PASSWORD_MIN_LENGTH: passwordMinLengthFromEnv(),
});

export type CreateAdminEnv = z.output<typeof createAdminEnvSchema>;

export function loadCreateAdminEnv(source: Record<string, string | undefined> = process.env): CreateAdminEnv {
  return parseEnv(createAdminEnvSchema, source);
}

/** The variables of the `reset-password` command: it needs only the database, and the password rules. */
export const resetPasswordEnvSchema = z.object({
  DATABASE_URL: commonEnvShape.DATABASE_URL,
  HUB_PASSWORD_MIN_LENGTH: passwordMinLengthFromEnv(),
});

export type ResetPasswordEnv = z.output<typeof resetPasswordEnvSchema>;

export function loadResetPasswordEnv(source: Record<string, string | undefined> = process.env): ResetPasswordEnv {
  return parseEnv(resetPasswordEnvSchema, source);
}
