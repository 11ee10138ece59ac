import type { UserConfig } from "vitest/config";

/** Shared vitest settings: the global setup that finds PostgreSQL and Redis, generous timeouts, two files in flight. */
export declare const baseVitestConfig: UserConfig;
