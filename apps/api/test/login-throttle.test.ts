/**
 * The login throttle of CONTRACT §6.15 against the real PostgreSQL: per (e-mail, address) and per
 * e-mail failures counted before the password is checked, the per-address request limit, and the
 * client address taken from X-Forwarded-For as HUB_TRUST_PROXY says. Each test signs in from
 * addresses of its own (through a trusted proxy on loopback), so their counts never meet.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readMetric } from "@hub/testing";
import { startTestHub, type TestHub } from "./harness";

const PAIR_MAX = 10;
const EMAIL_MAX = 15;
const ADDRESS_MAX = 30;
const TOO_MANY = { detail: "Too many login attempts; try again later" };

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({
    HUB_TRUST_PROXY: "loopback",
    HUB_LOGIN_MAX_FAILURES: String(PAIR_MAX),
    HUB_LOGIN_MAX_FAILURES_PER_EMAIL: String(EMAIL_MAX),
    HUB_LOGIN_MAX_PER_ADDRESS_PER_MINUTE: String(ADDRESS_MAX),
  });
});
afterAll(async () => {
  await hub?.stop();
});

/** A documentation address (RFC 5737) no other test uses. */
let nextHost = 0;
const prefix = randomBytes(1)[0]!;
function freshAddress(): string {
  nextHost += 1;
  return `198.${18 + (prefix % 2)}.${Math.floor(nextHost / 250)}.${(nextHost % 250) + 1}`;
}

function logIn(email: string, password: string, address: string) {
  return hub.client.post("/identity/token", { email, password }, { headers: { "x-forwarded-for": address } });
}

/** hub_login_throttled_total over every limit. */
const throttled = () => readMetric(`${hub.api.url}/metrics`, "hub_login_throttled_total");

describe("failures per e-mail and address", () => {
  it("when 40 wrong guesses for one e-mail arrive at once from one address, then 10 are checked (401) and 30 refused (429), and the right password is refused too", async () => {
    const user = await hub.createUser("employee");
    const address = freshAddress();
    const throttledBefore = await throttled();

    const burst = await Promise.all(Array.from({ length: 40 }, () => logIn(user.email, "wrong guess", address)));
    const right = await logIn(user.email, user.password, address);

    const statuses = burst.map((result) => result.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(PAIR_MAX);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40 - PAIR_MAX);
    // Whatever order the 40 arrive in: the first ADDRESS_MAX pass the per-address limit, and of
    // those PAIR_MAX are checked and the rest refused by the pair's window (Retry-After up to its
    // 300 s); the 10 beyond ADDRESS_MAX are refused by the address's minute.
    const refused = burst.filter((result) => result.status === 429);
    for (const result of refused) expect(result.body).toEqual(TOO_MANY);
    const retryAfters = refused.map((result) => Number(result.headers.get("retry-after")));
    expect(retryAfters.filter((seconds) => seconds > 250 && seconds <= 300)).toHaveLength(ADDRESS_MAX - PAIR_MAX);
    expect(retryAfters.filter((seconds) => seconds > 0 && seconds <= 60)).toHaveLength(40 - ADDRESS_MAX);
    expect(right.status).toBe(429);
    // 41 requests from one address: the per-address limit refuses some of them first.
    expect(await throttled()).toBe(throttledBefore + 40 - PAIR_MAX + 1);
  });

  it("when the right password is one of 40 concurrent guesses, then no more than 10 of them are checked", async () => {
    const user = await hub.createUser("employee");
    const address = freshAddress();
    const guesses = Array.from({ length: 40 }, (_, i) => (i === 39 ? user.password : `wrong-${i}`));

    const statuses = (await Promise.all(guesses.map((password) => logIn(user.email, password, address)))).map((result) => result.status);

    expect(statuses.filter((status) => status !== 429).length).toBeLessThanOrEqual(PAIR_MAX);
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(1);
  });

  it("when one address has used up its failures for an e-mail, then the owner signing in from elsewhere still gets in", async () => {
    const user = await hub.createUser("employee");
    const attacker = freshAddress();
    for (let i = 0; i < PAIR_MAX; i++) expect((await logIn(user.email, "wrong", attacker)).status).toBe(401);

    expect((await logIn(user.email, user.password, attacker)).status).toBe(429);
    expect((await logIn(user.email, user.password, freshAddress())).status).toBe(200);
  });

  it("when an unknown e-mail is guessed, then it is throttled like a known one (the answers do not tell which e-mails exist)", async () => {
    const email = `nobody-${randomBytes(5).toString("hex")}@hub.test`;
    const address = freshAddress();
    const statuses: number[] = [];
    for (let i = 0; i <= PAIR_MAX; i++) statuses.push((await logIn(` ${email.toUpperCase()} `, "wrong", address)).status);

    expect(statuses).toEqual([...Array<number>(PAIR_MAX).fill(401), 429]);
  });
});

