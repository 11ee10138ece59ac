/**
 * Where the docs and the code's comments send a reader exists. A path named in README.md, docs/,
 * a package README or a source comment (`packages/db/functions/hub_claim_jobs_v4.sql`) is a
 * promise that the file is there; a move that forgets one breaks it silently. Checked: repository
 * paths (from the root, or from the package of the file naming them) and paths starting with a dot
 * and ending in an extension, from the file's folder. Left out: globs and placeholders (`*`,
 * `<table>`, `NNNN`), build and run output (dist, test-results, bench/results), the records of what
 * was measured when (bench/HISTORY.md and the dated runs beside it), which name paths as they were,
 * and the migrations, never edited once applied. Static checks only: no service, no build.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

const SKIPPED_DIRS = new Set(["node_modules", "dist", ".turbo", ".git", "results", "runs", "test-results"]);
const HISTORY = new Set(["bench/HISTORY.md"]);
/** Applied migrations are never edited, so what they name is history too. */
const IMMUTABLE_DIRS = ["packages/db/drizzle/"];

function walk(dir: string, found: string[] = []): string[] {
  for (const entry of readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith(".")) walk(relative, found);
    } else if (/\.(md|ts|tsx|js|mjs|sql|sh)$/.test(entry.name) && !HISTORY.has(relative) && !IMMUTABLE_DIRS.some((d) => relative.startsWith(d))) {
      found.push(relative);
    }
  }
  return found;
}

const FILES = ["README.md", ...["docs", "apps", "packages", "bench", "deploy", "scripts", "tooling", "examples"].flatMap((dir) => walk(dir))];

/** The lines of `file` a reader reads as prose: all of a Markdown file, the comments of code. */
function proseLines(file: string): string[] {
  const lines = readFileSync(path.join(REPO_ROOT, file), "utf8").split("\n");
  if (file.endsWith(".md")) {
    // In a fenced example a relative path is a file of the reader's own project, not of this one.
    let fenced = false;
    return lines.map((line) => {
      if (line.trimStart().startsWith("```")) fenced = !fenced;
      return fenced ? line.replace(RELATIVE_PATH, "") : line;
    });
  }
  if (file.endsWith(".sql")) return lines.map((line) => (line.includes("--") ? line.slice(line.indexOf("--")) : ""));
  if (file.endsWith(".sh")) return lines.map((line) => (/^\s*#/.test(line) ? line : ""));
  return lines.map((line) => {
    const trimmed = line.trimStart();
    if (trimmed.startsWith("//") || trimmed.startsWith("*") || trimmed.startsWith("/*")) return line;
    const inline = line.indexOf(" // ");
    return inline >= 0 ? line.slice(inline) : "";
  });
}

const REPOSITORY_PATH = /(?<![\w./@-])((?:apps|packages|docs|bench|deploy|scripts|tooling|examples)\/[\w.\-/]*[\w/])(\.?[*<{…])?/g;
const RELATIVE_PATH = /(?<![\w./-])(\.\.?\/[\w.\-/]+\.(?:ts|tsx|js|mjs|sql|md|json|yaml|sh))\b/g;
const OUTPUT = /(^|\/)(dist|test-results)(\/|$)|^bench\/results\//;

/** The directory of the nearest package.json at or above `dir`. */
function packageDirOf(dir: string): string {
  if (dir === "." || existsSync(path.join(REPO_ROOT, dir, "package.json"))) return dir;
  return packageDirOf(path.posix.dirname(dir));
}

function brokenPointers(file: string): string[] {
  const broken: string[] = [];
  const dir = path.posix.dirname(file);
  proseLines(file).forEach((line, index) => {
    for (const [, target, after] of line.matchAll(REPOSITORY_PATH)) {
      const named = target!.split("#")[0]!;
      if (after || /NNNN/.test(named) || OUTPUT.test(named)) continue;
      const fromRoot = existsSync(path.join(REPO_ROOT, named));
      const fromPackage = existsSync(path.join(REPO_ROOT, packageDirOf(dir), named));
      if (!fromRoot && !fromPackage) broken.push(`${file}:${index + 1}: ${named}`);
    }
    for (const [, target] of line.matchAll(RELATIVE_PATH)) {
      if (!existsSync(path.join(REPO_ROOT, dir, target!))) broken.push(`${file}:${index + 1}: ${target}`);
    }
  });
  return broken;
}

describe("the paths docs and comments point to", () => {
  it("when every path named in the docs, the READMEs and the source comments is looked up, then each exists", () => {
    expect(FILES.length).toBeGreaterThan(100);

    expect(FILES.flatMap(brokenPointers)).toEqual([]);
  });

  it("when a comment names the file that holds the claim, then that pointer is checked (the check can fail)", () => {
    expect(brokenPointers("packages/db/src/sql/jobs/claim.ts")).toEqual([]);
    expect(proseLines("packages/db/src/sql/jobs/claim.ts").join("\n")).toContain("packages/db/functions/hub_claim_jobs_v4.sql");
  });
});

describe("the function files' comments", () => {
  it("when the comments of packages/db/functions are read, then none cites an issue number (lint checks the code's)", () => {
    const citing = FILES.filter((file) => file.startsWith("packages/db/functions/")).flatMap((file) =>
      proseLines(file).flatMap((line, index) => (/\bissues?\s*#?\d+/i.test(line) ? [`${file}:${index + 1}`] : [])),
    );

    expect(citing).toEqual([]);
  });
});
