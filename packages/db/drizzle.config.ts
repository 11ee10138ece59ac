import { defineConfig } from "drizzle-kit";

// `pnpm --filter @hub/db db:generate` writes a new numbered SQL migration into ./drizzle from the
// schema; migrations are committed and never edited once landed.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/schema.ts",
  out: "./drizzle",
});
