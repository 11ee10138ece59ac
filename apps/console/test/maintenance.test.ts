/**
 * Maintenance windows in the console (CONTRACT §6.18), in a real browser against a real hub: the
 * Maintenance page creates a recurring window showing its next five occurrences in its zone as the
 * expression is typed, a window in effect puts a banner on the automation it holds, and a held job's
 * page says when it resumes. Each page is photographed at 1280 and 390 px.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildHubApps } from "@hub/testing";
import { useSystemHub } from "@hub/testing/vitest";
import type { Page } from "playwright-core";
import { launchBrowser, screenshot, type Browser } from "./browser";

beforeAll(() => buildHubApps(), 600_000);
const getHub = useSystemHub({ relays: 1, runBuilt: true });

let browser: Browser;
let page: Page;
let token: string;

beforeAll(async () => {
  browser = await launchBrowser();
  const hub = getHub();
  const login = await fetch(`${hub.processes.apiUrl}/identity/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: hub.processes.admin.email, password: hub.processes.admin.password }),
  });
  token = ((await login.json()) as { access_token: string }).access_token;
  page = await browser.newPage();
  await page.goto(`${hub.processes.apiUrl}/console`);
  await page.getByLabel("Email").fill(hub.processes.admin.email);
  await page.getByLabel("Password").fill(hub.processes.admin.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Automations", level: 1 }).waitFor();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(() => {
  expect(browser.problems.splice(0)).toEqual([]);
});

async function api<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = { authorization: `Bearer ${token}` }): Promise<T> {
  const answer = await fetch(`${getHub().processes.apiUrl}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`);
  return (answer.status === 204 ? undefined : await answer.json()) as T;
}

/** Photographs the page at 1280 px and at 390 px, where it must not scroll sideways. */
async function photograph(name: string): Promise<void> {
  await screenshot(page, name);
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const widths = await page.evaluate(() => {
      const viewport = document.documentElement.clientWidth;
      const outside = [...document.querySelectorAll("body *")].filter((element) => element.getBoundingClientRect().right > viewport + 0.5);
      const innermost = outside.filter((element) => !outside.some((other) => other !== element && element.contains(other)));
      return {
        document: document.documentElement.scrollWidth,
        viewport,
        culprits: innermost.slice(0, 5).map((element) => `${element.tagName.toLowerCase()}.${element.className}`),
      };
    });
    expect(widths.document, `${name} is wider than a 390 px screen (${widths.culprits.join("; ")})`).toBe(widths.viewport);
    await screenshot(page, `${name}-390`);
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
}

describe("maintenance windows in the console", () => {
  it("when an admin types a recurring window on the Maintenance page, then the next five occurrences show in its zone, and creating it lists it", async () => {
    await page.goto(`${getHub().processes.apiUrl}/console/maintenance`);
    await page.getByRole("heading", { name: "Maintenance", level: 1 }).waitFor();
    await page.getByRole("button", { name: "New maintenance window" }).click();
    await page.getByLabel("Again and again (cron)").check();
    await page.getByLabel("Cron expression").fill("0 1 * * SUN");
    await page.getByLabel("Time zone").fill("Europe/Berlin");
    await page.getByLabel("Window description").fill("ERP backup every Sunday night");
    await page.getByText("Next occurrences (Europe/Berlin):").waitFor();
    expect(await page.locator(".preview-times li").count()).toBe(5);
    expect(await page.locator(".preview-times li").first().innerText()).toMatch(/Sun.*01:00.*(CET|CEST|GMT\+1|GMT\+2).*03:00/);
    await photograph("maintenance-new-window");
    await page.getByRole("button", { name: "Create window" }).click();
    await page.getByRole("heading", { name: "ERP backup every Sunday night" }).waitFor();
    await photograph("maintenance-windows");
  });

  it("when a window holds an automation, then its page shows a banner and a held job's page says when it resumes", async () => {
    const sector = await api("POST", "/sectors", { name: "Maintenance night", color: "#663399" });
    const automation = await api("POST", "/automations", { name: "ERP export", slug: "maintenance-erp-export", sector_id: sector.id });
    await api("POST", `/automations/${automation.id}/worker`, { cloud_instance_id: "i-maintenance" });
    const endsAt = new Date(Date.now() + 2 * 3_600_000).toISOString();
    await api("POST", "/maintenance-windows", {
      sector_id: sector.id,
      starts_at: new Date(Date.now() - 60_000).toISOString(),
      ends_at: endsAt,
      description: "ERP upgrade",
    });
    const job = await api("POST", "/jobs", { automation_id: automation.id });

    await page.goto(`${getHub().processes.apiUrl}/console/automations/${automation.id}`);
    // The banner, not the jobs table's "Waiting: a maintenance window holds this automation" note below it.
    await page.getByRole("status").filter({ hasText: "A maintenance window holds this automation: no job starts until" }).waitFor();
    await photograph("maintenance-banner");
    await page.goto(`${getHub().processes.apiUrl}/console/jobs/${job.id}`);
    await page.getByText("a maintenance window holds this automation; it resumes at").waitFor();
    await photograph("maintenance-held-job");
  });
});
