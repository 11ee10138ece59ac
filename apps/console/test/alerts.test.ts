/**
 * CONTRACT §6.19 in the console, in a real browser against a real hub (a dispatcher evaluating
 * every 500 ms): the alert firing now shows on every page as a bar with its message and a link to
 * its automation; the Alerts page lists it, the rules (an admin creates one there) and the history.
 * Photographed at 1280 and 390 px, where no page scrolls sideways.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildHubApps } from "@hub/testing";
import { useSystemHub } from "@hub/testing/vitest";
import type { Page } from "playwright-core";
import { launchBrowser, screenshot, type Browser } from "./browser";

beforeAll(() => buildHubApps(), 600_000);
const getHub = useSystemHub({ relays: 1, runBuilt: true, env: { HUB_ALERTS_EVALUATION_INTERVAL_MS: "500" } });

let browser: Browser;
let page: Page;
let token: string;

async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const answer = await fetch(`${getHub().processes.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`);
  return (answer.status === 204 ? undefined : await answer.json()) as T;
}

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

/** Photographs the page at 1280 px and at 390 px, where it must not scroll sideways. */
async function photograph(name: string): Promise<void> {
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

describe("alerts in the console", () => {
  it("when a queue_age alert fires, then every page shows its message in the bar, linking to the automation, and the Alerts page lists it with its rule", async () => {
    const hub = getHub();
    const sector = await api<{ id: string }>("POST", "/sectors", { name: "Finance", color: "#1D4ED8" });
    const automation = await api<{ id: string }>("POST", "/automations", { name: "Invoice export", slug: "invoice-export", sector_id: sector.id });
    await api("POST", "/jobs", { automation_id: automation.id, context: {} });
    await hub.database.pool.query("update jobs set available_at = now() - interval '12 minutes' where automation_id = $1", [automation.id]);
    await api("POST", "/alert-rules", {
      automation_id: automation.id,
      kind: "queue_age",
      threshold: 600,
      description: "Invoices must leave within 10 minutes",
    });
    const message = "Invoice export: the oldest queued job has waited 12 min (alert at 10 min); no worker is registered";

    const bar = page.getByRole("region", { name: "Alerts firing now" });
    await bar.getByRole("link", { name: message }).waitFor({ timeout: 20_000 });
    await photograph("alerts-bar-automations");

    await page.getByRole("link", { name: "Jobs", exact: true }).click();
    await page.getByRole("heading", { name: "Jobs", level: 1 }).waitFor();
    await expect(bar.getByRole("link", { name: message }).isVisible()).resolves.toBe(true);

    await bar.getByRole("link", { name: /alert and its rules/ }).click();
    await page.getByRole("heading", { name: "Alerts", level: 1 }).waitFor();
    await page.getByRole("heading", { name: "Firing now" }).waitFor();
    const main = page.locator("main");
    await expect(main.getByText(message).isVisible()).resolves.toBe(true);
    await expect(main.getByText("Fires when the oldest queued job waits over 10 min.").isVisible()).resolves.toBe(true);
    await photograph("alerts-page");

    await bar.getByRole("link", { name: message }).click();
    await page.getByRole("heading", { name: "Invoice export", level: 1 }).waitFor();
  });

  it("when an admin creates a queue depth rule on the Alerts page, then it is listed, and a wrong threshold is said at its field", async () => {
    await page.getByRole("link", { name: "Alerts", exact: true }).click();
    await page.getByRole("heading", { name: "Alerts", level: 1 }).waitFor();
    await page.getByText("New rule").click();
    await page.getByLabel("Kind").selectOption("queue_depth");
    await page.getByLabel("Threshold (jobs)").fill("0");
    await page.getByRole("button", { name: "Create rule" }).click();
    await page.getByText("Input should be greater than or equal to 1").first().waitFor();

    await page.getByLabel("Threshold (jobs)").fill("500");
    await page.getByRole("button", { name: "Create rule" }).click();
    await page.getByRole("status").filter({ hasText: "Queue depth rule created." }).waitFor();
    await page.getByText("Fires when 500 or more jobs are queued.").waitFor();
    await photograph("alerts-new-rule");
  });
});
