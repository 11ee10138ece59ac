/**
 * The operator console in a real browser against a real hub: the API (its production bundle,
 * serving the built console at /console), a dispatcher and an event relay as processes, and a
 * worker of @hub/worker whose handler the tests hold. Each test works in the console as a person
 * would and waits for what the page shows (never for a fixed time); every page it reaches is
 * scanned with axe-core and photographed. The tests build on each other, in order.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createWorker, type HubWorker } from "@hub/worker";
import { buildHubApps } from "@hub/testing";
import { useSystemHub } from "@hub/testing/vitest";
import pino from "pino";
import type { Page } from "playwright-core";
import { launchBrowser, screenshot, seriousAccessibilityViolations, type Browser } from "./browser";

beforeAll(() => buildHubApps(), 600_000);
// Webhook deliveries go to a receiver on this machine, over http; their secrets are kept encrypted.
const getHub = useSystemHub({
  relays: 1,
  runBuilt: true,
  env: { HUB_WEBHOOKS_ALLOW_PRIVATE: "true", HUB_WEBHOOKS_ALLOW_INSECURE: "true", HUB_WEBHOOK_ENCRYPTION_KEY: randomBytes(32).toString("base64") },
});

let browser: Browser;
/** The admin's tab, signed in by the first test. */
let admin: Page;
let consoleUrl: string;

beforeAll(async () => {
  browser = await launchBrowser();
  consoleUrl = `${getHub().processes.apiUrl}/console`;
});

afterAll(async () => {
  await worker?.stop();
  await browser?.close();
});

afterEach(() => {
  // Refused by the Content-Security-Policy, or a crash: the page would be broken for a user.
  // Taken out as they are checked, so that each test answers for its own.
  expect(browser.problems.splice(0)).toEqual([]);
});

/**
 * The page passes axe-core's serious and critical rules and is photographed as `name`, at a
 * laptop's width and at a phone's (390 px, as `name-390`), where nothing may be wider than the
 * screen: the document's width equals the viewport's (no sideways scrolling), and no element but
 * inside a JSON box (which scrolls its own long lines) reaches past the screen's edge: tables
 * included, which show as one card per row.
 */
async function checkPage(page: Page, name: string): Promise<void> {
  expect(await seriousAccessibilityViolations(page), `${name}: serious or critical accessibility violations`).toEqual([]);
  await screenshot(page, name);
  const laptop = page.viewportSize() ?? { width: 1280, height: 800 };
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    // The layout viewport's width (clientWidth leaves out a scrollbar, which is no overflow).
    const widths = await page.evaluate(() => {
      const viewport = document.documentElement.clientWidth;
      // The innermost elements that reach past the screen's edge, to name in the failure.
      const outside = [...document.querySelectorAll("body *")].filter(
        (element) => element.getBoundingClientRect().right > viewport + 0.5 && !element.parentElement?.closest(".json"),
      );
      const innermost = outside.filter((element) => !outside.some((other) => other !== element && element.contains(other)));
      return {
        document: document.documentElement.scrollWidth,
        viewport,
        culprits: innermost.slice(0, 5).map((element) => `${element.tagName.toLowerCase()}.${element.className} "${(element.textContent ?? "").slice(0, 40)}"`),
        // A box that scrolls sideways inside the page (a table's, say) is sideways scrolling too.
        scrollingBoxes: [...document.querySelectorAll(".table-wrap")].filter((box) => box.scrollWidth > box.clientWidth + 0.5).length,
      };
    });
    expect(widths.document, `${name}: wider than a 390 px screen (${widths.culprits.join("; ")})`).toBe(widths.viewport);
    expect(widths.culprits, `${name}: reaches past a 390 px screen`).toEqual([]);
    expect(widths.scrollingBoxes, `${name}: a table scrolls sideways at 390 px`).toBe(0);
    expect(await seriousAccessibilityViolations(page), `${name} at 390 px: serious or critical accessibility violations`).toEqual([]);
    await screenshot(page, `${name}-390`);
  } finally {
    await page.setViewportSize(laptop);
  }
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto(consoleUrl);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Automations", level: 1 }).waitFor();
}

/** The status badge of the job page being shown. */
const jobStatus = (page: Page) => page.getByTestId("job-status");

/** Waits until the job page shows `status` (as the page updates itself, without a reload). */
async function waitForJobStatus(page: Page, status: string): Promise<void> {
  await jobStatus(page).getByText(status, { exact: true }).waitFor();
}

// ---------------------------------------------------------------- the worker the tests hold

/** Jobs the handler is working on, each waiting for the test to let it finish. */
const held = new Map<string, () => void>();
let holdJobs = true;
/** Contexts whose first run fails (the "failed job retried" test). */
const failOnce = new Set<string>(["flaky"]);
let worker: HubWorker | undefined;

