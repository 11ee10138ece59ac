/**
 * What a sector-scoped employee sees in the console (CONTRACT §6.22), in a real browser against a
 * real hub: the admin picks the new user's sectors on the users page, the employee then sees only
 * those sectors' automations, and the api keys page shows each key's scope.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildHubApps } from "@hub/testing";
import { useSystemHub } from "@hub/testing/vitest";
import type { Page } from "playwright-core";
import { launchBrowser, screenshot, type Browser } from "./browser";

beforeAll(() => buildHubApps(), 600_000);
const getHub = useSystemHub({ relays: 1, runBuilt: true });

let browser: Browser;
let consoleUrl: string;

beforeAll(async () => {
  browser = await launchBrowser();
  consoleUrl = `${getHub().processes.apiUrl}/console`;
});
afterAll(async () => {
  await browser?.close();
});

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto(consoleUrl);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Automations", level: 1 }).waitFor();
}

/** An admin's request to the API, for arranging data the test is not about. */
async function asAdmin(path: string, body: unknown): Promise<{ id: string }> {
  const { apiUrl, admin } = getHub().processes;
  const login = await fetch(`${apiUrl}/identity/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(admin) });
  const { access_token } = (await login.json()) as { access_token: string };
  const answer = await fetch(`${apiUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${access_token}` },
    body: JSON.stringify(body),
  });
  expect(answer.status).toBe(201);
  return (await answer.json()) as { id: string };
}

describe("sectors in the console", () => {
  it("when an admin creates an employee of one sector, then the employee sees only that sector's automations, and its key list shows the key's scope", async () => {
    const hr = await asAdmin("/sectors", { name: "HR", color: "#AA3366" });
    const finance = await asAdmin("/sectors", { name: "Finance", color: "#3366AA" });
    await asAdmin("/automations", { name: "Payroll run", slug: "payroll-run", sector_id: hr.id });
    await asAdmin("/automations", { name: "Invoice export", slug: "invoice-export", sector_id: finance.id });
    const { admin: credentials } = getHub().processes;
    const admin = await browser.newPage();
    await signIn(admin, credentials.email, credentials.password);

    await admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" }).click();
    await admin.getByRole("heading", { name: "Users", level: 1 }).waitFor();
    await admin.getByLabel("Email").fill("hana@hub.test");
    await admin.getByLabel("Password").fill("hana-password-42");
    await admin.getByLabel("Every sector").uncheck();
    await admin.getByLabel("HR", { exact: true }).check();
    await screenshot(admin, "access-new-user-sectors");
    await admin.getByRole("button", { name: "Create user" }).click();
    await admin.getByRole("row").filter({ hasText: "hana@hub.test" }).waitFor();

    const employee = await browser.newPage();
    await signIn(employee, "hana@hub.test", "hana-password-42");
    await employee.getByRole("link", { name: "Payroll run" }).waitFor();
    expect(await employee.getByRole("link", { name: "Invoice export" }).count()).toBe(0);
    await screenshot(employee, "access-employee-automations");

    await employee
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: /Api keys/ })
      .click();
    await employee.getByLabel("Key name").fill("report");
    await employee.getByLabel(/Read-only/).check();
    await employee.getByRole("button", { name: "Create key" }).click();
    await employee.getByRole("button", { name: "I have stored it" }).click();
    await employee.getByRole("row").filter({ hasText: "report" }).filter({ hasText: "read-only" }).waitFor();
    await screenshot(employee, "access-api-keys");
    await employee.close();
    await admin.close();
  });
});
