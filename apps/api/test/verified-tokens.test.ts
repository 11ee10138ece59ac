import { describe, expect, it, vi } from "vitest";
import { VerifiedTokens } from "../src/http/auth";
import { TokenService } from "../src/identity/tokens";

const SECRET = "a-test-secret-that-is-at-least-32-characters-long";
const USER_ID = "6f1c2f4e-1d2b-4c3a-9e8f-0a1b2c3d4e5f";

function counting(tokens: TokenService) {
  const verify = vi.spyOn(tokens, "verify");
  return { verifiedTokens: new VerifiedTokens(tokens, 2), verifyCalls: () => verify.mock.calls.length };
}

describe("verified bearer tokens", () => {
  it("when a token verified once comes again before it expires, then its claims come back without checking the signature again", async () => {
    const tokens = new TokenService(SECRET, 3600);
    const token = await tokens.issue({ userId: USER_ID, role: "employee", generation: 0 });
    const { verifiedTokens, verifyCalls } = counting(tokens);

    expect(await verifiedTokens.verify(token)).toEqual({ userId: USER_ID, role: "employee", generation: 0 });
    expect(await verifiedTokens.verify(token)).toEqual({ userId: USER_ID, role: "employee", generation: 0 });
    expect(verifyCalls()).toBe(1);
  });

  it("when a remembered token's lifetime is over, then it is verified again and refused", async () => {
    const tokens = new TokenService(SECRET, 60);
    const token = await tokens.issue({ userId: USER_ID, role: "admin", generation: 0 });
    const { verifiedTokens, verifyCalls } = counting(tokens);
    expect(await verifiedTokens.verify(token)).not.toBeNull();

    vi.useFakeTimers({ now: Date.now() + 120_000, toFake: ["Date"] });
    try {
      expect(await verifiedTokens.verify(token)).toBeNull();
    } finally {
      vi.useRealTimers();
    }
    expect(verifyCalls()).toBe(2);
  });

  it("when a token is forged, then it is refused every time, never remembered", async () => {
    const forger = new TokenService("another-secret-that-is-at-least-32-characters!!", 3600);
    const forged = await forger.issue({ userId: USER_ID, role: "admin", generation: 0 });
    const { verifiedTokens, verifyCalls } = counting(new TokenService(SECRET, 3600));

    expect(await verifiedTokens.verify(forged)).toBeNull();
    expect(await verifiedTokens.verify(forged)).toBeNull();
    expect(verifyCalls()).toBe(2);
  });

  it("when more tokens arrive than it remembers, then the oldest is forgotten and verified again when it returns", async () => {
    const tokens = new TokenService(SECRET, 3600);
    const [first, second, third] = await Promise.all(
      ["a", "b", "c"].map((suffix) => tokens.issue({ userId: USER_ID.slice(0, -1) + suffix, role: "employee", generation: 0 })),
    );
    const { verifiedTokens, verifyCalls } = counting(tokens);
    for (const token of [first!, second!, third!]) await verifiedTokens.verify(token);

    await verifiedTokens.verify(third!);
    expect(verifyCalls()).toBe(3);
    await verifiedTokens.verify(first!);
    expect(verifyCalls()).toBe(4);
  });
});
