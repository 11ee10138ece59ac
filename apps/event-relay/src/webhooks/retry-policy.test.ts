import { describe, expect, it } from "vitest";
import { webhookDisableAfterMs, webhookRetryDelayMs } from "./retry-policy";

describe("webhook retry schedule", () => {
  it("when attempts fail, then the waits are 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, and after the 7th attempt there is none", () => {
    const middle = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => webhookRetryDelayMs(n, 1, middle))).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, null]);
  });

  it("when jitter is drawn, then a wait stays within ±20 % of its nominal value", () => {
    expect(webhookRetryDelayMs(1, 1, () => 0)).toBe(4_000);
    expect(webhookRetryDelayMs(1, 1, () => 0.999999)).toBe(6_000);
    for (let i = 0; i < 200; i++) {
      const wait = webhookRetryDelayMs(2, 1)!;
      expect(wait).toBeGreaterThanOrEqual(240_000);
      expect(wait).toBeLessThanOrEqual(360_000);
    }
  });

  it("when a time scale is set, then every wait and the 24 h disable window shrink by it", () => {
    expect(webhookRetryDelayMs(1, 0.001, () => 0.5)).toBe(5);
    expect(webhookDisableAfterMs(1)).toBe(86_400_000);
    expect(webhookDisableAfterMs(0.001)).toBe(86_400);
  });
});
