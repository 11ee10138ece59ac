/**
 * What a sector-scoped employee sees in the console (CONTRACT §6.22), in a real browser against a
 * real hub: the admin picks the new user's sectors on the users page (and changes them later), the
 * employee then sees only those sectors' automations, and the api keys page scopes a key to chosen
 * automations and shows each key's scope.
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

  it("when an admin changes an employee's sectors on the users page, then the employee reaches the new ones, and a key scoped to one automation in the key form reaches only it", async () => {
    const { admin: credentials, apiUrl } = getHub().processes;
    const admin = await browser.newPage();
    await signIn(admin, credentials.email, credentials.password);
    await admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" }).click();
    const hana = admin.getByRole("row").filter({ hasText: "hana@hub.test" });
    await hana.getByText("HR", { exact: true }).waitFor();
    await hana.getByRole("button", { name: "Change sectors of hana@hub.test" }).click();
    const editor = admin.getByRole("form", { name: "Sectors of hana@hub.test" });
    await editor.getByLabel("Finance", { exact: true }).check();
    await screenshot(admin, "access-user-sectors");
    await editor.getByRole("button", { name: "Save sectors" }).click();
    await hana.getByText(/^(HR, Finance|Finance, HR)$/).waitFor();
    await admin.close();

    const employee = await browser.newPage();
    await signIn(employee, "hana@hub.test", "hana-password-42");
    await employee.getByRole("link", { name: "Invoice export" }).waitFor();
    await employee
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: /Api keys/ })
      .click();
    await employee.getByLabel("Key name").fill("payroll-only");
    await employee.getByLabel("Every automation you reach").uncheck();
    await employee.getByLabel("Find an automation").fill("payroll");
    // Ticked, it moves from what the search found to what is picked.
    await employee.getByRole("group", { name: "Automations found" }).getByLabel("Payroll run").click();
    await employee.getByRole("group", { name: "Picked automations" }).getByLabel("Payroll run").waitFor();
    await screenshot(employee, "access-key-scope");
    await employee.getByRole("button", { name: "Create key" }).click();
    const key = await employee.getByLabel("Api key", { exact: true }).inputValue();
    await employee.getByRole("button", { name: "I have stored it" }).click();
    await employee.getByRole("row").filter({ hasText: "payroll-only" }).filter({ hasText: "Payroll run" }).waitFor();

    const reached = await fetch(`${apiUrl}/automations`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await reached.json()) as { slug: string }[]).map((automation) => automation.slug)).toEqual(["payroll-run"]);
    await employee.close();
  });
});
