/**
 * The job page's live log and progress bar in a real browser against a real hub (the API serving
 * the built console, a dispatcher and an event relay as processes) and a real `hub-worker`
 * running a shell command that writes to stderr and reports `::progress`. The test waits for
 * what the page shows, never for a fixed time; pages are scanned with axe-core and photographed
 * at 1280 and 390 px.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildHubApps } from "@hub/testing";
import { useSystemHub } from "@hub/testing/vitest";
import type { Page } from "playwright-core";
import { launchBrowser, screenshot, seriousAccessibilityViolations, type Browser } from "./browser";

beforeAll(() => buildHubApps(), 600_000);
const getHub = useSystemHub({ relays: 1, runBuilt: true });

/** The workspace's hub-worker, run from its sources as `node packages/worker/bin/hub-worker.mjs`. */
const HUB_WORKER_BIN = path.join(path.dirname(createRequire(import.meta.url).resolve("@hub/worker/package.json")), "bin/hub-worker.mjs");

let browser: Browser;
let page: Page;
let scratch: string;
let hubWorker: ChildProcess | undefined;
let hubWorkerOutput = "";

beforeAll(async () => {
  browser = await launchBrowser();
  scratch = mkdtempSync(path.join(tmpdir(), "hub-console-job-log-"));
});

afterAll(async () => {
  if (hubWorker && hubWorker.exitCode === null) {
    const exited = new Promise((resolve) => hubWorker!.once("exit", resolve));
    hubWorker.kill("SIGTERM");
    await exited;
  }
  await browser?.close();
  rmSync(scratch, { recursive: true, force: true });
});

afterEach(() => {
  expect(browser.problems).toEqual([]);
});

async function checkPage(name: string): Promise<void> {
  expect(await seriousAccessibilityViolations(page), `${name}: serious or critical accessibility violations`).toEqual([]);
  await screenshot(page, name);
}

