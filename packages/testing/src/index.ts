/**
 * The hub's test fixtures, one home for every app's tests, the examples' and the benchmarks':
 * migrated test databases, the apps as child processes, an HTTP client of the API, audits of a
 * run's jobs, polling helpers, and everything of `@hub/test-services` (servers, scratch databases,
 * private PostgreSQL/Redis, managed child processes). Inside vitest, `@hub/testing/vitest` adds
 * the server URLs of the global setup and the system-test hub.
 */
export * from "@hub/test-services";
export * from "./audit";
export * from "./concurrency-sampler";
export * from "./hub-client";
export * from "./hub-processes";
export * from "./logs";
export * from "./polling";
export * from "./prometheus";
export * from "./redis-cleanup";
export * from "./redis-monitor";
export * from "./test-database";
export * from "./seed";
export * from "./history";
export * from "./packed-package";
export * from "./limits-audit";
