import { baseVitestConfig } from "@hub/testing/vitest-config";
import { defineConfig, mergeConfig } from "vitest/config";

/** The browser tests start a whole hub and a Chromium: one file at a time, with time to spare on a loaded machine. */
export default mergeConfig(
  baseVitestConfig,
  defineConfig({
    test: {
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      maxWorkers: 1,
      testTimeout: 120_000,
      hookTimeout: 300_000,
    },
  }),
);