function startWorker(apiKey: string): void {
  worker = createWorker<{ month: string }>({
    url: getHub().processes.apiUrl,
    apiKey,
    concurrency: 2,
    waitSeconds: 1,
    handleSignals: false,
    logger: pino({ level: "silent" }),
    handler: async (job) => {
      if (failOnce.delete(job.context.month)) throw new Error(`the export service refused ${job.context.month}`);
      if (holdJobs) await new Promise<void>((release) => held.set(job.id, release));
      return { rows: 42, month: job.context.month };
    },
  });
  void worker.run();
}

async function releaseJob(jobId: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!held.has(jobId)) {
    if (Date.now() > deadline) throw new Error(`the worker never received job ${jobId}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  held.get(jobId)!();
  held.delete(jobId);
}

// ---------------------------------------------------------------- the scenario

let automationUrl: string;
let automationId: string;
let workerKey: string;

describe("the operator console", () => {
  it("when an admin opens /console and signs in with email and password, then the automations overview shows", async () => {
    admin = await browser.newPage();
    await admin.goto(consoleUrl);
    await admin.getByRole("button", { name: "Sign in" }).waitFor();
    await checkPage(admin, "sign-in");

    const hub = getHub();
    await signIn(admin, hub.processes.admin.email, hub.processes.admin.password);

    await admin.getByText("No automations yet.").waitFor();
    expect(await admin.getByRole("link", { name: "Users" }).isVisible()).toBe(true);
    expect(await admin.evaluate(() => Object.keys(localStorage).length)).toBe(0);
    await admin.getByText("Live", { exact: true }).waitFor();
  });

  it("when the admin creates an automation with a parameter and registers its worker, then the worker's key is shown once, with a copy button and a warning", async () => {
    await admin.getByRole("link", { name: "New automation" }).click();
    await admin.getByRole("heading", { name: "New automation" }).waitFor();
    await admin.getByLabel("Name", { exact: true }).fill("Invoice export");
    await admin.getByLabel("Sector", { exact: true }).selectOption({ label: "New sector…" });
    await admin.getByLabel("Sector name").fill("Finance");
    await admin.getByLabel("Jobs running at once").fill("2");
    await admin.getByRole("button", { name: "Add parameter" }).click();
    await admin.getByLabel("Parameter 1 name").fill("month");
    await admin.getByLabel("Parameter 1 description").fill("The month to export, YYYY-MM");
    await checkPage(admin, "new-automation");
    // A refused new sector: its error stands at the sector's field, not at the automation's same-named one.
    await admin.getByLabel("Sector name").fill("");
    await admin.getByRole("button", { name: "Create automation" }).click();
    await admin.locator('[aria-invalid="true"]').first().waitFor();
    expect(await admin.getByLabel("Sector name").getAttribute("aria-invalid")).toBe("true");
    expect(await admin.getByLabel("Name", { exact: true }).getAttribute("aria-invalid")).toBeNull();
    expect(await admin.getByRole("button", { name: "Create automation" }).isEnabled()).toBe(true);
    await admin.getByLabel("Sector name").fill("Finance");
    await admin.getByRole("button", { name: "Create automation" }).click();

    await admin.getByRole("heading", { name: "Invoice export", level: 1 }).waitFor();
    automationUrl = admin.url();
    automationId = automationUrl.split("/").at(-1)!;
    expect(await admin.getByText("invoice-export · sector Finance").isVisible()).toBe(true);

    await admin.getByLabel("Cloud instance id").fill("i-0abc123");
    await admin.getByRole("button", { name: "Register worker" }).click();
    const key = admin.getByLabel("Worker api key");
    await key.waitFor();
    workerKey = await key.inputValue();
    expect(workerKey.length).toBeGreaterThan(20);
    expect(await admin.getByText("Shown once.").isVisible()).toBe(true);
    expect(await admin.getByRole("button", { name: "Copy" }).isVisible()).toBe(true);
    // The next step: the command that starts the reference worker with the key.
    expect(await admin.getByText(`hub-worker --url ${getHub().processes.apiUrl} --api-key-file /etc/hub/invoice-export.key`).isVisible()).toBe(true);
    await checkPage(admin, "worker-key");
    await admin.getByRole("button", { name: "I have stored it" }).click();
    expect(await admin.getByLabel("Worker api key").count()).toBe(0);
    await admin.getByRole("button", { name: "Rotate key" }).waitFor();
  });

  it("when a job is created from the generated form and the worker runs it, then its page shows queued, running and completed as they happen", async () => {
    let loads = 0;
    admin.on("load", () => (loads += 1));
    await admin.getByRole("link", { name: "New job" }).click();
    await admin.getByRole("heading", { name: "New job for Invoice export" }).waitFor();
    expect(await admin.getByText("The month to export, YYYY-MM").isVisible()).toBe(true);
    await admin.getByLabel("month").fill("2026-10");
    await checkPage(admin, "new-job");
    await admin.getByRole("button", { name: "Create job" }).click();

    await waitForJobStatus(admin, "queued");
    // Registered but never seen: the page says so in words.
    await admin.getByText(/^Waiting: the worker is offline/).waitFor();
    await checkPage(admin, "job-waiting");
    const jobId = admin.url().split("/").at(-1)!;

    startWorker(workerKey);
    await waitForJobStatus(admin, "running");
    await checkPage(admin, "job-running");
    await releaseJob(jobId);
    await waitForJobStatus(admin, "completed");

    await admin.getByRole("region", { name: "Result" }).getByText('"rows": 42').waitFor();
    await admin.getByRole("list").getByText("job.completed").waitFor();
    expect(await admin.getByRole("list").getByText("job.started").isVisible()).toBe(true);
    expect(loads).toBe(0);
    await checkPage(admin, "job");
  });

  it("when a job fails, then its page shows the error, and retrying it with a corrected context from a form prefilled with the old one makes a new job that completes", async () => {
    holdJobs = false;
    const hub = getHub();
    const failing = await hub.createJob(automationId, { month: "flaky" });
    await admin.goto(`${consoleUrl}/jobs/${failing}`);

    await waitForJobStatus(admin, "failed");
    await admin.getByRole("region", { name: "Error" }).getByText("the export service refused flaky").waitFor();
    await admin.getByRole("button", { name: "Retry job…" }).click();
    const month = admin.getByRole("form", { name: "Retry job" }).getByLabel("month");
    expect(await month.inputValue()).toBe("flaky");
    await month.fill("2026-09");
    await checkPage(admin, "job-retry-context");
    await admin.getByRole("button", { name: "Retry with the changed context" }).click();

    await admin.getByText("Retry of", { exact: true }).waitFor();
    expect(admin.url()).not.toContain(failing);
    await waitForJobStatus(admin, "completed");
    await admin.getByRole("region", { name: "Context" }).getByText('"month": "2026-09"').waitFor();
    expect(await admin.getByRole("link", { name: failing }).isVisible()).toBe(true);
    await admin.getByRole("list").getByText("with a changed context").waitFor();
  });

  it("when an admin bulk-cancels the queued jobs, then the dry run's count is shown first, and confirming cancels exactly those; a schedule is paused and resumed", async () => {
    await admin.goto(automationUrl);
    await admin.getByRole("button", { name: "Enter development mode" }).click();
    await admin.getByText("development mode", { exact: true }).waitFor();
    const hub = getHub();
    const queued = [
      await hub.createJob(automationId, { month: "2026-01" }),
      await hub.createJob(automationId, { month: "2026-02" }),
      await hub.createJob(automationId, { month: "2026-03" }),
    ];
    // The jobs list follows live: the three arrive without a reload.
    for (const id of queued) await admin.locator(`tr[data-job="${id}"]`).waitFor();

    await admin.getByLabel("Status", { exact: true }).selectOption("queued");
    await admin.getByRole("button", { name: "Cancel matching jobs…" }).click();
    await admin.getByText("Dry run: 3 queued jobs would be cancelled.").waitFor();
    expect((await hub.statusCounts([automationId])).queued).toBe(3);
    await checkPage(admin, "bulk-cancel");
    await admin.getByRole("button", { name: "Cancel 3 jobs" }).click();

    await admin.getByText("Cancelled 3 jobs.").waitFor();
    await admin.getByText("No job matches these filters.").waitFor();
    expect((await hub.statusCounts([automationId])).queued).toBeUndefined();
    await admin.getByRole("button", { name: "Leave development mode" }).click();
    await admin.getByRole("button", { name: "Enter development mode" }).waitFor();
    await admin.getByLabel("Status", { exact: true }).selectOption("");

    // A schedule made by a set-up script shows up, and the admin pauses and resumes it.
    const created = await hub.client.post(
      `/automations/${automationId}/schedules`,
      { cron: "0 6 * * MON-FRI", timezone: "Europe/Berlin", context: { month: "current" }, key: "weekday-export" },
      { token: hub.adminToken },
    );
    expect(created.status).toBe(201);
    const schedule = admin.getByRole("row").filter({ hasText: "weekday-export" });
    await schedule.getByText("enabled", { exact: true }).waitFor();
    await schedule.getByRole("button", { name: "Pause schedule weekday-export" }).click();
    await schedule.getByText("paused", { exact: true }).waitFor();
    expect((await hub.client.get(`/schedules/${created.body.id}`, { token: hub.adminToken })).body.enabled).toBe(false);
    await schedule.getByRole("button", { name: "Resume schedule weekday-export" }).click();
    await schedule.getByText("enabled", { exact: true }).waitFor();
    await checkPage(admin, "automation");
  });

  it("when jobs run, then the overview's row updates live and the events page tails the log with filters", async () => {
    await admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Automations" }).click();
    const row = admin.locator('tr[data-automation="invoice-export"]');
    await row.waitFor();
    const events = await browser.newPage();
    await events.goto(consoleUrl);
    // A new tab is a new session (the token lives in the tab's sessionStorage).
    await events.getByRole("button", { name: "Sign in" }).waitFor();
    await signIn(events, getHub().processes.admin.email, getHub().processes.admin.password);
    await events.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Events" }).click();
    await events.getByLabel("About").selectOption("job");
    await events.getByRole("button", { name: "Apply filters" }).click();
    await events.getByText("Following live").waitFor();

    holdJobs = true;
    const jobId = await getHub().createJob(automationId, { month: "2026-11" });
    await events.getByRole("row").filter({ hasText: "job.started" }).filter({ hasText: jobId }).waitFor();
    await row.getByText("0 / 1 / 2").waitFor();
    await releaseJob(jobId);
    await events.getByRole("row").filter({ hasText: "job.completed" }).filter({ hasText: jobId }).waitFor();
    await row.getByText("0 / 0 / 2").waitFor();

    expect(await events.getByRole("row").filter({ hasText: "automation.development_mode_entered" }).count()).toBe(0);
    await checkPage(events, "events");
    await checkPage(admin, "automations");

    // The event-type filter offers the catalogue's types; the page reaches further back an hour at a time.
    await events.getByLabel("Event type").selectOption("job.completed");
    await events.getByRole("button", { name: "Apply filters" }).click();
    // The completed row was on the page before the filter applied: wait for the started rows to go, not for it.
    await expect.poll(() => events.getByRole("row").filter({ hasText: "job.started" }).count()).toBe(0);
    await events.getByRole("row").filter({ hasText: "job.completed" }).filter({ hasText: jobId }).waitFor();
    const since = await events.getByText(/^Showing events since/).textContent();
    await events.getByRole("button", { name: "Show the 60 minutes before" }).click();
    await expect.poll(() => events.getByText(/^Showing events since/).textContent()).not.toBe(since);
    await events.close();
  });

  it("when the admin creates an employee on the users page, then the employee signs in and sees no admin action anywhere", async () => {
    await admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" }).click();
    await admin.getByRole("heading", { name: "Users", level: 1 }).waitFor();
    await admin.getByLabel("Email").fill("erin@hub.test");
    await admin.getByLabel("Password").fill("erin-password-42");
    await admin.getByRole("button", { name: "Create user" }).click();
    await admin.getByRole("row").filter({ hasText: "erin@hub.test" }).waitFor();
    await checkPage(admin, "users");

    const employee = await browser.newPage();
    await signIn(employee, "erin@hub.test", "erin-password-42");
    expect(await employee.getByRole("link", { name: "Users" }).count()).toBe(0);
    expect(await employee.getByRole("link", { name: "New automation" }).count()).toBe(0);
    await checkPage(employee, "employee-automations");

    await employee.getByRole("link", { name: "Invoice export" }).click();
    await employee.getByRole("heading", { name: "Jobs" }).waitFor();
    await employee.locator("tr[data-job]").first().waitFor();
    for (const adminOnly of ["Enter development mode", "Deactivate", "Rotate key", "Unregister worker", "Cancel matching jobs…", "Retry matching jobs…"]) {
      expect(await employee.getByRole("button", { name: adminOnly }).count(), adminOnly).toBe(0);
    }
    expect(await employee.getByRole("heading", { name: "Actions" }).count()).toBe(0);
    // What an employee may do is there.
    expect(await employee.getByRole("link", { name: "New job" }).isVisible()).toBe(true);
    await checkPage(employee, "employee-automation");

    // Someone else's job: no cancel or retry.
    await employee.locator("tr[data-job] a").first().click();
    await employee.getByTestId("job-status").waitFor();
    expect(await employee.getByRole("button", { name: /Cancel job|Retry job/ }).count()).toBe(0);
    await employee.close();
  });

  it("when the admin changes erin's role, resets her password, deactivates and reactivates her, then each takes effect, and erin changes her own password on My account", async () => {
    const users = admin;
    const erinRow = () => users.locator('tr[data-user="erin@hub.test"]');
    await users.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" }).click();
    await erinRow().waitFor();

    // A role change, there and back.
    await erinRow().getByRole("button", { name: "Make erin@hub.test an admin" }).click();
    await erinRow().getByRole("button", { name: "Make admin" }).click();
    await erinRow().getByText("admin", { exact: true }).waitFor();
    await erinRow().getByRole("button", { name: "Make erin@hub.test an employee" }).click();
    await erinRow().getByRole("button", { name: "Make employee" }).click();
    await erinRow().getByText("employee", { exact: true }).waitFor();

    // A reset: erin signs in with the new password only.
    await erinRow().getByRole("button", { name: "Reset password of erin@hub.test" }).click();
    await erinRow().getByLabel("New password for erin@hub.test").fill("erin-reset-password-7");
    await checkPage(users, "users-reset-password");
    await erinRow().getByRole("button", { name: "Set password" }).click();
    await erinRow().getByRole("status").getByText("has a new password").waitFor();
    const erin = await browser.newPage();
    await signIn(erin, "erin@hub.test", "erin-reset-password-7");

    // Erin changes her own password and goes on working in the same tab.
    await erin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "My account" }).click();
    await erin.getByRole("heading", { name: "My account", level: 1 }).waitFor();
    await erin.getByLabel("Current password").fill("not-her-password");
    await erin.getByLabel("New password", { exact: true }).fill("erin-own-password-8");
    await erin.getByLabel("Repeat the new password").fill("erin-own-password-8");
    await erin.getByRole("button", { name: "Change password" }).click();
    await erin.getByText("Current password is incorrect").waitFor();
    // The browser reports that answer (403) as a failed load: expected here, and here only.
    const refusal = browser.problems.findIndex((problem) => problem.includes("status of 403"));
    expect(refusal).toBeGreaterThanOrEqual(0);
    browser.problems.splice(refusal, 1);
    await erin.getByLabel("Current password").fill("erin-reset-password-7");
    await erin.getByRole("button", { name: "Change password" }).click();
    await erin.getByRole("status").getByText("Your password is changed").waitFor();
    await checkPage(erin, "my-account");
    await erin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Automations" }).click();
    await erin.getByRole("heading", { name: "Automations", level: 1 }).waitFor();
    expect(await erin.getByRole("heading", { name: "Sign in" }).count()).toBe(0);
    await erin.close();

    // Deactivated, listed on request, and reactivated with the password she had.
    await erinRow().getByRole("button", { name: "Deactivate erin@hub.test" }).click();
    await erinRow().getByRole("button", { name: "Deactivate", exact: true }).click();
    await erinRow().waitFor({ state: "detached" });
    await users.getByLabel("Show deactivated users").check();
    await erinRow().getByText("deactivated", { exact: true }).waitFor();
    await checkPage(users, "users");
    await erinRow().getByRole("button", { name: "Reactivate erin@hub.test" }).click();
    await erinRow().getByRole("button", { name: "Reactivate", exact: true }).click();
    await erinRow().getByText("active", { exact: true }).waitFor();
    const again = await browser.newPage();
    await signIn(again, "erin@hub.test", "erin-own-password-8");
    await again.close();
  });
  it("when an admin edits the automation's settings, then the shared form comes prefilled and the page shows the new retries and timeout", async () => {
    await admin.goto(automationUrl);
    await admin.getByRole("link", { name: "Edit settings" }).click();
    await admin.getByRole("heading", { name: "Edit Invoice export", level: 1 }).waitFor();
    expect(await admin.getByLabel("Name", { exact: true }).inputValue()).toBe("Invoice export");
    expect(await admin.getByLabel("Parameter 1 name").inputValue()).toBe("month");
    expect(await admin.getByLabel("Jobs running at once").inputValue()).toBe("2");
    await admin.getByLabel("Attempts per job").fill("5");
    await admin.getByLabel("Retry back-off (seconds)").fill("30");
    await admin.getByLabel("Timeout (seconds)").fill("600");
    await admin.getByLabel("Description", { exact: true }).fill("Monthly invoices for the accountants");
    await admin.getByLabel("Concurrency key").selectOption("month");
    await admin.getByLabel("Jobs running at once per key value").fill("1");
    await admin.getByLabel("Limit how often jobs start").check();
    await admin.getByLabel("Starts", { exact: true }).fill("100");
    await admin.getByLabel("Per seconds").fill("60");
    await checkPage(admin, "edit-automation");
    // Out of range: the hub's refusal stands at the field, and nothing changes.
    await admin.getByLabel("Attempts per job").fill("500");
    await admin.getByRole("button", { name: "Save changes" }).click();
    await admin.locator('[aria-invalid="true"]').first().waitFor();
    expect(await admin.getByLabel("Attempts per job").getAttribute("aria-invalid")).toBe("true");
    await admin.getByLabel("Attempts per job").fill("5");
    await admin.getByRole("button", { name: "Save changes" }).click();

    await admin.getByRole("heading", { name: "Invoice export", level: 1 }).waitFor();
    const settings = admin.getByRole("region", { name: "Settings" });
    await settings.getByText("30 s, doubling per attempt").waitFor();
    expect(await settings.getByText("600 s").isVisible()).toBe(true);
    expect(await admin.getByText("Monthly invoices for the accountants").isVisible()).toBe(true);
    const stored = await getHub().client.get(`/automations/${automationId}`, { token: getHub().adminToken });
    expect(stored.body).toMatchObject({ max_attempts: 5, retry_backoff_seconds: 30, timeout_seconds: 600, max_concurrent_jobs: 2 });
    expect(stored.body).toMatchObject({ concurrency_key: "month", max_concurrent_per_key: 1, rate_limit: { count: 100, period_seconds: 60, per_key: false } });
    expect(await admin.getByTestId("per-key-limit").innerText()).toBe("1 per month, shared fairly across its values");
    expect(await admin.getByTestId("rate-limit").innerText()).toBe("100 starts per 1 min");
  });

  it("when an admin creates, edits and deletes a schedule, then the form previews the next fire times in the schedule's zone and the list follows", async () => {
    await admin.goto(automationUrl);
    await admin.getByRole("button", { name: "New schedule" }).click();
    const form = admin.getByRole("form", { name: "New schedule" });
    await form.getByLabel("Cron expression").fill("61 * * * *");
    await form.locator('input[aria-invalid="true"]').waitFor();
    expect(await form.getByLabel("Cron expression").getAttribute("aria-invalid")).toBe("true");
    expect(await form.getByLabel("Time zone").getAttribute("aria-invalid")).toBeNull();
    await form.getByLabel("Cron expression").fill("0 6 * * MON-FRI");
    await form.getByLabel("Time zone").fill("Europe/Berlin");
    await form.getByText("Next fire times (Europe/Berlin):").waitFor();
    const times = form.getByRole("listitem");
    await expect.poll(() => times.count()).toBe(5);
    for (const time of await times.allTextContents()) expect(time).toMatch(/06:00/);
    await form.getByLabel("month").fill("current");
    await form.getByLabel("Key", { exact: true }).fill("morning-export");
    await checkPage(admin, "schedule-new");
    await form.getByRole("button", { name: "Create schedule" }).click();

    const row = admin.getByRole("row").filter({ hasText: "morning-export" });
    await row.getByText("enabled", { exact: true }).waitFor();
    await row.getByRole("button", { name: "Edit schedule morning-export" }).click();
    const edit = admin.getByRole("form", { name: "Edit schedule morning-export" });
    expect(await edit.getByLabel("Time zone").inputValue()).toBe("Europe/Berlin");
    expect(await edit.getByLabel("month").inputValue()).toBe("current");
    await edit.getByLabel("Cron expression").fill("30 7 * * *");
    await edit.getByText("Next fire times (Europe/Berlin):").waitFor();
    await edit.getByRole("listitem").first().getByText(/07:30/).waitFor();
    await edit.getByRole("button", { name: "Save schedule" }).click();
    await row.getByText("30 7 * * *").waitFor();

    await row.getByRole("button", { name: "Delete schedule morning-export" }).click();
    await row.getByRole("button", { name: "Keep it" }).waitFor();
    await row.getByRole("button", { name: "Delete schedule" }).click();
    await row.waitFor({ state: "detached" });
    const left = await getHub().client.get(`/automations/${automationId}/schedules`, { token: getHub().adminToken });
    expect(left.body.map((schedule: { key: string | null }) => schedule.key)).toEqual(["weekday-export"]);
  });

  it("when a queued job waits for its run time, then the automation page reschedules it (saying the time zone) or runs it now, and the worker runs it", async () => {
    holdJobs = false;
    await admin.goto(automationUrl);
    const hub = getHub();
    const runAt = new Date(Date.now() + 86_400_000).toISOString();
    const created = await hub.client.post("/jobs", { automation_id: automationId, context: { month: "later" }, run_at: runAt }, { token: hub.adminToken });
    const jobId = created.body.id as string;
    const row = admin.locator(`tr[data-job="${jobId}"]`);
    await row.getByText(/^Waiting: scheduled to run in/).waitFor();

    await row.getByRole("button", { name: `Reschedule… job ${jobId}` }).click();
    expect(await row.getByLabel("Run at (UTC)").isVisible()).toBe(true);
    await row.getByLabel("Priority").fill("40");
    await row.getByRole("button", { name: "Reschedule job" }).click();
    await expect.poll(async () => (await hub.client.get(`/jobs/${jobId}`, { token: hub.adminToken })).body.priority).toBe(40);
    await row.getByRole("button", { name: `Reschedule… job ${jobId}` }).click();
    await checkPage(admin, "job-reschedule");
    await row.getByRole("button", { name: "Keep as it is" }).click();

    await row.getByRole("button", { name: "Run now" }).click();
    await row.getByRole("button", { name: "Keep its time" }).waitFor();
    await row.getByRole("button", { name: "Run it now" }).click();
    await row.getByText("completed", { exact: true }).waitFor();
  });

  it("when jobs of one batch fill several pages of the Jobs page, then each shows an id told apart from the others, filters find them across automations, and bulk cancel takes the filtered set after its dry run", async () => {
    await admin.goto(automationUrl);
    await admin.getByRole("button", { name: "Enter development mode" }).click();
    await admin.getByText("development mode", { exact: true }).waitFor();
    const hub = getHub();
    const batch = await hub.client.post(
      "/jobs/batch",
      {
        jobs: Array.from({ length: 25 }, (_, index) => ({
          automation_id: automationId,
          context: { month: `2025-${String((index % 12) + 1).padStart(2, "0")}` },
        })),
      },
      { token: hub.adminToken },
    );
    expect(batch.status).toBe(201);
    const ids = batch.body.ids as string[];

    await admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Jobs" }).click();
    await admin.getByRole("heading", { name: "Jobs", level: 1 }).waitFor();
    await admin.getByLabel("Automation", { exact: true }).selectOption({ label: "Invoice export" });
    await admin.getByLabel("Status", { exact: true }).selectOption("queued");
    await admin.locator(`tr[data-job="${ids.at(-1)}"]`).waitFor();
    const shownIds = async () => (await admin.locator("tr[data-job] th code span[aria-hidden]").allTextContents()).filter(Boolean);
    const first = await shownIds();
    expect(first.length).toBe(20);
    expect(new Set(first).size).toBe(20);
    await checkPage(admin, "jobs");

    await admin.getByRole("button", { name: "Next page" }).click();
    await admin.getByText("Page 2").waitFor();
    await admin.locator(`tr[data-job="${ids[0]}"]`).waitFor();
    const second = await shownIds();
    expect(second.some((id) => first.includes(id))).toBe(false);
    await admin.getByRole("button", { name: "Previous page" }).click();
    await admin.locator(`tr[data-job="${ids.at(-1)}"]`).waitFor();

    // A context value: the two jobs for March 2025.
    await admin.getByText("More filters").click();
    await admin.getByRole("button", { name: "Add context filter" }).click();
    await admin.getByLabel("Context name 1").fill("month");
    await admin.getByLabel("Context value 1").fill("2025-03");
    await expect.poll(() => admin.locator("tr[data-job]").count()).toBe(2);
    // Bulk actions select by status, automation and creation time only: not with this filter.
    expect(await admin.getByRole("button", { name: "Cancel matching jobs…" }).isDisabled()).toBe(true);
    await checkPage(admin, "jobs-context-filter");
    await admin.getByRole("button", { name: "Remove context filter 1" }).click();

    await admin.getByRole("button", { name: "Cancel matching jobs…" }).click();
    await admin.getByText("Dry run: 25 queued jobs would be cancelled.").waitFor();
    await admin.getByRole("button", { name: "Keep them" }).waitFor();
    await admin.getByRole("button", { name: "Cancel 25 jobs" }).click();
    await admin.getByText("Cancelled 25 jobs.").waitFor();
    await admin.getByText("No job matches these filters.").waitFor();

    // What failed: the flaky job of the retry test, found by its error text across automations.
    await admin.getByRole("button", { name: "Clear filters" }).click();
    await admin.getByRole("button", { name: "Failed in the last hour" }).click();
    await admin.getByLabel("Error contains").fill("refused flaky");
    await expect.poll(() => admin.locator("tr[data-job]").count()).toBe(1);
    await admin.locator("tr[data-job]").getByText("the export service refused flaky").waitFor();
    // The filters live in the address: reloaded (or shared), the page shows the same list.
    await expect.poll(() => new URL(admin.url()).searchParams.get("error_contains")).toBe("refused flaky");
    expect(new URL(admin.url()).searchParams.get("status")).toBe("failed");
    await admin.reload();
    await admin.locator("tr[data-job]").getByText("the export service refused flaky").waitFor();
    expect(await admin.locator("tr[data-job]").count()).toBe(1);
    expect(await admin.getByLabel("Error contains").inputValue()).toBe("refused flaky");
    await admin.goto(automationUrl);
    await admin.getByRole("button", { name: "Leave development mode" }).click();
    await admin.getByRole("button", { name: "Enter development mode" }).waitFor();
  });
  it("when an admin creates a sector, a webhook subscription and an api key, then each secret is shown once, deliveries are listed with redeliver, the secret rotates and a leaked key is found by its prefix and revoked", async () => {
    // Sectors.
    await admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sectors" }).click();
    await admin.getByRole("heading", { name: "Sectors", level: 1 }).waitFor();
    await admin.getByLabel("Sector name").fill("Logistics");
    await admin.getByRole("button", { name: "Create sector" }).click();
    await admin.locator('tr[data-sector="Logistics"]').waitFor();
    expect(await admin.locator('tr[data-sector="Finance"]').count()).toBe(1);
    await checkPage(admin, "sectors");

    // A webhook to a receiver on this machine: created, its secret shown once, its deliveries listed.
    const received: string[] = [];
    const receiver = createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        received.push(String(request.headers["webhook-id"]));
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hub-events`;
      await admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Webhooks" }).click();
      await admin.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();
      await admin.getByLabel("URL").fill(url);
      await admin.getByLabel("Every event type").uncheck();
      await admin.getByLabel("sector.created").check();
      await admin.getByLabel("Webhook description").fill("Warehouse sync");
      await admin.getByRole("button", { name: "Create subscription" }).click();
      const secret = admin.getByLabel("Webhook secret");
      await secret.waitFor();
      expect(await secret.inputValue()).toMatch(/^whsec_/);
      await admin.locator(`tr[data-webhook="${url}"]`).waitFor();
      await checkPage(admin, "webhooks");
      await admin.getByRole("button", { name: "I have stored it" }).click();
      expect(await admin.getByLabel("Webhook secret").count()).toBe(0);

      const created = await getHub().client.post("/sectors", { name: "Returns", color: "#0F766E" }, { token: getHub().adminToken });
      expect(created.status).toBe(201);
      await admin.getByRole("link", { name: url }).click();
      const delivery = admin.locator("tr[data-delivery]").filter({ hasText: "sector.created" });
      await delivery.getByText("delivered", { exact: true }).waitFor();
      expect(received.length).toBe(1);
      await delivery.getByRole("button", { name: /^Redeliver sector.created/ }).click();
      await admin.getByText("Delivery of event sector.created queued again.").waitFor();
      await expect.poll(() => received.length).toBe(2);
      await checkPage(admin, "webhook");

      await admin.getByRole("button", { name: "Rotate secret" }).click();
      await admin.getByRole("button", { name: "Keep the current secret" }).waitFor();
      await admin.getByRole("button", { name: "Rotate secret" }).click();
      expect(await admin.getByLabel("Webhook secret").inputValue()).toMatch(/^whsec_/);
      await admin.getByText("Previous secret signs until").waitFor();
      await admin.getByRole("button", { name: "I have stored it" }).click();
      await admin.getByRole("button", { name: "Delete subscription" }).click();
      await admin.getByRole("button", { name: "Delete subscription" }).click();
      await admin.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();
      await admin.getByText("No subscriptions").waitFor();
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }

    // Api keys: one's own, shown once, then found by its prefix and revoked.
    await admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Api keys" }).click();
    await admin.getByRole("heading", { name: "Api keys", level: 1 }).waitFor();
    await admin.getByLabel("Key name").fill("nightly-report");
    await admin.getByRole("button", { name: "Create key" }).click();
    const keyField = admin.getByLabel("Api key", { exact: true });
    await keyField.waitFor();
    const key = await keyField.inputValue();
    expect(key).toMatch(/^hub_/);
    expect((await getHub().client.get("/identity/me", { token: key })).status).toBe(200);
    await admin.getByRole("button", { name: "I have stored it" }).click();
    await checkPage(admin, "api-keys");
    await admin.getByLabel("Key prefix").fill(key.slice(0, 12));
    await admin.getByRole("button", { name: "Search keys" }).click();
    const found = admin.getByRole("region", { name: "Find a key by prefix" }).locator(`tr[data-key="${key.slice(4, 12)}"]`);
    await found.getByText(getHub().processes.admin.email).waitFor();
    await found.getByRole("button", { name: /^Revoke key nightly-report/ }).click();
    await found.getByRole("button", { name: "Keep it" }).waitFor();
    await found.getByRole("button", { name: "Revoke key" }).click();
    await expect.poll(async () => (await getHub().client.get("/identity/me", { token: key })).status).toBe(401);
  });

  it("when an employee opens the new pages, then she finds every job and her own api keys, and no admin action", async () => {
    const employee = await browser.newPage();
    await signIn(employee, "erin@hub.test", "erin-own-password-8");
    const nav = employee.getByRole("navigation", { name: "Main" });
    expect(await nav.getByRole("link", { name: "Webhooks" }).count()).toBe(0);
    await nav.getByRole("link", { name: "Jobs" }).click();
    await employee.locator("tr[data-job]").first().waitFor();
    expect(await employee.getByRole("button", { name: /matching jobs/ }).count()).toBe(0);
    await checkPage(employee, "employee-jobs");
    await nav.getByRole("link", { name: "Sectors" }).click();
    await employee.locator('tr[data-sector="Logistics"]').waitFor();
    expect(await employee.getByRole("button", { name: "Create sector" }).count()).toBe(0);
    await nav.getByRole("link", { name: "Api keys" }).click();
    await employee.getByRole("button", { name: "Create key" }).waitFor();
    expect(await employee.getByRole("heading", { name: "Find a key by prefix" }).count()).toBe(0);
    await checkPage(employee, "employee-api-keys");
    await employee.goto(automationUrl);
    await employee.getByRole("heading", { name: "Schedules" }).waitFor();
    expect(await employee.getByRole("button", { name: /New schedule|Edit schedule|Delete schedule|Edit settings/ }).count()).toBe(0);
    expect(await employee.getByRole("link", { name: "Edit settings" }).count()).toBe(0);
    await employee.close();
  });

  it("when an automation limits each customer and its start rate, then its page shows both limits and the customers with the most queued jobs", async () => {
    const { client, adminToken } = getHub();
    const asAdmin = { token: adminToken };
    const sector = await client.post<{ id: string }>("/sectors", { name: "Exports", color: "#336699" }, asAdmin);
    const created = await client.post<{ id: string }>(
      "/automations",
      {
        name: "Customer export",
        slug: "customer-export",
        sector_id: sector.body.id,
        parameters: [{ name: "customer", description: "Whose data" }],
        max_concurrent_jobs: 20,
        concurrency_key: "customer",
        max_concurrent_per_key: 2,
        rate_limit: { count: 100, period_seconds: 60, per_key: true },
      },
      asAdmin,
    );
    for (const customer of ["acme", "acme", "globex"]) {
      await client.post("/jobs", { automation_id: created.body.id, context: { customer } }, asAdmin);
    }

    await admin.goto(`${consoleUrl}/automations/${created.body.id}`);
    await admin.getByRole("heading", { name: "Customer export", level: 1 }).waitFor();

    expect(await admin.getByTestId("per-key-limit").innerText()).toBe("2 per customer, shared fairly across its values");
    expect(await admin.getByTestId("rate-limit").innerText()).toBe("100 starts per 1 min for each customer");
    const rows = admin.getByTestId("top-keys").locator("tbody tr");
    await rows.first().waitFor();
    expect(await rows.allInnerTexts()).toEqual(["acme\t2\t0\t100", "globex\t1\t0\t100"]);
    await checkPage(admin, "automation-limits");
  });
});
