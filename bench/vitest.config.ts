import { defineConfig } from "vitest/config";

// Unit tests of the benchmark's own arithmetic; they need no server (`pnpm bench:smoke` runs the rest).
export default defineConfig({ test: { include: ["lib/**/*.test.ts"] } });
