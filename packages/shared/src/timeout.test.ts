import { describe, expect, it } from "vitest";
import { settleWithin } from "./timeout";

describe("settleWithin", () => {
  it("when the work settles in time, then its value or its error comes through", async () => {
    await expect(settleWithin(Promise.resolve(42), 1000)).resolves.toBe(42);
    await expect(settleWithin(Promise.reject(new Error("refused")), 1000)).rejects.toThrow("refused");
  });

  it("when the work never settles, then it rejects with the timeout's message", async () => {
    await expect(settleWithin(new Promise(() => undefined), 10, "Redis did not answer")).rejects.toThrow("Redis did not answer");
  });

  it("when the work fails after losing the race, then its late rejection is swallowed, not unhandled", async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", listener);
    try {
      let fail: (error: Error) => void = () => undefined;
      const late = new Promise<never>((_, reject) => (fail = reject));

      await expect(settleWithin(late, 10)).rejects.toThrow("timed out after 10 ms");
      fail(new Error("too late"));
      await new Promise((resolve) => setImmediate(resolve));

      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", listener);
    }
  });
});