/** Photographs the page at a phone's width too, and checks nothing scrolls sideways there. */
async function checkPhoneWidth(name: string): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name}: the page scrolls sideways at 390 px`).toBeLessThanOrEqual(390);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, `${name}-390`);
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
}

const logLines = () => page.getByTestId("log-lines");

/** The command: it logs, reports progress, waits for the test's go, then finishes. */
function exportScript(goFile: string): string {
  return [
    "echo 'connecting to the ledger at ledger.internal:5432' >&2",
    "echo '::progress 5 connecting' >&2",
    "echo '::debug ledger session 7f3a opened' >&2",
    "i=1",
    'while [ $i -le 30 ]; do echo "exported invoice INV-2026-10-$i of 50" >&2; i=$((i+1)); done',
    "echo '::warn invoice INV-2026-10-17 has no VAT number; exported without it' >&2",
    `echo '::error ledger rejected INV-2026-10-23: ${"a very long reason that goes on and on ".repeat(6).trim()}' >&2`,
    "echo '::progress 60 exported 30 of 50 invoices' >&2",
    `while [ ! -f ${goFile} ]; do sleep 0.1; done`,
    "echo 'exported the remaining 20 invoices' >&2",
    "echo '::progress 100 done' >&2",
    `echo '{"invoices":50}'`,
  ].join("\n");
}

describe("the job page's live log", () => {
  it("when hub-worker runs a command that logs to stderr and reports progress, then the job page tails the log live with its progress bar, filters by level, pauses and follows, and downloads the log", async () => {
    const hub = getHub();
    const { automationId, workerKey } = await hub.createAutomationWithWorker();
    const keyFile = path.join(scratch, "worker.key");
    writeFileSync(keyFile, `${workerKey}\n`, { mode: 0o600 });
    const goFile = path.join(scratch, "go");
    hubWorker = spawn(
      process.execPath,
      [HUB_WORKER_BIN, "--url", hub.processes.apiUrl, "--api-key-file", keyFile, "--wait", "1", "--", "sh", "-c", exportScript(goFile)],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    hubWorker.stdout!.setEncoding("utf8").on("data", (text: string) => (hubWorkerOutput += text));
    hubWorker.stderr!.setEncoding("utf8").on("data", (text: string) => (hubWorkerOutput += text));
    const jobId = await hub.createJob(automationId, {});

    page = await browser.newPage();
    await page.goto(`${hub.processes.apiUrl}/console`);
    await page.getByLabel("Email").fill(hub.processes.admin.email);
    await page.getByLabel("Password").fill(hub.processes.admin.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Automations", level: 1 }).waitFor();
    await page.goto(`${hub.processes.apiUrl}/console/jobs/${jobId}`);

    // Live: the lines and the progress arrive while the command waits.
    await page.getByTestId("job-status").getByText("running", { exact: true }).waitFor();
    await logLines().getByText("exported invoice INV-2026-10-30 of 50").waitFor();
    await page.getByText("exported 30 of 50 invoices").waitFor();
    expect(await page.getByRole("progressbar", { name: "Progress" }).getAttribute("value")).toBe("60");
    expect(await page.getByText("60 %").isVisible()).toBe(true);
    expect(await logLines().getByText("::progress").count()).toBe(0);
    await page.getByText("Following live").waitFor();
    await checkPage("job-log");
    await checkPhoneWidth("job-log");

    // The level filter: warn and above.
    await page.getByLabel("Level").selectOption("warn");
    await logLines().getByText("has no VAT number").waitFor();
    expect(await logLines().getByText("exported invoice INV-2026-10-1 of 50", { exact: true }).count()).toBe(0);
    expect(await logLines().locator("li").count()).toBe(2);

    // Paused, the tail keeps what it showed and counts what arrives.
    await page.getByRole("button", { name: "Pause" }).click();
    writeFileSync(goFile, "");
    await page.getByText("Paused (1 new)").waitFor();
    await page.getByTestId("job-status").getByText("completed", { exact: true }).waitFor();
    await page.getByLabel("Level").selectOption("debug");
    expect(await logLines().getByText("exported the remaining 20 invoices").count()).toBe(0);
    await page.getByRole("button", { name: "Follow" }).click();
    await logLines().getByText("exported the remaining 20 invoices").waitFor();
    await page.getByText("Complete log", { exact: true }).waitFor();
    // The job finished: its log grows no more, so there is nothing to pause.
    expect(await page.getByRole("button", { name: "Pause" }).count()).toBe(0);
    expect(await page.getByRole("progressbar", { name: "Progress" }).getAttribute("value")).toBe("100");
    expect(await logLines().locator("li").count()).toBe(35);
    await checkPage("job-log-completed");
    await checkPhoneWidth("job-log-completed");

    // The download holds every line, whatever the filter shows.
    await page.getByLabel("Level").selectOption("error");
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download log" }).click()]);
    expect(download.suggestedFilename()).toBe(`job-${jobId}.log`);
    const text = readFileSync((await download.path())!, "utf8");
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(35);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO {2}\[attempt 1\] connecting to the ledger at ledger\.internal:5432$/);
    expect(text).toContain("DEBUG [attempt 1] ledger session 7f3a opened");
    expect(text).toContain("WARN  [attempt 1] invoice INV-2026-10-17 has no VAT number; exported without it");
    expect(lines.at(-1)).toContain("exported the remaining 20 invoices");
    expect(text).not.toContain("::progress");
  });

  it("when the API restarts while the page follows a job's log, then the page reconnects and goes on from the last line it had, with no line missing or shown twice", async () => {
    const hub = getHub();
    const goFile = path.join(scratch, "go-after-restart");
    const numbered = (from: number, to: number) => `i=${from}; while [ $i -le ${to} ]; do echo "step $i of 10" >&2; i=$((i+1)); done`;
    const { automationId, workerKey } = await hub.createAutomationWithWorker();
    const keyFile = path.join(scratch, "restart-worker.key");
    writeFileSync(keyFile, `${workerKey}\n`, { mode: 0o600 });
    const script = [numbered(1, 5), `while [ ! -f ${goFile} ]; do sleep 0.1; done`, numbered(6, 10)].join("\n");
    const restartWorker = spawn(
      process.execPath,
      [HUB_WORKER_BIN, "--url", hub.processes.apiUrl, "--api-key-file", keyFile, "--wait", "1", "--", "sh", "-c", script],
      { stdio: "ignore" },
    );
    try {
      const jobId = await hub.createJob(automationId, {});
      await page.goto(`${hub.processes.apiUrl}/console/jobs/${jobId}`);
      await logLines().getByText("step 5 of 10", { exact: true }).waitFor();

      await hub.processes.api.restart();
      writeFileSync(goFile, "");

      await logLines().getByText("step 10 of 10", { exact: true }).waitFor({ timeout: 60_000 });
      expect(await logLines().locator(".log-message").allTextContents()).toEqual(Array.from({ length: 10 }, (_, index) => `step ${index + 1} of 10`));
      await page.getByTestId("job-status").getByText("completed", { exact: true }).waitFor({ timeout: 60_000 });
      // While the API was down the browser reported the refused connections: expected here, and here only.
      const unreachable = /ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|ERR_CONNECTION_RESET|ERR_NETWORK_CHANGED|ERR_INCOMPLETE_CHUNKED_ENCODING|status of 503/;
      browser.problems.splice(0, browser.problems.length, ...browser.problems.filter((problem) => !unreachable.test(problem)));
    } finally {
      restartWorker.kill("SIGTERM");
    }
  });
});
