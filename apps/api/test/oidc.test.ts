/**
 * Single sign-on against a real OpenID provider (oidc-provider) on 127.0.0.1, driven through its
 * real redirects (CONTRACT §6.22). The provider starts only after both hubs: they start, and
 * serve passwords, while it is down.
 */
import { afterAll, describe, expect, it } from "vitest";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestHub, useStartedHub, type TestHub } from "./harness";
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { schema } from "@hub/db";
import { runResetPassword } from "../src/identity/reset-password";
import { Browser, CLIENT_ID, CLIENT_SECRET, freePort, signInAtProvider, startProvider, type TestProvider } from "./oidc-fixtures";

const [providerPort, portA, portB, portC] = [await freePort(), await freePort(), await freePort(), await freePort()];
/** The one sector of hub C's auto-created employees (inserted with this id before they sign in). */
const DEFAULT_SECTOR_ID = "5d3c2b1a-0f9e-4d8c-b7a6-958473625140";
const issuer = `http://127.0.0.1:${providerPort}`;
const ssoEnv = (port: number) => ({
  PORT: String(port),
  HUB_PUBLIC_URL: `http://127.0.0.1:${port}`,
  HUB_OIDC_ISSUER: issuer,
  HUB_OIDC_CLIENT_ID: CLIENT_ID,
  HUB_OIDC_CLIENT_SECRET: CLIENT_SECRET,
  HUB_OIDC_ALLOW_INSECURE: "true",
  HUB_OIDC_NAME: "Test IdP",
});
const callbackOf = (port: number) => `http://127.0.0.1:${port}/identity/oidc/callback`;

/** Hub A: known users only, passwords on. */
const hubA = useStartedHub(() => startTestHub(ssoEnv(portA)));
/** Hub B: creates unknown users, passwords off (so no bootstrap admin signs in by password). */
const hubB = useStartedHub(() =>
  startTestHub({ ...ssoEnv(portB), HUB_OIDC_AUTO_CREATE: "true", HUB_PASSWORD_LOGIN: "false", HUB_ADMIN_EMAIL: "", HUB_ADMIN_PASSWORD: "" }),
);
/** Hub C: creates unknown users in HUB_OIDC_DEFAULT_SECTOR_IDS. */
const hubC = useStartedHub(() => startTestHub({ ...ssoEnv(portC), HUB_OIDC_AUTO_CREATE: "true", HUB_OIDC_DEFAULT_SECTOR_IDS: DEFAULT_SECTOR_ID }));
let provider: TestProvider | undefined;
afterAll(async () => provider?.stop());

let accountSeq = 0;
function account(email: string, emailVerified?: boolean): string {
  const id = `account-${++accountSeq}`;
  provider!.accounts.set(id, emailVerified === undefined ? { email } : { email, email_verified: emailVerified });
  return id;
}

/** The whole browser walk: hub login → provider → the hub's callback; answers the callback's response. */
async function signIn(hub: TestHub, accountId: string, browser = new Browser()) {
  const port = Number(new URL(hub.api.url).port);
  const login = await browser.request(`${hub.api.url}/identity/oidc/login`);
  expect(login.status).toBe(302);
  const atCallback = await signInAtProvider(browser, login.headers.get("location")!, accountId, callbackOf(port));
  const callbackUrl = atCallback.headers.get("location")!;
  expect(callbackUrl.startsWith(callbackOf(port))).toBe(true);
  const callback = await browser.request(callbackUrl);
  return { callback, callbackUrl, browser, location: callback.headers.get("location") ?? "" };
}

const ssoCode = (location: string) => /^\/console\/#sso_code=([\w-]+)$/.exec(location)?.[1];