describe("failures per e-mail", () => {
  it("when an e-mail fails from many addresses, then new addresses are refused but one that signed in as it before still gets in", async () => {
    const user = await hub.createUser("employee");
    const home = freshAddress();
    expect((await logIn(user.email, user.password, home)).status).toBe(200);
    for (let i = 0; i < EMAIL_MAX; i++) expect((await logIn(user.email, "wrong", freshAddress())).status).toBe(401);

    const stranger = await logIn(user.email, user.password, freshAddress());
    const owner = await logIn(user.email, user.password, home);

    expect(stranger.status).toBe(429);
    expect(stranger.body).toEqual(TOO_MANY);
    expect(owner.status).toBe(200);
  });
});

describe("requests per address", () => {
  it(`when one address sends ${ADDRESS_MAX} logins in a minute, successes included, then the next is 429 before its body is read (no 413 or 422)`, async () => {
    const user = await hub.createUser("employee");
    const address = freshAddress();
    for (let i = 0; i < ADDRESS_MAX; i++) expect((await logIn(user.email, user.password, address)).status).toBe(200);

    const malformed = await hub.client.post("/identity/token", undefined, {
      rawBody: "{not json",
      headers: { "x-forwarded-for": address, "content-type": "application/json" },
    });
    const tooLarge = await hub.client.post(
      "/identity/token",
      { email: user.email, password: "x".repeat(2 * 1024 * 1024) },
      { headers: { "x-forwarded-for": address } },
    );
    const elsewhere = await logIn(user.email, user.password, freshAddress());

    expect(malformed.status).toBe(429);
    expect(malformed.body).toEqual(TOO_MANY);
    expect(Number(malformed.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(malformed.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(tooLarge.status).toBe(429);
    expect(elsewhere.status).toBe(200);
  });

  it("when the addresses are IPv6, then the hosts of one /64 share the limit and another /64 does not", async () => {
    const net = `2001:db8:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}`;
    // A new e-mail each time: only the per-address limit can refuse.
    const someone = () => `nobody-${randomBytes(5).toString("hex")}@hub.test`;
    for (let host = 1; host <= ADDRESS_MAX; host++) expect((await logIn(someone(), "wrong", `${net}::${host.toString(16)}`)).status).toBe(401);

    const sameNet = await logIn(someone(), "wrong", `${net}:ffff:ffff:ffff:ffff`);
    const otherNet = await logIn(someone(), "wrong", `${net.slice(0, -1)}${net.endsWith("0") ? "1" : "0"}::1`);

    expect(sameNet.status).toBe(429);
    expect(otherNet.status).toBe(401);
  });
});

describe("account changes and the throttle", () => {
  function changeOwnPassword(user: { token: string }, currentPassword: string, address: string) {
    return hub.client.put(
      "/identity/me/password",
      { current_password: currentPassword, new_password: `new-${randomBytes(9).toString("base64url")}` },
      { token: user.token, headers: { "x-forwarded-for": address } },
    );
  }

  it(`when current_password is wrong ${PAIR_MAX} times, then each counted as a failed login: the next change and the next login from that address are 429 whatever the password`, async () => {
    const user = await hub.createUser("employee");
    const address = freshAddress();
    for (let i = 0; i < PAIR_MAX; i++) {
      const wrong = await changeOwnPassword(user, "wrong current password", address);
      expect(wrong.status).toBe(403);
      expect(wrong.body).toEqual({ detail: "Current password is incorrect" });
    }

    const change = await changeOwnPassword(user, user.password, address);
    const login = await logIn(user.email, user.password, address);

    expect(change.status).toBe(429);
    expect(change.body).toEqual(TOO_MANY);
    expect(Number(change.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(login.status).toBe(429);
    // The password did not change.
    expect((await logIn(user.email, user.password, freshAddress())).status).toBe(200);
  });

  it("when an admin resets the password of an e-mail whose logins are throttled, then its owner signs in with the new one at once, from the same address", async () => {
    const user = await hub.createUser("employee");
    const address = freshAddress();
    for (let i = 0; i < PAIR_MAX; i++) expect((await logIn(user.email, "wrong", address)).status).toBe(401);
    expect((await logIn(user.email, user.password, address)).status).toBe(429);

    const newPassword = `reset-${randomBytes(9).toString("base64url")}`;
    const reset = await hub.client.put(`/identity/users/${user.id}/password`, { new_password: newPassword }, { token: hub.adminToken });

    expect(reset.status).toBe(204);
    expect((await logIn(user.email, newPassword, address)).status).toBe(200);
  });
});
