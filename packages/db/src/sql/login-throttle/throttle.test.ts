import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../test-kit";
import { loginThrottle } from "../../index";

const hub = useTestDatabase();

const uniqueEmail = () => `someone-${randomBytes(5).toString("hex")}@hub.test`;
const limit = (subject: string, max: number, enforced = true): loginThrottle.LoginAttemptLimit => ({ subject, max, windowSeconds: 300, enforced });

async function countOf(subject: string): Promise<number> {
  const { rows } = await hub().db.execute<{ n: number }>(
    sql`select coalesce(cardinality(attempts), 0) as n from login_attempt_windows where subject = ${subject}`,
  );
  return rows[0]?.n ?? 0;
}

describe("addLoginAttempt", () => {
  it("when 40 attempts for one subject arrive at once with a limit of 10, then exactly 10 are admitted", async () => {
    const subject = loginThrottle.loginThrottleSubjects.pair(uniqueEmail(), "192.0.2.1");

    const answers = await Promise.all(Array.from({ length: 40 }, () => loginThrottle.addLoginAttempt(hub().pool, [limit(subject, 10)])));

    expect(answers.filter((answer) => answer.admitted)).toHaveLength(10);
    for (const answer of answers.filter((answer) => !answer.admitted)) {
      expect(answer).toEqual({ admitted: false, subject, retryAfterSeconds: expect.any(Number) });
      if (!answer.admitted) expect(answer.retryAfterSeconds).toBeGreaterThanOrEqual(299);
    }
    expect(await countOf(subject)).toBe(10);
  });

  it("when one of two limits is full, then the attempt is added to neither", async () => {
    const email = uniqueEmail();
    const [emailSubject, pairSubject] = [loginThrottle.loginThrottleSubjects.email(email), loginThrottle.loginThrottleSubjects.pair(email, "192.0.2.2")];
    await loginThrottle.addLoginAttempt(hub().pool, [limit(pairSubject, 1)]);

    const answer = await loginThrottle.addLoginAttempt(hub().pool, [limit(emailSubject, 100), limit(pairSubject, 1)]);

    expect(answer).toMatchObject({ admitted: false, subject: pairSubject });
    expect(await countOf(emailSubject)).toBe(0);
    expect(await countOf(pairSubject)).toBe(1);
  });

  it("when a limit is not enforced, then a full subject still admits and keeps only its newest attempts", async () => {
    const subject = loginThrottle.loginThrottleSubjects.email(uniqueEmail());
    for (let i = 0; i < 3; i++) await loginThrottle.addLoginAttempt(hub().pool, [limit(subject, 2)]);

    const answer = await loginThrottle.addLoginAttempt(hub().pool, [limit(subject, 2, false)]);

    expect(answer.admitted).toBe(true);
    expect(await countOf(subject)).toBe(2);
  });

  it("when an attempt is taken back, then exactly that one leaves the count", async () => {
    const subject = loginThrottle.loginThrottleSubjects.email(uniqueEmail());
    await loginThrottle.addLoginAttempt(hub().pool, [limit(subject, 5)]);
    const second = await loginThrottle.addLoginAttempt(hub().pool, [limit(subject, 5)]);
    if (!second.admitted) throw new Error("expected the second attempt to be admitted");

    await loginThrottle.removeLoginAttempt(hub().pool, subject, second.at);

    expect(await countOf(subject)).toBe(1);
  });

  it("when attempts are older than the window, then they no longer count", async () => {
    const subject = loginThrottle.loginThrottleSubjects.address("192.0.2.3");
    await loginThrottle.addLoginAttempt(hub().pool, [limit(subject, 1)]);
    await hub().db.execute(sql`update login_attempt_windows set attempts = array[now() - interval '301 seconds'] where subject = ${subject}`);

    expect((await loginThrottle.addLoginAttempt(hub().pool, [limit(subject, 1)])).admitted).toBe(true);
  });
});

describe("clearLoginFailuresForEmail", () => {
  it("when an e-mail's failures are cleared, then its own count and every pair of it go, and other e-mails' stay", async () => {
    const [email, other] = [uniqueEmail(), uniqueEmail()];
    const subjects = [
      loginThrottle.loginThrottleSubjects.email(email),
      loginThrottle.loginThrottleSubjects.pair(email, "192.0.2.4"),
      loginThrottle.loginThrottleSubjects.pair(email, "2001:db8:1:2::"),
    ];
    for (const subject of subjects) await loginThrottle.addLoginAttempt(hub().pool, [limit(subject, 10)]);
    await loginThrottle.addLoginAttempt(hub().pool, [limit(loginThrottle.loginThrottleSubjects.email(other), 10)]);

    await loginThrottle.clearLoginFailuresForEmail(hub().pool, `  ${email.toUpperCase()} `);

    for (const subject of subjects) expect(await countOf(subject)).toBe(0);
    expect(await countOf(loginThrottle.loginThrottleSubjects.email(other))).toBe(1);
  });
});