describe("single sign-on", () => {
  it("when the provider is down at start, then login answers 503 with Retry-After, passwords work, and once it is up login redirects to it", async () => {
    const early = await fetch(`${hubA.api.url}/identity/oidc/login`, { redirect: "manual" });
    expect(early.status).toBe(503);
    expect(Number(early.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(hubA.adminToken).not.toBe("");

    // One client registered with both hubs' callbacks.
    provider = await startProvider(providerPort, [callbackOf(portA), callbackOf(portB), callbackOf(portC)]);
    const deadline = Date.now() + 20_000;
    let status = 0;
    while (Date.now() < deadline) {
      const answers = await Promise.all([hubA, hubB, hubC].map((hub) => fetch(`${hub.api.url}/identity/oidc/login`, { redirect: "manual" })));
      status = answers.every((answer) => answer.status === 302) ? 302 : answers.find((answer) => answer.status !== 302)!.status;
      if (status === 302) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe(302);
  }, 30_000);

  it("when login starts, then it redirects to the provider with code, PKCE S256, state and nonce, bound by an HttpOnly cookie", async () => {
    const browser = new Browser();
    const login = await browser.request(`${hubA.api.url}/identity/oidc/login`);
    const target = new URL(login.headers.get("location")!);
    expect(`${target.origin}${target.pathname}`).toBe(`${issuer}/auth`);
    expect(Object.fromEntries(target.searchParams)).toMatchObject({
      response_type: "code",
      client_id: CLIENT_ID,
      redirect_uri: callbackOf(portA),
      scope: "openid email",
      code_challenge_method: "S256",
    });
    for (const name of ["state", "nonce", "code_challenge"]) expect(target.searchParams.get(name)).toMatch(/^[\w-]{43}$/);
    const cookie = login.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^hub_oidc=[\w-]+; Path=\/identity\/oidc; Max-Age=600; HttpOnly; SameSite=Lax/);
    // The pending login lives at most 10 minutes, whatever the browser does with its cookie.
    const key = `${hubA.env.HUB_REDIS_PREFIX}:oidc:state:${createHash("sha256").update(target.searchParams.get("state")!).digest("base64url")}`;
    expect(await hubA.api.ctx.redis.ttl(key)).toBeGreaterThan(590);
    expect(await hubA.api.ctx.redis.ttl(key)).toBeLessThanOrEqual(600);
  });

  it("when an active user signs in with a verified e-mail, then the console gets a one-time code worth one login token", async () => {
    const user = await hubA.createUser("employee");
    const { location } = await signIn(hubA, account(user.email.toUpperCase(), true));
    const code = ssoCode(location);
    expect(code, location).toBeDefined();
    expect(location).not.toMatch(/access_token|eyJ/);

    const redeemed = await fetch(`${hubA.api.url}/identity/oidc/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code }),
    });
    expect(redeemed.status).toBe(200);
    expect(redeemed.headers.get("cache-control")).toBe("no-store");
    expect(redeemed.headers.get("pragma")).toBe("no-cache");
    const body = (await redeemed.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["access_token", "expires_in", "token_type"]);
    const me = await hubA.client.get<{ id: string }>("/identity/me", { token: body.access_token as string });
    expect(me.body.id).toBe(user.id);

    const again = await hubA.client.post("/identity/oidc/token", { code });
    expect(again.status).toBe(400);
    expect((await hubA.client.post("/identity/oidc/token", { code: "made-up" })).status).toBe(400);
  });

  it("when the e-mail is unverified, or its verification is absent, then the console is told email_unverified", async () => {
    const user = await hubA.createUser("employee");
    expect((await signIn(hubA, account(user.email, false))).location).toBe("/console/?sso_error=email_unverified");
    expect((await signIn(hubA, account(user.email))).location).toBe("/console/?sso_error=email_unverified");
  });

  it("when nobody has the e-mail, then unknown_user; with auto-create, an employee of every sector is created and signed in", async () => {
    expect((await signIn(hubA, account("nobody-a@hub.test", true))).location).toBe("/console/?sso_error=unknown_user");

    const { location } = await signIn(hubB, account("New.Person@hub.test", true));
    const code = ssoCode(location);
    expect(code, location).toBeDefined();
    const redeemed = await hubB.client.post<{ access_token: string }>("/identity/oidc/token", { code });
    const me = await hubB.client.get<Record<string, unknown>>("/identity/me", { token: redeemed.body.access_token });
    expect(me.body).toMatchObject({ email: "new.person@hub.test", role: "employee", is_active: true, sector_ids: null });
  });

  it("when auto-create has default sectors, then the new employee reaches only those", async () => {
    await hubC.api.ctx.database.db.insert(schema.sectors).values({ id: DEFAULT_SECTOR_ID, name: "HR", color: "#AA3366" });
    const code = ssoCode((await signIn(hubC, account("hired@hub.test", true))).location);
    const redeemed = await hubC.client.post<{ access_token: string }>("/identity/oidc/token", { code });
    const me = await hubC.client.get<Record<string, unknown>>("/identity/me", { token: redeemed.body.access_token });
    expect(me.body).toMatchObject({ email: "hired@hub.test", role: "employee", sector_ids: [DEFAULT_SECTOR_ID] });
  });

  it("when the user is deactivated, then the console is told deactivated and gets no code", async () => {
    const user = await hubA.createUser("employee");
    expect((await hubA.client.delete(`/identity/users/${user.id}`, { token: hubA.adminToken })).status).toBe(204);
    expect((await signIn(hubA, account(user.email, true))).location).toBe("/console/?sso_error=deactivated");
  });

  it("when a callback is replayed, or reaches another browser, then invalid_request", async () => {
    const user = await hubA.createUser("employee");
    const id = account(user.email, true);
    const first = await signIn(hubA, id);
    expect(ssoCode(first.location)).toBeDefined();
    const replayed = await first.browser.request(first.callbackUrl);
    expect(replayed.headers.get("location")).toBe("/console/?sso_error=invalid_request");

    // Another browser's login: its state, carried to a browser without the cookie that binds it.
    const victim = new Browser();
    const login = await victim.request(`${hubA.api.url}/identity/oidc/login`);
    const atCallback = await signInAtProvider(victim, login.headers.get("location")!, id, callbackOf(portA));
    const foreign = await new Browser().request(atCallback.headers.get("location")!);
    expect(foreign.headers.get("location")).toBe("/console/?sso_error=invalid_request");
    // …and the state is spent: the right browser cannot use it after.
    expect((await victim.request(atCallback.headers.get("location")!)).headers.get("location")).toBe("/console/?sso_error=invalid_request");
    // A made-up state.
    expect((await new Browser().request(`${callbackOf(portA)}?code=x&state=forged`)).headers.get("location")).toBe("/console/?sso_error=invalid_request");
  });

  it("when password sign-in is off, then POST /identity/token answers 403 naming the single sign-on, and the options say so", async () => {
    const refused = await hubB.client.post("/identity/token", { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: "Password sign-in is turned off: sign in with Test IdP" });
    expect((await hubB.client.get("/identity/oidc/options")).body).toEqual({ password_login: false, sso: { name: "Test IdP" } });
    expect((await hubA.client.get("/identity/oidc/options")).body).toEqual({ password_login: true, sso: { name: "Test IdP" } });
  });

  it("when password sign-in is off, then the break-glass reset-password command still sets a password", async () => {
    let stderr = "";
    const code = await runResetPassword({
      argv: ["--email", "new.person@hub.test"],
      env: { DATABASE_URL: hubB.database.url, HUB_PASSWORD_LOGIN: "false" },
      stdin: Object.assign(Readable.from(["a break-glass passphrase\n"]), { isTTY: false }),
      stdout: { write: () => true },
      stderr: { write: (chunk: string) => ((stderr += chunk), true) },
    });
    expect(code, stderr).toBe(0);
  });
});
