/**
 * Approvals in the console (CONTRACT §6.17), in a real browser against a real hub: an admin sets
 * an automation's approvers by e-mail on its form; the employee who created a job cannot decide
 * it; an employee approver sees the count in the navigation, finds the job on the Approvals page
 * with its automation, context, creator and age, and approves it; the job page shows the decision.
 * Each page is photographed at 1280 and 390 px.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildHubApps } from "@hub/testing";
import { useSystemHub } from "@hub/testing/vitest";
import type { Page } from "playwright-core";
import { launchBrowser, screenshot, seriousAccessibilityViolations, type Browser } from "./browser";

beforeAll(() => buildHubApps(), 600_000);
const getHub = useSystemHub({ relays: 1, runBuilt: true });

const PASSWORD = "a-long-enough-password-1";
let browser: Browser;
let token: string;

beforeAll(async () => {
  browser = await launchBrowser();
  token = await logIn(getHub().processes.admin.email, getHub().processes.admin.password);
});
afterAll(async () => {
  await browser?.close();
});
afterEach(() => {
  expect(browser.problems.splice(0)).toEqual([]);
});

const url = (path: string) => `${getHub().processes.apiUrl}${path}`;

async function logIn(email: string, password: string): Promise<string> {
  const answer = await fetch(url("/identity/token"), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  return ((await answer.json()) as { access_token: string }).access_token;
}

async function api<T = any>(method: string, path: string, body?: unknown, bearer = token): Promise<T> {
  const answer = await fetch(url(path), {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`);
  return (answer.status === 204 ? undefined : await answer.json()) as T;
}

/** A page signed in as `email`. */
async function signedIn(email: string, password = PASSWORD): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(url("/console"));
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Automations", level: 1 }).waitFor();
  return page;
}

/** Photographs the page at 1280 px and at 390 px, where it must not scroll sideways. */
async function photograph(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const widths = await page.evaluate(() => ({ document: document.documentElement.scrollWidth, viewport: document.documentElement.clientWidth }));
    expect(widths.document, `${name} is wider than a 390 px screen`).toBe(widths.viewport);
    await screenshot(page, `${name}-390`);
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
}

describe("approvals in the console", () => {
  const approverEmail = "approver@approvals.test";
  const creatorEmail = "creator@approvals.test";
  let automationId: string;
  let jobId: string;

  it("when an admin edits an automation, then the form sets that its jobs need an approval, picks the approver by e-mail and sets the expiry", async () => {
    const sector = await api("POST", "/sectors", { name: "Finance", color: "#336699" });
    await api("POST", "/identity/users", { email: approverEmail, password: PASSWORD, role: "employee" });
    await api("POST", "/identity/users", { email: creatorEmail, password: PASSWORD, role: "employee" });
    automationId = (
      await api("POST", "/automations", {
        name: "Supplier payouts",
        slug: "supplier-payouts",
        sector_id: sector.id,
        parameters: [{ name: "batch", description: "" }],
      })
    ).id;
    const page = await signedIn(getHub().processes.admin.email, getHub().processes.admin.password);

    await page.goto(url(`/console/automations/${automationId}/edit`));
    await page.getByLabel("Every job needs an approval before it runs").check();
    await page.getByLabel("Approver e-mail").fill(approverEmail);
    await page.getByRole("button", { name: "Add approver" }).click();
    await page.getByRole("group", { name: "Approvers" }).getByText(approverEmail).waitFor();
    await page.getByLabel("Expires after (minutes)").fill("240");
    await photograph(page, "automation-approval-settings");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.waitForURL(url(`/console/automations/${automationId}`));

    const automation = await api("GET", `/automations/${automationId}`);
    const approver = (await api<Array<{ id: string; email: string }>>("GET", "/identity/users")).find((user) => user.email === approverEmail)!;
    expect(automation).toMatchObject({ requires_approval: true, approver_ids: [approver.id], approval_timeout_seconds: 14_400 });
    await page.close();
  });

  it("when the employee who created a job opens it, then it awaits approval and the page says someone else decides, with no Approve button", async () => {
    const creatorToken = await logIn(creatorEmail, PASSWORD);
    jobId = (await api("POST", "/jobs", { automation_id: automationId, context: { batch: "2026-12 suppliers" } }, creatorToken)).id;
    const page = await signedIn(creatorEmail);

    await page.goto(url(`/console/jobs/${jobId}`));
    await page.getByTestId("approval-status").getByText("Awaiting approval").waitFor();
    await page.getByText("You created this job, so someone else decides its approval.").waitFor();

    expect(await page.getByRole("button", { name: /^Approve/ }).count()).toBe(0);
    expect(await page.getByTestId("approval-count").count()).toBe(0);
    await page.goto(url("/console/approvals"));
    await page.getByText("Nothing waits for your approval.").waitFor();
    await page.close();
  });

  it("when the employee approver signs in, then the navigation counts the job, the Approvals page shows it, and approving it records the decision", async () => {
    const page = await signedIn(approverEmail);
    await page.getByTestId("approval-count").getByText("1").waitFor();

    await page.getByRole("link", { name: /Approvals/ }).click();
    const item = page.getByRole("listitem").filter({ hasText: "Supplier payouts" });
    await item.getByText(creatorEmail).waitFor();
    await item.getByText("2026-12 suppliers").waitFor();
    await item.getByText(/since/).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await photograph(page, "approvals");

    await item.getByRole("button", { name: /^Reject/ }).click();
    await item.getByRole("button", { name: "Reject job" }).click();
    await item.getByText("a comment is required to reject").waitFor();
    await item.getByRole("button", { name: "Don't decide now" }).click();
    await item.getByRole("button", { name: /^Approve/ }).click();
    await item.getByLabel("Comment (optional)").fill("Checked against the supplier list");
    await item.getByRole("button", { name: "Approve job" }).click();
    await page.getByText("Nothing waits for your approval.").waitFor();
    await page.getByTestId("approval-count").waitFor({ state: "detached" });

    await page.goto(url(`/console/jobs/${jobId}`));
    await page.getByTestId("approval-status").getByText("Approved").waitFor();
    await page.getByText("Checked against the supplier list").first().waitFor();
    expect(await page.getByTestId("approval-decider").innerText()).toBe("you");
    await photograph(page, "approved-job");
    const job = await api("GET", `/jobs/${jobId}`);
    expect(job.approval).toMatchObject({ status: "approved", comment: "Checked against the supplier list" });
    await page.close();
  });

  it("when an admin opens the decided job, then it names the decider by e-mail, not by id", async () => {
    const page = await signedIn(getHub().processes.admin.email, getHub().processes.admin.password);
    await page.goto(url(`/console/jobs/${jobId}`));
    await page.getByTestId("approval-decider").getByText(approverEmail).waitFor();
    await page.close();
  });
});
