/**
 * The checks every console test wants on top of the shared headless Chromium (@hub/testing/browser,
 * which the console benchmark launches too): no Content-Security-Policy violation or uncaught
 * error (its `problems`), an axe-core scan with no serious or critical violation, and a screenshot.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "@hub/testing/browser";

export { launchBrowser, type Browser } from "@hub/testing/browser";

/**
 * Where screenshots go: HUB_CONSOLE_SCREENSHOT_DIR (`pnpm --filter @hub/console screenshots` sets
 * docs/screenshots, the ones README.md and docs/console.md show), else test-results/screenshots (git-ignored), so
 * an ordinary test run leaves the working tree as it was.
 */
const CONSOLE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const SCREENSHOT_DIR = path.resolve(CONSOLE_DIR, process.env.HUB_CONSOLE_SCREENSHOT_DIR ?? "test-results/screenshots");

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

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
