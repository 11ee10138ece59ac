/**
 * Headless Chromium for the console's browser tests and the console benchmark: Debian's `chromium`
 * package (scripts/ensure-browser.sh installs it) driven by playwright-core, with a fresh profile
 * per launch. Pages report what would break them for a user (CSP violations, uncaught errors,
 * failed console messages) into {@link Browser.problems}.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

export type { BrowserContext, Page } from "playwright-core";

/** Where Debian's package puts the browser; CHROMIUM_PATH overrides it. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

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
export const LAPTOP_VIEWPORT = { width: 1280, height: 800 };

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
    viewport: LAPTOP_VIEWPORT,
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
