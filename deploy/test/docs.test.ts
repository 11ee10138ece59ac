/**
 * The documentation a newcomer reads (README.md and docs/*.md): every relative link leads to a file
 * that exists, and to a heading that exists when it names one; and docs/configuration.md, the one
 * configuration table, has a row for every variable the apps' environment schemas read. Static
 * checks only: no service, no build.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

const DOCS = [
  "README.md",
  ...readdirSync(path.join(REPO_ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** The environment schemas: the variables every process shares, and each app's own. */
const ENV_SCHEMAS = [
  "packages/shared/src/env.ts",
  ...readdirSync(path.join(REPO_ROOT, "apps"))
    .map((app) => `apps/${app}/src/env.ts`)
    .filter((file) => existsSync(path.join(REPO_ROOT, file))),
];

/** Beside the docs, the benchmark pages a reader reaches from README.md: their links are checked too. */
const BENCH_DOCS = ["bench/README.md", "bench/MODES.md", "bench/runs/README.md"];

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), "utf8");

/** Markdown without fenced code blocks and inline code spans, whose brackets are not links. */
const prose = (markdown: string) => markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");

/** The targets of `[text](target)` and `![alt](target)` links that point into the repository. */
function relativeLinks(markdown: string): string[] {
  const targets = [...prose(markdown).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!);
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** GitHub's anchors for a file's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

describe("the documentation's links", () => {
  it.each([...DOCS, ...BENCH_DOCS])("when the relative links of %s are followed, then each reaches an existing file and heading", (file) => {
    const broken: string[] = [];
    for (const link of relativeLinks(read(file))) {
      const [target, anchor] = link.split("#") as [string, string | undefined];
      const resolved = target === "" ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURIComponent(target)));
      if (!existsSync(path.join(REPO_ROOT, resolved))) {
        broken.push(`${link}: no file ${resolved}`);
      } else if (anchor && resolved.endsWith(".md") && !anchors(read(resolved)).has(anchor)) {
        broken.push(`${link}: no heading #${anchor} in ${resolved}`);
      }
    }

    expect(broken).toEqual([]);
  });

  it("when README.md is measured, then it stays a first hour's read (at most ~300 lines) and links every page of docs/", () => {
    const readme = read("README.md");
    const linked = new Set(relativeLinks(readme).map((link) => link.split("#")[0]));

    expect(readme.split("\n").length).toBeLessThanOrEqual(300);
    expect(DOCS.filter((file) => file !== "README.md" && !linked.has(file))).toEqual([]);
  });
});

describe("bench/README.md", () => {
  it("when it is measured, then it stays a front door (under 400 lines): what each mode prints is bench/MODES.md, each dated run a file of bench/runs/", () => {
    expect(read("bench/README.md").split("\n").length).toBeLessThan(400);
  });
});

describe("docs/configuration.md", () => {
  it("when the variables the environment schemas read are looked up, then each has a row in the configuration table", () => {
    const configuration = read("docs/configuration.md");
    const variables = new Set(ENV_SCHEMAS.flatMap((file) => [...read(file).matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((match) => match[1]!)));

    expect(variables.size).toBeGreaterThan(30);
    expect([...variables].filter((name) => !configuration.includes(`| \`${name}\` |`))).toEqual([]);
  });
});
