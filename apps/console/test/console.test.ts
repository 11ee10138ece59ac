/**
 * The operator console in a real browser against a real hub: the API (its production bundle,
 * serving the built console at /console), a dispatcher and an event relay as processes, and a
 * worker of @hub/worker whose handler the tests hold. Each test works in the console as a person
 * would and waits for what the page shows (never for a fixed time); every page it reaches is
 * scanned with axe-core and photographed. The tests build on each other, in order.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createWorker, type HubWorker } from "@hub/worker";
import { buildHubApps } from "@hub/testing";
import { useSystemHub } from "@hub/testing/vitest";
import pino from "pino";
import type { Page } from "playwright-core";
import { launchBrowser, screenshot, seriousAccessibilityViolations, type Browser } from "./browser";

beforeAll(() => buildHubApps(), 600_000);
const getHub = useSystemHub({ relays: 1, runBuilt: true });

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
  expect(browser.problems).toEqual([]);
});

/** The page passes axe-core's serious and critical rules, and is photographed as `name`. */
async function checkPage(page: Page, name: string): Promise<void> {
  expect(await seriousAccessibilityViolations(page), `${name}: serious or critical accessibility violations`).toEqual([]);
  await screenshot(page, name);
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

  it("when a job fails, then its page shows the error, and retrying it from there makes a new job that completes", async () => {
    holdJobs = false;
    const hub = getHub();
    const failing = await hub.createJob(automationId, { month: "flaky" });
    await admin.goto(`${consoleUrl}/jobs/${failing}`);

    await waitForJobStatus(admin, "failed");
    await admin.getByRole("region", { name: "Error" }).getByText("the export service refused flaky").waitFor();
    await admin.getByRole("button", { name: "Retry job" }).click();
    await admin.getByRole("button", { name: "Retry it" }).click();

    await admin.getByText("Retry of", { exact: true }).waitFor();
    expect(admin.url()).not.toContain(failing);
    await waitForJobStatus(admin, "completed");
    expect(await admin.getByRole("link", { name: failing.slice(0, 8) }).isVisible()).toBe(true);
  });

  it("when an admin bulk-cancels the queued jobs, then the dry run's count is shown first, and confirming cancels exactly those; a schedule is paused and resumed", async () => {
    await admin.goto(automationUrl);
    await admin.getByRole("button", { name: "Enter development mode" }).click();
    await admin.getByText("development mode", { exact: true }).waitFor();
    const hub = getHub();
    const queued = [await hub.createJob(automationId, { month: "2026-01" }), await hub.createJob(automationId, { month: "2026-02" }), await hub.createJob(automationId, { month: "2026-03" })];
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
    await events.getByRole("row").filter({ hasText: "job.started" }).filter({ hasText: jobId.slice(0, 8) }).waitFor();
    await row.getByText("0 / 1 / 2").waitFor();
    await releaseJob(jobId);
    await events.getByRole("row").filter({ hasText: "job.completed" }).filter({ hasText: jobId.slice(0, 8) }).waitFor();
    await row.getByText("0 / 0 / 2").waitFor();

    expect(await events.getByRole("row").filter({ hasText: "automation.development_mode_entered" }).count()).toBe(0);
    await checkPage(events, "events");
    await checkPage(admin, "automations");
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
    await erin.setViewportSize({ width: 390, height: 844 });
    await screenshot(erin, "my-account-390");
    await erin.setViewportSize({ width: 1280, height: 800 });
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
    await users.setViewportSize({ width: 390, height: 844 });
    await screenshot(users, "users-390");
    await users.setViewportSize({ width: 1280, height: 800 });
    await erinRow().getByRole("button", { name: "Reactivate erin@hub.test" }).click();
    await erinRow().getByRole("button", { name: "Reactivate", exact: true }).click();
    await erinRow().getByText("active", { exact: true }).waitFor();
    const again = await browser.newPage();
    await signIn(again, "erin@hub.test", "erin-own-password-8");
    await again.close();
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
