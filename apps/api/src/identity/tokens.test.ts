import { afterEach, describe, expect, it, vi } from "vitest";
import { TokenService } from "./tokens";

const SECRET = "a-test-secret-that-is-at-least-32-characters-long";
const USER_ID = "6f1c2f4e-1d2b-4c3a-9e8f-0a1b2c3d4e5f";

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("TokenService", () => {
  it("when the clock reaches the next second while a token is issued, then the token still verifies", async () => {
    const tokens = new TokenService(SECRET, 3600);
    // Every reading of the clock during issue is a second later than the one before.
    const RealDate = Date;
    let readings = 0;
    class TickingDate extends RealDate {
      constructor(...args: []) {
        if (args.length > 0) super(...args);
        else super(RealDate.now() + 1000 * readings++);
      }
      static override now(): number {
        return RealDate.now() + 1000 * readings++;
      }
    }
    vi.stubGlobal("Date", TickingDate);
    const token = await tokens.issue({ userId: USER_ID, role: "admin", generation: 0 });
    vi.unstubAllGlobals();

    expect(readings).toBeGreaterThan(0);
    expect(await tokens.verify(token)).toEqual({ userId: USER_ID, role: "admin", generation: 0 });
  });

  it("when a token is issued, then it lives exactly the configured lifetime", async () => {
    const token = await new TokenService(SECRET, 900).issue({ userId: USER_ID, role: "employee", generation: 0 });
    const payload = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as { iat: number; exp: number };

    expect(payload.exp - payload.iat).toBe(900);
  });
});
