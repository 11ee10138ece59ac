import { describe, expect, it } from "vitest";
import { RetryableError } from "./errors";
import { failureText, outcomeOf } from "./outcome";

describe("failureText", () => {
  it("when a message is too long or holds text PostgreSQL cannot store, then it is cut to 10 000 characters and cleaned", () => {
    const cut = failureText("x".repeat(20_000));
    expect(cut).toHaveLength(10_000);
    expect(cut.endsWith("…")).toBe(true);
    expect(failureText("bad\u0000byte \ud800 here")).toBe("badbyte \ufffd here");
    expect(failureText("   ")).toBe("failed");
  });
});

describe("outcomeOf", () => {
  it("when a handler returns an object or nothing, then the job completes with it or with {}", async () => {
    expect(await outcomeOf(async () => ({ rows: 3 }))).toEqual({ ok: true, result: { rows: 3 } });
    expect(await outcomeOf(async () => undefined)).toEqual({ ok: true, result: {} });
  });

  it("when a handler returns something other than an object, then the job fails for good", async () => {
    expect(await outcomeOf(async () => [1, 2])).toMatchObject({ ok: false, retryable: false, error: expect.stringContaining("an array") });
  });

  it("when a handler throws, then only a RetryableError makes the failure retryable", async () => {
    expect(
      await outcomeOf(async () => {
        throw new RetryableError("busy");
      }),
    ).toEqual({ ok: false, error: "busy", retryable: true });
    expect(
      await outcomeOf(async () => {
        throw new Error("broken");
      }),
    ).toEqual({ ok: false, error: "broken", retryable: false });
  });
});
