/**
 * Start-up configuration. Each app declares one zod schema of the variables it reads (in its own
 * `env.ts`, the only module that touches `process.env`) and parses it once with {@link parseEnv}.
 */
import { z } from "zod";
import { parseWebhookEncryptionKey } from "./webhooks/secrets";
import { AUTOMATION_LIMITS, JOB_DEFAULTS } from "./limits";

export class EnvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EnvError";
  }
}

/** Parses the environment; throws an {@link EnvError} whose one-line message names the variable. */
export function parseEnv<S extends z.ZodObject>(schema: S, source: Record<string, string | undefined>): z.output<S> {
  const result = schema.safeParse(source);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  const name = first ? String(first.path[0] ?? "environment") : "environment";
  const raw = source[name];
  const value = raw === undefined || raw === "" ? "is required" : `is invalid: ${first?.message ?? "bad value"}`;
  throw new EnvError(`Configuration error: ${name} ${value}`);
}

const wholeNumber = (min: number, max: number) =>
  z.int(`expected a whole number between ${min} and ${max}`).min(min, `must be ≥ ${min}`).max(max, `must be ≤ ${max}`);

const intFromEnv = (fallback: number, min: number, max: number) =>
  z.preprocess((v) => (v === undefined || v === "" ? fallback : Number(v)), wholeNumber(min, max));

/** A whole number, or `undefined` when unset or empty (the default then depends on other settings). */
const optionalIntFromEnv = (min: number, max: number) =>
  z.preprocess((v) => (v === undefined || v === "" ? undefined : Number(v)), wholeNumber(min, max).optional());

const optionalString = () => z.preprocess((v) => (v === "" ? undefined : v), z.string().optional());

/** `true` or `false` (unset or empty: `fallback`); anything else is refused rather than guessed. */
const boolFromEnv = (fallback: boolean) =>
  z.preprocess((v) => (v === undefined || v === "" ? String(fallback) : v), z.enum(["true", "false"], "expected true or false")).transform((v) => v === "true");

/** Variables every process of the hub shares (CONTRACT §5). */
export const commonEnvShape = {
  DATABASE_URL: z.preprocess((v) => (v === "" ? undefined : v), z.string().url().default("postgres://postgres@127.0.0.1:5432/automation_hub")),
  REDIS_URL: z.preprocess((v) => (v === "" ? undefined : v), z.string().url().default("redis://127.0.0.1:6379")),
  /**
   * Comma-separated seed nodes of a Redis Cluster, each `redis[s]://[user:password@]host:port`.
   * When set, every Redis connection is a cluster connection and REDIS_URL is not used.
   */
  REDIS_CLUSTER_NODES: optionalString().pipe(
    z
      .string()
      .transform((value, ctx) => {
        const nodes = value
          .split(",")
          .map((node) => node.trim())
          .filter((node) => node !== "");
        for (const node of nodes) {
          let parsed: URL | undefined;
          try {
            parsed = new URL(node);
          } catch {
            parsed = undefined;
          }
          if (!parsed || !["redis:", "rediss:"].includes(parsed.protocol) || !parsed.hostname || !parsed.port) {
            ctx.addIssue({ code: "custom", message: "expected comma-separated redis[s]://[user:password@]host:port" });
            return [];
          }
        }
        if (nodes.length === 0) ctx.addIssue({ code: "custom", message: "expected at least one redis[s]://host:port" });
        return nodes;
      })
      .optional(),
  ),
  /**
   * Dispatch shards (1–1024): each has its own BullMQ queue, delayed set and hash tag, and an
   * automation belongs to one. Unset: 16 on a cluster, 1 on one server. Every process must agree.
   */
  HUB_DISPATCH_SHARDS: optionalIntFromEnv(1, 1024),
  LOG_LEVEL: z.preprocess((v) => (v === "" ? undefined : v), z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info")),
  /** Prefix of every Redis key the hub owns; lets tests and several hubs share one Redis. */
  HUB_REDIS_PREFIX: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .default("hub"),
  ),
  HUB_JOB_LEASE_SECONDS: intFromEnv(JOB_DEFAULTS.leaseSeconds, 1, 86_400),
  HUB_JOB_MAX_ATTEMPTS: intFromEnv(JOB_DEFAULTS.maxAttempts, AUTOMATION_LIMITS.maxAttempts.min, AUTOMATION_LIMITS.maxAttempts.max),
  HUB_WORKER_TTL_SECONDS: intFromEnv(JOB_DEFAULTS.workerTtlSeconds, 1, 86_400),
  /**
   * Apply pending migrations at start-up (under an advisory lock). `false` for deployments that run
   * the `migrate` command once per release: the process then only checks the schema fits its build.
   */
  HUB_MIGRATE_ON_START: boolFromEnv(true),
  /** When set, GET /metrics (API, dispatcher, relay) needs `Authorization: Bearer <this>`; unset, it is open (keep the ports internal). */
  HUB_METRICS_TOKEN: optionalString().pipe(z.string().min(16, "must be at least 16 characters").optional()),
  /** The interface the API server and the metrics servers listen on (`0.0.0.0`, `127.0.0.1`, `::`); unset, every interface. */
  HOST: optionalString(),
};

/** The Redis variables alone (redisSetup in ./redis.ts): for tools that connect as the hub's processes do. */
export const redisEnvSchema = z.object({
  REDIS_URL: commonEnvShape.REDIS_URL,
  REDIS_CLUSTER_NODES: commonEnvShape.REDIS_CLUSTER_NODES,
  HUB_DISPATCH_SHARDS: commonEnvShape.HUB_DISPATCH_SHARDS,
  HUB_REDIS_PREFIX: commonEnvShape.HUB_REDIS_PREFIX,
});

/** The variables of the `migrate` command, which only talks to PostgreSQL. */
export const migrateEnvSchema = z.object({
  DATABASE_URL: commonEnvShape.DATABASE_URL,
  LOG_LEVEL: commonEnvShape.LOG_LEVEL,
});

/**
 * Webhook variables shared by the API (which encrypts secrets and checks URLs at creation) and the
 * event relay (which decrypts, checks again and delivers): CONTRACT §6.7.
 */
export const webhookEnvShape = {
  /**
   * 32 bytes (base64 or hex) encrypting the subscriptions' signing secrets at rest (AES-256-GCM).
   * Unset: the API refuses to create webhooks and the relay delivers none.
   */
  HUB_WEBHOOK_ENCRYPTION_KEY: optionalString().pipe(
    z
      .string()
      .transform((value, ctx) => {
        const key = parseWebhookEncryptionKey(value);
        if (!key) ctx.addIssue({ code: "custom", message: "must be 32 bytes as base64 (44 characters) or hex (64 characters): openssl rand -base64 32" });
        return key ?? Buffer.alloc(0);
      })
      .optional(),
  ),
  /** Development and tests only: accept `http://` webhook URLs. */
  HUB_WEBHOOKS_ALLOW_INSECURE: boolFromEnv(false),
  /** Development and tests only: accept webhook hosts on loopback, private and link-local addresses. */
  HUB_WEBHOOKS_ALLOW_PRIVATE: boolFromEnv(false),
};

export const envHelpers = { intFromEnv, optionalString, boolFromEnv };
