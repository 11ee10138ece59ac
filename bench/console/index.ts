/**
 * `pnpm bench console` — the operator console in headless Chromium, over a hub it seeds
 * itself (BENCH_CONSOLE_AUTOMATIONS automations with a worker each, BENCH_CONSOLE_JOBS finished
 * jobs with seedHistory), with the real API, a dispatcher and an event relay running:
 * - the time to the first rendered rows of the Jobs page (every automation's jobs; unfiltered, with
 *   a context filter and with a status filter) and of the Automations page: signed in as an admin,
 *   from the navigation's start to the frame that paints the first row, BENCH_CONSOLE_LOADS loads of
 *   each, cold (the browser's cache cleared first: every asset fetched again) and warm;
 * - the size of every JS and CSS asset the built console serves, raw and gzip.
 * The scale mode calls {@link measureJobsPage} over its 5M-job history while its API runs.
 * Targets (< 1 s to the first rows) are printed, never asserted. How to read it: bench/README.md.
 */
import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { openDatabase } from "@hub/db";
import { createTestDatabase, deleteRedisKeys, HubProcesses, seedHistory, seedHistoryAutomations } from "@hub/testing";
import { launchBrowser, type Browser, type Page } from "@hub/testing/browser";
import { BENCH_DIR, type BenchConfig } from "../lib/config";
import { busyWarning, describeMachine, writeReport, type MachineInfo } from "../lib/report";
import { summarize, type LatencySummary } from "../lib/stats";

const step = (message: string) => console.error(`bench: console: ${message}`);
const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : "–");

/** Rows of the console's lists: a job (Jobs page, an automation's jobs) or an automation (Automations page). */
const ROW_SELECTOR = "tr[data-job], tr[data-automation]";
/** Time to the first rows the issue asks for on this machine. */
const TARGET_MS = 1000;

/** What one page's loads measured: navigation start → the frame that paints the first row. */
export interface FirstRows {
  name: string;
  /** The console path loaded, e.g. `/jobs?status=failed`. */
  path: string;
  cold: LatencySummary;
  warm: LatencySummary;
  /** Rows on the page once the first ones were painted (the list's first page). */
  rows: number;
}

export interface BundleAsset {
  file: string;
  bytes: number;
  gzipBytes: number;
  /** Loaded by index.html itself (the rest are chunks loaded on demand). */
  initial: boolean;
}

export interface BundleSize {
  assets: BundleAsset[];
  bytes: number;
  gzipBytes: number;
  /** Whether the API sent an asset compressed (it does not: a proxy in front may). */
  servedEncoding: string | null;
}

export interface ConsoleReport {
  mode: "console";
  startedAt: string;
  machine: MachineInfo;
  config: BenchConfig["console"];
  seedSeconds: number;
  jobsPage: FirstRows[];
  automationsPage: FirstRows;
  bundle: BundleSize;
}

/**
 * Records, in the page, when the first list row is painted: a MutationObserver sees the row
 * inserted, and the next animation frame (the one that paints it) stamps `__benchFirstRowAt`
 * (milliseconds since the navigation started). Added as an init script, so it runs before the
 * console's own scripts on every navigation; the page's CSP does not govern it.
 */
function watchFirstRow(selector: string): string {
  // A string: the benchmark is compiled without the DOM's types, and this runs in the page.
  return `(() => {
    window.__benchFirstRowAt = undefined;
    const selector = ${JSON.stringify(selector)};
    const observer = new MutationObserver(() => {
      const row = document.querySelector(selector);
      if (!row || row.getBoundingClientRect().height === 0) return;
      observer.disconnect();
      requestAnimationFrame(() => {
        window.__benchRows = document.querySelectorAll(selector).length;
        window.__benchFirstRowAt = performance.now();
      });
    });
    observer.observe(document, { childList: true, subtree: true });
  })();`;
}

