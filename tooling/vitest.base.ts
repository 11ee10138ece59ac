import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

/** Shared vitest settings: integration tests talk to real servers, so give them time, and keep two files in flight on 2 cores. */
export const baseVitestConfig = defineConfig({
  test: {
    globalSetup: [fileURLToPath(new URL("./vitest.global-setup.ts", import.meta.url))],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? "silent" },
  },
});
