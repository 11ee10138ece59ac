/**
 * What the second-day review found in the console (CONTRACT §6.21), in a real browser against a
 * real hub: input holding a right-to-left override is shown with a visible marker, never
 * applied; a failed job says why it was not retried, without the `::warn` prefix and with the
 * error once; *Rotate key* asks for an overlap (10 minutes offered) and says what happens to the
 * running jobs without one; a failed job links its retry and the retry links back; a relative time
 * reads the same on two pages and moves on its own; the events page at 390 px shows cards. Each
 * page is photographed at 1280 and 390 px.
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
  await signIn(page);
});

/** Signs the admin in on `tab` (each tab is its own session). */
async function signIn(tab: Page): Promise<void> {
  const hub = getHub();
  await tab.goto(`${hub.processes.apiUrl}/console`);
  await tab.getByLabel("Email").fill(hub.processes.admin.email);
  await tab.getByLabel("Password").fill(hub.processes.admin.password);
  await tab.getByRole("button", { name: "Sign in" }).click();
  await tab.getByRole("heading", { name: "Automations", level: 1 }).waitFor();
}
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

describe("the console on its second day", () => {
  let automationId: string;
  let workerKey: string;

  it("when a failed job's log line and its automation's name hold U+202E, then the page shows the marker and the text in its own order, the error once, and why it was not retried", async () => {
    const sector = await api("POST", "/sectors", { name: "Second day", color: "#336699" });
    const created = await api("POST", "/automations", { name: "Exports \u202Efdp.exe", slug: "second-day-exports", sector_id: sector.id, max_attempts: 3 });
    automationId = created.id;
    workerKey = (await api("POST", `/automations/${automationId}/worker`, { cloud_instance_id: "i-second-day" })).api_key;
    const job = await api("POST", "/jobs", { automation_id: automationId, context: { month: "2026-11" } });
    const worker = { "x-worker-api-key": workerKey };
    let claimed: { id: string } | undefined;
    for (let tries = 0; !claimed && tries < 50; tries += 1) claimed = await api("POST", "/jobs/claim", { wait_seconds: 1 }, worker);
    expect(claimed?.id).toBe(job.id);
    await api("POST", `/jobs/${job.id}/logs`, { lines: [{ message: "invoice \u202Egnp.exe", level: "warn" }] }, worker);
    await api("POST", `/jobs/${job.id}/fail`, { error: "::warn disk almost full\nexit code 3", retryable: false }, worker);

    await page.goto(`${getHub().processes.apiUrl}/console/jobs/${job.id}`);
    await page.getByRole("heading", { name: "Error" }).waitFor();
    await page.getByText("invoice ⟨U+202E⟩gnp.exe").waitFor();

    // The breadcrumb names the automation once it has loaded.
    await page.getByText("Exports ⟨U+202E⟩fdp.exe").first().waitFor();
    const pageText = await page.locator("main").innerText();
    expect(pageText).not.toContain("\u202E");
    expect(pageText).not.toContain("::warn");
    expect(pageText.split("exit code 3").length - 1).toBe(1);
    expect(pageText).toContain("after 1 attempt");
    expect(pageText).not.toContain("1 attempts");
    expect(pageText).toContain("Not tried again (2 attempts left): the worker reported this failure as final");
    await photograph("failed-job");
  });

  it("when a failed job is retried, then its page links the retry, and the retry's page links back to it", async () => {
    const failed = await api("POST", "/jobs", { automation_id: automationId, context: { month: "2026-12" } });
    const worker = { "x-worker-api-key": workerKey };
    let claimed: { id: string } | undefined;
    for (let tries = 0; !claimed && tries < 50; tries += 1) claimed = await api("POST", "/jobs/claim", { wait_seconds: 1 }, worker);
    expect(claimed?.id).toBe(failed.id);
    await api("POST", `/jobs/${failed.id}/fail`, { error: "exit code 3", retryable: false }, worker);
    await page.goto(`${getHub().processes.apiUrl}/console/jobs/${failed.id}`);
    await page.getByRole("heading", { name: "Error" }).waitFor();
    expect(await page.getByTestId("retried-as").count()).toBe(0);

    // Retried elsewhere while the page is open: the link appears without a reload.
    const retry = await api("POST", `/jobs/${failed.id}/retry`);
    const link = page.getByTestId("retried-as").getByRole("link");
    await link.waitFor();
    await photograph("failed-job-retried");
    await link.click();
    await page.waitForURL(`**/console/jobs/${retry.id}`);
    await page.getByText("Retry of", { exact: true }).waitFor();
    const back = page.locator("dd").filter({ has: page.locator(`a[href$="/jobs/${failed.id}"]`) });
    expect(await back.count()).toBe(1);
  });

  it("when a job's created time shows on the jobs list and on its own page, then both read the same, and it moves on without a reload", async () => {
    const job = await api("POST", "/jobs", { automation_id: automationId, context: { month: "2027-01" } });
    const list = await browser.newPage();
    await signIn(list);
    await list.goto(`${getHub().processes.apiUrl}/console/jobs`);
    await page.goto(`${getHub().processes.apiUrl}/console/jobs/${job.id}`);
    const onList = list.locator(`tr[data-job="${job.id}"] td[data-label="Created"]`);
    const onPage = page.locator("dt", { hasText: /^Created$/ }).locator("xpath=following-sibling::dd[1]");
    await onList.waitFor();
    await onPage.waitFor();
    const read = async () => {
      const [listed, shown] = await Promise.all([onList.innerText(), onPage.innerText()]);
      return { listed: /^(just now|\d+ s ago)/.exec(listed)?.[0], shown };
    };
    // Both tabs tick at each whole second: they agree but for the few milliseconds after a tick.
    const agree = async () => {
      for (let tries = 0; tries < 5; tries += 1) {
        const { listed, shown } = await read();
        if (listed === shown) return shown;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const { listed, shown } = await read();
      expect(listed, "the jobs list and the job's page read the same relative time").toBe(shown);
      return shown;
    };
    const before = await agree();
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const after = await agree();

    expect(after).toMatch(/^\d+ s ago$/);
    expect(after).not.toBe(before);
    await list.close();
  });

  it("when the events page is read on a 390 px phone, then each event is a card whose payload takes the card's width, and nothing scrolls sideways", async () => {
    await page.goto(`${getHub().processes.apiUrl}/console/events`);
    await page.locator("tbody th", { hasText: "job.created" }).first().waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      const shape = await page.evaluate(() => ({
        payloadWidths: [...document.querySelectorAll(".payload")].map((payload) => payload.getBoundingClientRect().width),
        jobRowHeights: [...document.querySelectorAll("tbody tr")]
          .filter((row) => row.querySelector("th")?.textContent?.startsWith("job."))
          .map((row) => row.getBoundingClientRect().height),
        tableScrolls: [...document.querySelectorAll(".table-wrap")].some((box) => box.scrollWidth > box.clientWidth + 0.5),
        pageScrolls: document.documentElement.scrollWidth > document.documentElement.clientWidth,
      }));
      expect(shape.payloadWidths.length).toBeGreaterThan(3);
      for (const width of shape.payloadWidths) expect(width).toBeGreaterThan(300);
      // A job's event (a job.created with its context, say) fits in a few lines, not 262 px.
      expect(shape.jobRowHeights.length).toBeGreaterThan(3);
      expect(Math.max(...shape.jobRowHeights)).toBeLessThan(200);
      expect(shape.tableScrolls).toBe(false);
      expect(shape.pageScrolls).toBe(false);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it("when an admin rotates the worker's key, then the dialog offers a 10-minute overlap, says what happens to running jobs without one, and the old key still works during the overlap", async () => {
    await page.goto(`${getHub().processes.apiUrl}/console/automations/${automationId}`);
    await page.getByRole("button", { name: "Rotate key" }).click();
    const overlap = page.getByLabel("Keep the current key working for");

    expect(await overlap.inputValue()).toBe("600");
    expect(await page.getByRole("option", { name: "10 minutes" }).count()).toBe(1);
    await page.getByText("Time to restart the worker with the new key").waitFor();
    await overlap.selectOption("0");
    await page.getByText("the jobs it is running go back to the queue").waitFor();
    await photograph("rotate-key");
    await overlap.selectOption("600");
    await page.getByRole("button", { name: "Rotate the key" }).click();
    await page.getByLabel("Worker api key").waitFor();

    const oldKeyStillWorks = await fetch(`${getHub().processes.apiUrl}/jobs/claim`, {
      method: "POST",
      headers: { "x-worker-api-key": workerKey, "content-type": "application/json" },
      body: JSON.stringify({ wait_seconds: 0 }),
    });
    expect([200, 204]).toContain(oldKeyStillWorks.status);
  });
});
