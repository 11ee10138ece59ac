import { defineConfig } from "vitest/config";

// Static checks only (no PostgreSQL, Redis or cluster): rendering with kubectl takes a second or two.
export default defineConfig({ test: { testTimeout: 60_000 } });
