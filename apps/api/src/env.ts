import { z } from "zod";
import { commonEnvShape, envHelpers, JOB_LOG_MAX_BYTES_DEFAULT, JOB_LOG_MAX_BYTES_RANGE, parseEnv, webhookEnvShape } from "@hub/shared";
import { DEFAULT_PASSWORD_MIN_LENGTH } from "./identity/password-rules";
import { PASSWORD_MAX_BYTES } from "./identity/passwords";
import { PAYLOAD_LIMIT_DEFAULTS } from "./http/payload-limits";
import { checkOidcEnv, oidcEnvShape } from "./identity/oidc/env";

const { intFromEnv, optionalString, boolFromEnv } = envHelpers;

/** At most 72: a longer minimum could never fit bcrypt's 72 bytes. */
const passwordMinLengthFromEnv = () => intFromEnv(DEFAULT_PASSWORD_MIN_LENGTH, 1, PASSWORD_MAX_BYTES);

export const apiEnvSchema = z
  .object({
    ...commonEnvShape,
    PORT: intFromEnv(8000, 0, 65_535),
    HUB_JWT_SECRET: z.string({ error: "is required (at least 32 characters)" }).min(32, "must be at least 32 characters"),
    HUB_ADMIN_EMAIL: optionalString(),
    HUB_ADMIN_PASSWORD: optionalString(),
    HUB_ACCESS_TOKEN_TTL_SECONDS: intFromEnv(3600, 60, 604_800),
    /** Fewest characters (Unicode code points) of a password set through the hub (CONTRACT §6.11); never applied to a login. */
    HUB_PASSWORD_MIN_LENGTH: passwordMinLengthFromEnv(),
    /** Lets schedules take a leading seconds field (CONTRACT §6.9): for tests and demos, off by default. */
    HUB_SCHEDULES_ALLOW_SECONDS: boolFromEnv(false),
    ...webhookEnvShape,
    /** Seconds between the comments GET /events/stream sends to keep connections (and proxies) open; the credential is checked apart from them (http/open-streams.ts). */
    HUB_EVENTS_STREAM_HEARTBEAT_SECONDS: intFromEnv(15, 1, 300),
    /**
     * Which `X-Forwarded-For` hop is the client (Express's `trust proxy`): `true`, a number of hops,
     * or comma-separated addresses/subnets/`loopback`. Unset: trust none (the socket's address).
     */
    HUB_TRUST_PROXY: trustProxyFromEnv(),
    /** Failed logins per (e-mail, client address) within 5 minutes before 429 (CONTRACT §6.15); 0 = no limit. */
    HUB_LOGIN_MAX_FAILURES: intFromEnv(10, 0, 1_000_000),
    /** Failed logins per e-mail within 5 minutes before 429, sparing addresses that signed in as it within 30 days; 0 = no limit. */
    HUB_LOGIN_MAX_FAILURES_PER_EMAIL: intFromEnv(100, 0, 1_000_000),
    /** Requests to POST /identity/token per client address in any minute, successes included; 0 = no limit. */
    HUB_LOGIN_MAX_PER_ADDRESS_PER_MINUTE: intFromEnv(30, 0, 1_000_000),
    /** libuv's thread pool size (read by Node itself at start-up): bounds how many password hashes run at once. */
    UV_THREADPOOL_SIZE: intFromEnv(4, 1, 1024),
    /** Most bytes of a job's `context` as compact JSON (POST /jobs, /jobs/batch, schedules), CONTRACT §6.15. */
    HUB_JOB_CONTEXT_MAX_BYTES: intFromEnv(PAYLOAD_LIMIT_DEFAULTS.HUB_JOB_CONTEXT_MAX_BYTES, 2, 1_048_576),
    /** Most bytes of a job's `result` as compact JSON (complete, complete-batch). */
    HUB_JOB_RESULT_MAX_BYTES: intFromEnv(PAYLOAD_LIMIT_DEFAULTS.HUB_JOB_RESULT_MAX_BYTES, 2, 1_048_576),
    /** Most UTF-8 bytes of a job's stored log messages over all its attempts (CONTRACT §6.12); later lines are dropped. */
    HUB_JOB_LOG_MAX_BYTES: intFromEnv(JOB_LOG_MAX_BYTES_DEFAULT, JOB_LOG_MAX_BYTES_RANGE.min, JOB_LOG_MAX_BYTES_RANGE.max),
    /** Most bytes of JSON one list page holds; a page always holds at least one item. */
    HUB_LIST_MAX_BYTES: intFromEnv(PAYLOAD_LIMIT_DEFAULTS.HUB_LIST_MAX_BYTES, 1024, 256 * 1024 * 1024),
    /** Most streams open at once per worker key, over every API process (CONTRACT §6.15). */
    HUB_WORKER_MAX_STREAMS: intFromEnv(64, 1, 100_000),
    /** Where the built console is (`index.html` and `assets/`); default the @hub/console package's `dist`. */
    HUB_CONSOLE_DIR: optionalString(),
    /** Single sign-on with OpenID Connect and HUB_PASSWORD_LOGIN (CONTRACT §6.22). */
    ...oidcEnvShape,
  })
  .superRefine(checkOidcEnv);

/** Express's `trust proxy` value from its text: `true`/`false`, a hop count, or a list of addresses and subnets. */
function trustProxyFromEnv() {
  return z.preprocess(
    (v) => (v === undefined || v === "" ? "false" : v),
    z.string().transform((value): boolean | number | string => {
      if (value === "true" || value === "false") return value === "true";
      if (/^\d+$/.test(value)) return Number(value);
      return value;
    }),
  );
}

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
