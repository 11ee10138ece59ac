// One lint configuration for the whole monorepo (flat config).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/node_modules/**", "**/dist/**", "**/.turbo/**", "**/drizzle/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-console": "error",
      eqeqeq: ["error", "always", { null: "ignore" }],
    },
  },
  {
    // Apps build no SQL and open no driver connections: every statement lives in packages/db's
    // query modules, so one file per table says what the hub asks of PostgreSQL.
    files: ["apps/*/src/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            { name: "pg", message: "Database access goes through @hub/db." },
            { name: "drizzle-orm", message: "Queries live in packages/db/src/queries; import them from @hub/db." },
          ],
          patterns: [{ group: ["drizzle-orm/*"], message: "Queries live in packages/db/src/queries; import them from @hub/db." }],
        },
      ],
    },
  },
  {
    // Tests and their fixtures read untyped JSON responses.
    files: ["**/test/**", "**/*.test.ts", "packages/testing/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["scripts/**", "bench/**", "apps/*/bench/**", "examples/**", "**/*.config.*", "tooling/**"],
    rules: { "no-console": "off" },
  },
);
