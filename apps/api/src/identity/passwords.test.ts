import bcrypt from "bcrypt";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HashingSlots, hashPassword, PasswordHashingBusyError, passwordHashingConcurrency, PasswordTooLongError, verifyPassword } from "./passwords";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("passwords", () => {
  it("when a password is hashed, then only the right password verifies", async () => {
    const hash = await hashPassword("correct horse");

    expect(hash).toMatch(/^\$2b\$10\$/);
    expect(await verifyPassword("correct horse", hash)).toBe(true);
    expect(await verifyPassword("correct horsE", hash)).toBe(false);
  });

  it("when a guess extends a 72-byte password, then it does not verify, although bcrypt alone would accept it", async () => {
    const password = "a".repeat(72);
    const hash = await hashPassword(password);
    const guess = `${password}anything`;

    expect(await bcrypt.compare(guess, hash)).toBe(true);
    expect(await verifyPassword(guess, hash)).toBe(false);
  });

  it("when a password is over 72 bytes, then it is refused rather than truncated", async () => {
    await expect(hashPassword("é".repeat(37))).rejects.toBeInstanceOf(PasswordTooLongError);
    expect(await hashPassword("é".repeat(36))).toMatch(/^\$2b\$/);
  });

  it("when the account is unknown, then a bcrypt compare is still spent and the answer is no", async () => {
    const compare = vi.spyOn(bcrypt, "compare");

    const matches = await verifyPassword("whatever", null);

    expect(matches).toBe(false);
    expect(compare).toHaveBeenCalledTimes(1);
  });
});

describe("hashing slots", () => {
  it("when both slots are taken, then a third waits until one is released, and one that may wait only briefly gives up with PasswordHashingBusyError", async () => {
    const slots = new HashingSlots(2);
    const releases: (() => void)[] = [];
    const hold = () => slots.run(() => new Promise<void>((resolve) => releases.push(resolve)));
    const first = hold();
    const second = hold();
    let thirdStarted = false;
    const third = slots.run(async () => {
      thirdStarted = true;
    });

    const impatient = slots.run(async () => "ran", 10);

    await expect(impatient).rejects.toBeInstanceOf(PasswordHashingBusyError);
    expect(thirdStarted).toBe(false);
    releases[0]!();
    await third;
    expect(thirdStarted).toBe(true);
    releases[1]!();
    await Promise.all([first, second]);
  });

  it("when the thread pool has 4 threads on 2 cores, then 3 hashes run at once (one thread stays free); never fewer than 1", () => {
    expect(passwordHashingConcurrency(4, 2)).toBe(3);
    expect(passwordHashingConcurrency(64, 2)).toBe(4);
    expect(passwordHashingConcurrency(1, 2)).toBe(1);
  });
});
