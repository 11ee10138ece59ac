/**
 * What tests run against, for every package: the PostgreSQL and Redis servers, a database and a
 * Redis prefix per test file, and child processes (private servers, apps). Depends on no hub
 * package, so `@hub/db` and `@hub/shared` can test with it; `@hub/testing` builds the hub's own
 * fixtures on top and re-exports all of this. Inside vitest, `@hub/test-services/vitest` gives
 * the server URLs the global setup found.
 */
export * from "./servers";
export * from "./scratch-database";
export * from "./processes/free-port";
export * from "./processes/managed-process";
export { newLogDir } from "./processes/process-files";
export * from "./processes/private-redis";
export * from "./processes/private-postgres";
export * from "./processes/private-redis-cluster";
