/**
 * Single sign-on in the console, in headless Chromium, against a real OpenID provider
 * (oidc-provider's development login and consent pages): the "Sign in with …" button, the
 * one-time code's exchange on return, and a refusal shown as a sentence. Needs the built console
 * (`pnpm --filter @hub/console build`).
 */
import path from "node:path";
import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type Browser, type Page } from "@hub/testing/browser";
import { startTestHub, useStartedHub } from "./harness";
import { CLIENT_ID, CLIENT_SECRET, freePort, startProvider, type TestProvider } from "./oidc-fixtures";

const [providerPort, hubPort] = [await freePort(), await freePort()];
const callback = `http://127.0.0.1:${hubPort}/identity/oidc/callback`;
const SCREENSHOTS = path.resolve(import.meta.dirname, "../../console/test-results/screenshots");

const hub = useStartedHub(() =>
  startTestHub({
    PORT: String(hubPort),
    HUB_PUBLIC_URL: `http://127.0.0.1:${hubPort}`,
    HUB_OIDC_ISSUER: `http://127.0.0.1:${providerPort}`,
    HUB_OIDC_CLIENT_ID: CLIENT_ID,
    HUB_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    HUB_OIDC_ALLOW_INSECURE: "true",
    HUB_OIDC_NAME: "Acme SSO",
  }),
);
let provider: TestProvider;
let browser: Browser;

beforeAll(async () => {
  provider = await startProvider(providerPort, [callback]);
  browser = await launchBrowser();
  // Discovery is retried from the hub's start: wait until it has reached the provider.
  for (let tries = 0; (await fetch(`${hub.api.url}/identity/oidc/login`, { redirect: "manual" })).status !== 302; tries++) {
    if (tries > 100) throw new Error("the hub never discovered the provider");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await provider?.stop();
});

async function shoot(page: Page, name: string) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Clicks the console's button, signs in at the provider as `accountId` and consents. */
async function signInThroughProvider(page: Page, accountId: string) {
  // A new person at the provider: no session left there by an earlier test.
  await browser.context.clearCookies();
  await page.goto(`${hub.api.url}/console/`);
  await page.getByRole("link", { name: "Sign in with Acme SSO" }).click();
  await page.locator('input[name="login"]').fill(accountId);
  await page.locator('input[name="password"]').fill("anything");
  await page.locator('button[type="submit"]').click();
  await page.locator('button[type="submit"]').click();
}

describe("single sign-on in the console", () => {
  it("when a known user clicks Sign in with Acme SSO and signs in at the provider, then the console opens signed in, with no code left in the address", async () => {
    const user = await hub.createUser("employee");
    provider.accounts.set("known", { email: user.email, email_verified: true });
    const page = await browser.newPage();
    await page.goto(`${hub.api.url}/console/`);
    await page.getByRole("link", { name: "Sign in with Acme SSO" }).waitFor();
    await shoot(page, "sso-sign-in");

    await signInThroughProvider(page, "known");
    await page.getByRole("heading", { name: "Automations", level: 1 }).waitFor();
    expect(page.url()).toBe(`${hub.api.url}/console/`);
    expect(await page.evaluate("sessionStorage.length")).toBe(1);
    // oidc-provider's development pages load a web font from the internet, which this machine cannot reach.
    expect(browser.problems.filter((problem) => !problem.includes("ERR_NAME_NOT_RESOLVED"))).toEqual([]);
    await page.close();
  }, 60_000);

  it("when the provider's e-mail has no hub user, then the sign-in page says so in a sentence", async () => {
    provider.accounts.set("stranger", { email: "stranger@hub.test", email_verified: true });
    const page = await browser.newPage();
    await signInThroughProvider(page, "stranger");
    await page.getByText("No hub account has your e-mail address. Ask an admin to create one.").waitFor();
    expect(page.url()).toBe(`${hub.api.url}/console/`);
    await shoot(page, "sso-unknown-user");
    await page.close();
  }, 60_000);
});
