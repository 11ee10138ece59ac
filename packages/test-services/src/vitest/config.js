// Plain JavaScript (typed by config.d.ts): vitest loads its config files with Node itself, which
// does not run TypeScript from a linked workspace package.
import process from "node:process";
import { fileURLToPath, URL } from "node:url";
import { defineConfig } from "vitest/config";

/** Shared vitest settings: integration tests talk to real servers, so give them time, and keep two files in flight on 2 cores. */
export const baseVitestConfig = defineConfig({
  test: {
    globalSetup: [fileURLToPath(new URL("./global-setup.ts", import.meta.url))],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? "silent" },
  },
});
