import bcrypt from "bcrypt";
import { afterEach, describe, expect, it, vi } from "vitest";
import { hashPassword, PasswordTooLongError, verifyPassword } from "./passwords";

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
