/**
 * Headless Chromium for the console's tests: Debian's `chromium` package (scripts/ensure-browser.sh
 * installs it) driven by playwright-core, with a fresh profile per run. Pages carry the checks
 * every test wants: no Content-Security-Policy violation or uncaught error, an axe-core scan with
 * no serious or critical violation, and a screenshot.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";

/** Where Debian's package puts the browser; CHROMIUM_PATH overrides it. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A laptop screen. */
const VIEWPORT = { width: 1280, height: 800 };

/**
 * Where screenshots go: HUB_CONSOLE_SCREENSHOT_DIR (`pnpm --filter @hub/console screenshots` sets
 * docs/screenshots, the ones README.md and docs/console.md show), else test-results/screenshots (git-ignored), so
 * an ordinary test run leaves the working tree as it was.
 */
const CONSOLE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const SCREENSHOT_DIR = path.resolve(CONSOLE_DIR, process.env.HUB_CONSOLE_SCREENSHOT_DIR ?? "test-results/screenshots");

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface Browser {
  context: BrowserContext;
  /** A new tab: its own sessionStorage, so its own console session. Problems it reports are collected. */
  newPage(): Promise<Page>;
  /** CSP violations, uncaught page errors and failed console messages seen so far. */
  problems: string[];
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (bash scripts/ensure-browser.sh), or set CHROMIUM_PATH`);
  }
  const profile = mkdtempSync(path.join(tmpdir(), "hub-console-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: VIEWPORT,
    locale: "en-GB",
    timezoneId: "UTC",
  });
  context.setDefaultTimeout(30_000);
  const problems: string[] = [];
  const watch = (page: Page) => {
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      // Refused scripts, styles or connections show up here (and a network error as "Failed to load").
      if (message.type() === "error" && !/Failed to load resource: the server responded with a status of (401|404|409|422)/.test(message.text())) {
        problems.push(`console error: ${message.text()}`);
      }
    });
  };
  for (const page of context.pages()) watch(page);
  return {
    context,
    problems,
    async newPage() {
      const page = await context.newPage();
      watch(page);
      return page;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** The serious and critical axe-core violations of the page as it is now. */
export async function seriousAccessibilityViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not govern.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: any[] }> } }).axe;
    const results = await axe.run(document, { resultTypes: ["violations"] });
    return results.violations.map((violation) => ({
      id: violation.id as string,
      impact: violation.impact as string | null,
      help: violation.help as string,
      nodes: (violation.nodes as { target: string[] }[]).map((node) => node.target.join(" ")),
    }));
  });
  return violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
}

/** Saves a full-page screenshot as `<name>.png` in {@link SCREENSHOT_DIR}. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  // Blur the focused control, so a caret or focus ring does not make every run's picture differ.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}
