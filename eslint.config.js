// One lint configuration for the whole monorepo (flat config).
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** The directory of the nearest package.json at or above `dir`: the workspace a path belongs to. */
const packageDirs = new Map();
function packageDirOf(dir) {
  if (!packageDirs.has(dir)) {
    const parent = path.dirname(dir);
    packageDirs.set(dir, existsSync(path.join(dir, "package.json")) || parent === dir ? dir : packageDirOf(parent));
  }
  return packageDirs.get(dir);
}

/**
 * A workspace uses another by its package name, declared in its package.json, never by a relative
 * path into the other's files (`../../../apps/api/test/harness`): such an import hides the
 * dependency from pnpm and turbo (build order, caching) and from the other package's exports.
 * Every import, export-from and dynamic import with a relative specifier is resolved against the
 * file's directory, and the nearest package.json of the file and of the target must be the same.
 */
const workspaceBoundaries = {
  rules: {
    "no-relative-cross-package": {
      meta: {
        type: "problem",
        docs: { description: "Forbid importing another workspace's files by relative path" },
        schema: [],
        messages: {
          crossing: "'{{specifier}}' reaches into another workspace ({{target}}): import it by its package name and declare it in package.json.",
        },
      },
      create(context) {
        const fileDir = path.dirname(context.filename);
        const ownPackage = packageDirOf(fileDir);
        const check = (source) => {
          if (source?.type !== "Literal" || typeof source.value !== "string" || !source.value.startsWith(".")) return;
          const target = path.resolve(fileDir, source.value);
          const targetPackage = packageDirOf(existsSync(target) && statSync(target).isDirectory() ? target : path.dirname(target));
          if (targetPackage !== ownPackage) {
            context.report({ node: source, messageId: "crossing", data: { specifier: source.value, target: path.relative(ownPackage, targetPackage) || "." } });
          }
        };
        return {
          ImportDeclaration: (node) => check(node.source),
          ExportNamedDeclaration: (node) => check(node.source),
          ExportAllDeclaration: (node) => check(node.source),
          ImportExpression: (node) => check(node.source),
        };
      },
    },
  },
};

/**
 * Comments explain the code as it is; what an issue asked and why lives in the issue, the commit
 * and the bench docs. An issue number in a comment is a pointer a reader cannot follow from the code
 * and that goes stale with the issue, so lint refuses it (docs/ may cite issues).
 */
const ISSUE_CITATION = /\bissues?\s*#?\d+/i;
const commentRules = {
  rules: {
    "no-issue-numbers": {
      meta: {
        type: "suggestion",
        docs: { description: "Forbid comments that cite an issue number" },
        schema: [],
        messages: { cited: "Comments say why in their own words; do not cite an issue number ('{{citation}}')." },
      },
      create(context) {
        return {
          Program() {
            for (const comment of context.sourceCode.getAllComments()) {
              const match = ISSUE_CITATION.exec(comment.value);
              if (match) context.report({ loc: comment.loc, messageId: "cited", data: { citation: match[0] } });
            }
          },
        };
      },
    },
  },
};

/** Every source file stays under this many lines (tests and generated files aside). */
const MAX_LINES = 400;

export default tseslint.config(
  { ignores: ["**/node_modules/**", "**/dist/**", "**/.turbo/**", "**/drizzle/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { workspace: workspaceBoundaries, comments: commentRules },
    rules: {
      "workspace/no-relative-cross-package": "error",
      "comments/no-issue-numbers": "error",
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
            { name: "drizzle-orm", message: "Statements live in packages/db/src/sql; import them from @hub/db." },
          ],
          patterns: [{ group: ["drizzle-orm/*"], message: "Statements live in packages/db/src/sql; import them from @hub/db." }],
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
  {
    files: ["**/*.{ts,tsx,js,mjs,cjs}"],
    ignores: ["**/*.test.ts", "**/*.test.tsx", "**/test/**", "packages/client/src/schema.ts"],
    rules: { "max-lines": ["error", { max: MAX_LINES }] },
  },
);
