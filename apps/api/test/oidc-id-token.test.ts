/**
 * Single sign-on refuses an ID token that does not hold (CONTRACT §6.22: `invalid_token`): the
 * real provider (oidc-provider) answers the code exchange, and a hook on its token endpoint
 * rewrites the ID token as a forger, a stale cache or a misconfigured provider would. The hub
 * creates unknown users here (HUB_OIDC_AUTO_CREATE=true), so a token taken by mistake would show
 * as a new user.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT, type JWTPayload } from "jose";
import { startTestHub, useStartedHub } from "./harness";
import { Browser, CLIENT_ID, CLIENT_SECRET, freePort, signInAtProvider, startProvider, type TestProvider } from "./oidc-fixtures";

const [providerPort, hubPort] = [await freePort(), await freePort()];
const issuer = `http://127.0.0.1:${providerPort}`;
const callback = `http://127.0.0.1:${hubPort}/identity/oidc/callback`;
const KID = "provider-key-1";

/** The provider's own signing key (so a test can sign as the provider), and a forger's. */
const providerKey = await generateKeyPair("RS256", { extractable: true });
const forgerKey = await generateKeyPair("RS256", { extractable: true });
const providerJwk = { ...(await exportJWK(providerKey.privateKey)), kid: KID, alg: "RS256", use: "sig" };

type Rewrite = (idToken: string) => Promise<string>;
let rewrite: Rewrite | undefined;

const hub = useStartedHub(() =>
  startTestHub({
    PORT: String(hubPort),
    HUB_PUBLIC_URL: `http://127.0.0.1:${hubPort}`,
    HUB_OIDC_ISSUER: issuer,
    HUB_OIDC_CLIENT_ID: CLIENT_ID,
    HUB_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    HUB_OIDC_ALLOW_INSECURE: "true",
    HUB_OIDC_AUTO_CREATE: "true",
  }),
);
let provider: TestProvider;

beforeAll(async () => {
  provider = await startProvider(providerPort, [callback], { signingKeys: [providerJwk], rewriteIdToken: () => rewrite });
  for (let tries = 0; (await fetch(`${hub.api.url}/identity/oidc/login`, { redirect: "manual" })).status !== 302; tries++) {
    if (tries > 100) throw new Error("the hub never discovered the provider");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, 30_000);
afterAll(async () => provider?.stop());

const now = () => Math.floor(Date.now() / 1000);
const claimsOf = (idToken: string) => decodeJwt(idToken);

/** Signs `claims` as the provider would (its key and kid), or with `key` under the provider's kid. */
const sign = (claims: JWTPayload, key = providerKey.privateKey) => new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: KID }).sign(key);

/** Each way an ID token can fail, as a rewrite of the genuine one. */
const forgeries: Array<[string, Rewrite]> = [
  [
    "its e-mail changed after signing",
    async (idToken) => {
      const [header, , signature] = idToken.split(".");
      const payload = Buffer.from(JSON.stringify({ ...claimsOf(idToken), email: "forged@hub.test" })).toString("base64url");
      return `${header}.${payload}.${signature}`;
    },
  ],
  ["signed by a key the issuer does not publish", (idToken) => sign({ ...claimsOf(idToken), email: "forged@hub.test" }, forgerKey.privateKey)],
  ["expired an hour ago", (idToken) => sign({ ...claimsOf(idToken), iat: now() - 7200, exp: now() - 3600 })],
  ["issued to another client", (idToken) => sign({ ...claimsOf(idToken), aud: "another-client" })],
  ["issued by another issuer", (idToken) => sign({ ...claimsOf(idToken), iss: "http://127.0.0.1:1" })],
  ["for another login (its nonce)", (idToken) => sign({ ...claimsOf(idToken), nonce: "another-login" })],
  [
    "unsigned (alg none)",
    async (idToken) => {
      const header = Buffer.from(JSON.stringify({ ...decodeProtectedHeader(idToken), alg: "none" })).toString("base64url");
      return `${header}.${idToken.split(".")[1]}.`;
    },
  ],
  ["not a JWT at all", async () => "not-a-token"],
];

let accountSeq = 0;

/** The browser's whole walk for a new, verified e-mail at the provider; answers where the callback sends it. */
async function signInAs(email: string): Promise<string> {
  const accountId = `forgery-${++accountSeq}`;
  provider.accounts.set(accountId, { email, email_verified: true });
  const browser = new Browser();
  const login = await browser.request(`${hub.api.url}/identity/oidc/login`);
  const atCallback = await signInAtProvider(browser, login.headers.get("location")!, accountId, callback);
  return (await browser.request(atCallback.headers.get("location")!)).headers.get("location") ?? "";
}

async function countRows() {
  const { pool } = hub.api.ctx.database;
  const users = await pool.query<{ n: string }>("select count(*) as n from users");
  const events = await pool.query<{ n: string }>("select count(*) as n from events");
  const codes = await hub.api.ctx.redis.keys(`${hub.env.HUB_REDIS_PREFIX}:oidc:code:*`);
  return { users: Number(users.rows[0]!.n), events: Number(events.rows[0]!.n), codes: codes.length };
}

describe("single sign-on: the ID token", () => {
  it.each(forgeries)("when the ID token is %s, then the console is told invalid_token and nothing is created", async (_name, forge) => {
    const before = await countRows();
    const email = `person-${accountSeq + 1}@hub.test`;
    rewrite = forge;
    try {
      expect(await signInAs(email)).toBe("/console/?sso_error=invalid_token");
    } finally {
      rewrite = undefined;
    }
    expect(await countRows()).toEqual(before);
    const { pool } = hub.api.ctx.database;
    expect((await pool.query("select 1 from users where email in ($1, 'forged@hub.test')", [email])).rowCount).toBe(0);
  });

  it("when the same sign-in goes untouched, then the provider's token is taken and the new e-mail gets an employee", async () => {
    const location = await signInAs("untouched@hub.test");
    expect(location).toMatch(/^\/console\/#sso_code=[\w-]+$/);
    const { pool } = hub.api.ctx.database;
    expect((await pool.query("select 1 from users where email = 'untouched@hub.test'")).rowCount).toBe(1);
  });
});
