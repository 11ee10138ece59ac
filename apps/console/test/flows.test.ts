/**
 * Flows in the console (CONTRACT §6.16), in a real browser against a real hub: a job's page shows
 * its dependencies and dependents with their live status and which dependency a waiting job waits
 * for; the new-job form takes dependencies; a failed job offers *Retry with dependents*. Each page
 * is photographed at 1280 and 390 px, where it must not scroll sideways.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildHubApps } from "@hub/testing";
import { useSystemHub } from "@hub/testing/vitest";
import type { Page } from "playwright-core";
import { launchBrowser, screenshot, seriousAccessibilityViolations, type Browser } from "./browser";

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

/** An automation with a registered worker; returns its id and the worker's headers. */
async function automation(slug: string, body: Record<string, unknown> = {}) {
  const sector = await api("POST", "/sectors", { name: `Flows ${slug}`, color: "#336699" });
  const created = await api("POST", "/automations", { name: `Flows ${slug}`, slug, sector_id: sector.id, ...body });
  const key = (await api("POST", `/automations/${created.id}/worker`, { cloud_instance_id: `i-${slug}` })).api_key as string;
  return { id: created.id as string, worker: { "x-worker-api-key": key } };
}

async function claimOne(worker: Record<string, string>, expected: string): Promise<void> {
  let claimed: { id: string } | undefined;
  for (let tries = 0; !claimed && tries < 50; tries += 1) claimed = await api("POST", "/jobs/claim", { wait_seconds: 1 }, worker);
  expect(claimed?.id).toBe(expected);
}

describe("flows in the console", () => {
  it("when a job waits for two exports, then its page shows them with live status and what it still waits for; a failed export offers Retry with dependents", async () => {
    const exports = await automation("flow-exports", { max_attempts: 1, max_concurrent_jobs: 1 });
    const consolidate = await automation("flow-consolidate");
    const { ids } = await api<{ ids: string[] }>("POST", "/jobs/batch", {
      jobs: [
        { automation_id: exports.id, context: { country: "fr" } },
        { automation_id: exports.id, context: { country: "de" } },
        { automation_id: consolidate.id, depends_on: [0, 1] },
      ],
    });
    const [fr, de, total] = ids as [string, string, string];

    await page.goto(`${getHub().processes.apiUrl}/console/jobs/${total}`);
    await page.getByRole("heading", { name: "Flow", exact: true }).waitFor();
    await page.getByTestId("waits-for").getByText("Waits for 2 jobs").waitFor();
    expect(await page.getByTestId("flow-node").count()).toBe(2);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await photograph("job-flow-waiting");

    await claimOne(exports.worker, fr);
    await api("POST", `/jobs/${fr}/complete`, { result: { rows: 3 } }, exports.worker);
    // Live: the node of fr turns completed and the job now waits for one.
    await page.getByTestId("waits-for").getByText("Waits for job").waitFor();
    await page.getByTestId("flow-node").filter({ hasText: "completed" }).waitFor();

    await claimOne(exports.worker, de);
    await api("POST", `/jobs/${de}/fail`, { error: "the ERP is down", retryable: false }, exports.worker);
    await page.getByTestId("job-status").getByText("cancelled").waitFor();

    await page.goto(`${getHub().processes.apiUrl}/console/jobs/${de}`);
    await page.getByRole("heading", { name: "Flow", exact: true }).waitFor();
    await page.getByRole("button", { name: "Retry with dependents" }).click();
    await photograph("job-flow-retry");
    await page.getByRole("button", { name: "Retry with dependents" }).last().click();
    await page.waitForURL((url) => !url.pathname.endsWith(de));
    const retriedId = page.url().split("/").at(-1)!;
    const retried = await api("GET", `/jobs/${retriedId}`);
    expect(retried).toMatchObject({ retry_of: de, status: "queued" });
    const [again] = await api<Array<{ retry_of: string; depends_on: string[] }>>("GET", `/jobs?depends_on=${retriedId}`);
    expect(again).toMatchObject({ retry_of: total, depends_on: [fr, retriedId] });
  });

  it("when the new-job form is given a dependency, then the job is created waiting for it", async () => {
    const subject = await automation("flow-form");
    const first = await api("POST", "/jobs", { automation_id: subject.id });
    await page.goto(`${getHub().processes.apiUrl}/console/automations/${subject.id}/new-job`);
    await page.getByLabel("Depends on").fill(first.id);
    await page.getByLabel("If a dependency fails or is cancelled").selectOption("run");
    await photograph("new-job-dependencies");
    await page.getByRole("button", { name: "Create job" }).click();
    await page.waitForURL((url) => url.pathname.includes("/console/jobs/"));
    await page.getByRole("heading", { name: "Flow", exact: true }).waitFor();
    const createdId = page.url().split("/").at(-1)!;
    expect(await api("GET", `/jobs/${createdId}`)).toMatchObject({ depends_on: [first.id], on_dependency_failure: "run", pending_dependencies: 1 });
  });
});