async function signIn(page: Page, consoleUrl: string, admin: { email: string; password: string }): Promise<void> {
  // The account page: a light page to land on (the Automations page would start reading every automation).
  await page.goto(`${consoleUrl}/account`);
  await page.getByLabel("Email").fill(admin.email);
  await page.getByLabel("Password").fill(admin.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/** One load of `path`: milliseconds from the navigation's start to the first row painted, and the rows then. */
async function loadOnce(page: Page, url: string): Promise<{ ms: number; rows: number }> {
  await page.goto(url, { waitUntil: "commit" });
  // Functions, not strings: the console's CSP forbids eval (globalThis is the page's window there).
  type Stamped = { __benchFirstRowAt?: number; __benchRows?: number };
  try {
    await page.waitForFunction(() => (globalThis as Stamped).__benchFirstRowAt !== undefined, undefined, { timeout: 120_000, polling: 50 });
  } catch (error) {
    const shown = await page.evaluate(() => (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText.slice(0, 500));
    throw new Error(`no list row on ${url} after 120 s; the page shows: ${JSON.stringify(shown)}`, { cause: error });
  }
  return page.evaluate(() => ({ ms: (globalThis as Stamped).__benchFirstRowAt!, rows: (globalThis as Stamped).__benchRows! }));
}

/**
 * Times the first rows of each console path over `loads` cold and `loads` warm loads (alternating,
 * cold first), in one signed-in tab of a fresh headless Chromium.
 */
export async function measureFirstRows(
  consoleUrl: string,
  admin: { email: string; password: string },
  pages: ReadonlyArray<{ name: string; path: string }>,
  loads: number,
): Promise<FirstRows[]> {
  const browser: Browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.addInitScript(watchFirstRow(ROW_SELECTOR));
    const devtools = await browser.context.newCDPSession(page);
    await signIn(page, consoleUrl, admin);
    const figures: FirstRows[] = [];
    for (const { name, path: consolePath } of pages) {
      const url = `${consoleUrl}${consolePath}`;
      // One load first, so the server side (the API's connections, PostgreSQL's cache) is as warm for the first cold load as for the rest.
      await loadOnce(page, url);
      const cold: number[] = [];
      const warm: number[] = [];
      let rows = 0;
      for (let i = 0; i < loads; i += 1) {
        await devtools.send("Network.clearBrowserCache");
        const first = await loadOnce(page, url);
        cold.push(first.ms);
        const again = await loadOnce(page, url);
        warm.push(again.ms);
        rows = again.rows;
      }
      const figure = { name, path: consolePath, cold: summarize(cold), warm: summarize(warm), rows };
      step(firstRowsLine(figure));
      figures.push(figure);
    }
    if (browser.problems.length > 0) {
      const counted = new Map<string, number>();
      for (const problem of browser.problems) counted.set(problem, (counted.get(problem) ?? 0) + 1);
      step(`the browser reported: ${[...counted].map(([problem, times]) => `${times} × ${problem.slice(0, 200)}`).join(" | ")}`);
    }
    return figures;
  } finally {
    await browser.close();
  }
}

/** The Jobs page (every automation's jobs), unfiltered, with a context filter and with a status filter. */
export function measureJobsPage(consoleUrl: string, admin: { email: string; password: string }, loads: number, customer = "cust-7"): Promise<FirstRows[]> {
  return measureFirstRows(
    consoleUrl,
    admin,
    [
      { name: "Jobs page", path: "/jobs" },
      { name: "Jobs page, a context filter", path: `/jobs?context.customer_id=${customer}` },
      { name: "Jobs page, a status filter", path: "/jobs?status=failed" },
    ],
    loads,
  );
}

/** Every JS and CSS file of the built console, as the API serves it from /console/assets, raw and gzip (level 6, as a proxy would). */
export async function measureBundle(consoleUrl: string): Promise<BundleSize> {
  const index = await (await fetch(`${consoleUrl}/`)).text();
  const distAssets = path.join(path.dirname(BENCH_DIR), "apps", "console", "dist", "assets");
  const files = readdirSync(distAssets)
    .filter((file) => /\.(js|css)$/.test(file))
    .sort();
  const assets: BundleAsset[] = [];
  let servedEncoding: string | null = null;
  for (const file of files) {
    const answer = await fetch(`${consoleUrl}/assets/${file}`, { headers: { "accept-encoding": "gzip" } });
    if (answer.status !== 200) throw new Error(`GET /console/assets/${file} → ${answer.status}`);
    servedEncoding ??= answer.headers.get("content-encoding");
    const body = Buffer.from(await answer.arrayBuffer());
    assets.push({ file, bytes: body.length, gzipBytes: gzipSync(body, { level: 6 }).length, initial: index.includes(`/assets/${file}`) });
  }
  return {
    assets,
    bytes: assets.reduce((sum, asset) => sum + asset.bytes, 0),
    gzipBytes: assets.reduce((sum, asset) => sum + asset.gzipBytes, 0),
    servedEncoding,
  };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

export function firstRowsLine(figure: FirstRows): string {
  const worst = Math.max(figure.cold.max, figure.warm.max);
  return (
    `${figure.name.padEnd(30)} (${figure.path}): cold p50 ${ms(figure.cold.p50)} · max ${ms(figure.cold.max)} ms; ` +
    `warm p50 ${ms(figure.warm.p50)} · max ${ms(figure.warm.max)} ms (n=${figure.cold.count} each, ${figure.rows} rows) ` +
    `${worst < TARGET_MS ? "✓" : "✗"} target < ${TARGET_MS} ms`
  );
}

export function bundleLines(bundle: BundleSize): string[] {
  return [
    `bundle (every JS/CSS asset under /console/assets; the API sends them ${bundle.servedEncoding ?? "uncompressed"}): ${kb(bundle.bytes)} raw, ${kb(bundle.gzipBytes)} gzip`,
    ...bundle.assets.map(
      (asset) =>
        `  ${asset.file.padEnd(32)} ${kb(asset.bytes).padStart(10)} raw ${kb(asset.gzipBytes).padStart(10)} gzip${asset.initial ? "" : " (loaded on demand)"}`,
    ),
  ];
}

function render(report: ConsoleReport): string {
  return [
    `Automation Hub benchmark (console) — ${report.config.automations} automations, ${report.config.jobs} jobs, headless Chromium 1280×800 · ` +
      `${report.machine.cpus} cores, ${(100 * report.machine.busyBeforeStart).toFixed(0)}% busy before the start`,
    ...(busyWarning(report.machine) ? [busyWarning(report.machine)!] : []),
    `seeded in ${report.seedSeconds.toFixed(0)} s`,
    "",
    "time to the first rendered rows (navigation start → the frame that paints the first row; cold = browser cache cleared):",
    ...[...report.jobsPage, report.automationsPage].map((figure) => `  ${firstRowsLine(figure)}`),
    "",
    ...bundleLines(report.bundle),
  ].join("\n");
}

export async function runConsoleMode(config: BenchConfig): Promise<boolean> {
  const startedAt = new Date();
  const machine = await describeMachine();
  const database = await createTestDatabase(config.databaseServerUrl);
  const redisPrefix = `bench-${randomBytes(4).toString("hex")}`;
  const audit = openDatabase(database.url, { max: 2, applicationName: "bench-console" });
  let hub: HubProcesses | undefined;
  let passed = false;
  try {
    step(`seeding ${config.console.automations} automations (a worker each) and ${config.console.jobs} finished jobs`);
    const seedStarted = performance.now();
    const automationIds = await seedHistoryAutomations(audit.pool, config.console.automations, "console");
    await seedHistory(audit.pool, { automationIds, jobs: config.console.jobs, selfGrowingEvents: 0, window: { newestDaysAgo: 0, oldestDaysAgo: 30 } });
    await audit.pool.query("vacuum analyze");
    const seedSeconds = (performance.now() - seedStarted) / 1000;

    step("starting the API, a dispatcher and an event relay");
    hub = await HubProcesses.start({
      databaseUrl: database.url,
      redisUrl: config.redisUrl,
      redisPrefix,
      dispatchers: 1,
      relays: 1,
      logLevel: config.hubLogLevel,
      runBuilt: true,
    });
    const consoleUrl = `${hub.apiUrl}/console`;
    step(`timing the first rows: ${config.console.loads} cold and ${config.console.loads} warm loads of each page`);
    const jobsPage = await measureJobsPage(consoleUrl, hub.admin, config.console.loads);
    const [automationsPage] = await measureFirstRows(consoleUrl, hub.admin, [{ name: "Automations page", path: "/automations" }], config.console.loads);
    const bundle = await measureBundle(consoleUrl);
    const report: ConsoleReport = {
      mode: "console",
      startedAt: startedAt.toISOString(),
      machine,
      config: config.console,
      seedSeconds,
      jobsPage,
      automationsPage: automationsPage!,
      bundle,
    };
    console.log(render(report));
    console.log(`\nresults: ${writeReport(config.resultsDir, config.smoke ? "console-smoke" : "console", report, startedAt)}`);
    const crashes = hub.unexpectedExits();
    if (crashes.length > 0) console.error(`bench: console: hub processes exited: ${JSON.stringify(crashes)}`);
    passed = crashes.length === 0;
    return passed;
  } catch (error) {
    if (hub) console.error(hub.diagnostics(4096));
    throw error;
  } finally {
    await hub?.stopAll();
    if (hub && passed && !config.keepLogs) hub.removeLogs();
    else if (hub) console.error(`bench: the hub's logs are in ${hub.logDir}`);
    await audit.close();
    await deleteRedisKeys(config.redisUrl, redisPrefix);
    if (!config.keepDatabases) await database.drop();
  }
}
