import { describe, expect, it } from "vitest";
import { loadApiEnv } from "./env";

const REQUIRED = { HUB_JWT_SECRET: "a-secret-that-is-at-least-32-characters-long" };

describe("HUB_SCHEDULES_ALLOW_SECONDS", () => {
  it("when unset or empty, then seconds fields are not allowed", () => {
    expect(loadApiEnv(REQUIRED).HUB_SCHEDULES_ALLOW_SECONDS).toBe(false);
    expect(loadApiEnv({ ...REQUIRED, HUB_SCHEDULES_ALLOW_SECONDS: "" }).HUB_SCHEDULES_ALLOW_SECONDS).toBe(false);
  });

  it("when true, then they are", () => {
    expect(loadApiEnv({ ...REQUIRED, HUB_SCHEDULES_ALLOW_SECONDS: "true" }).HUB_SCHEDULES_ALLOW_SECONDS).toBe(true);
  });

  it("when anything but true or false, then start-up fails naming the variable", () => {
    expect(() => loadApiEnv({ ...REQUIRED, HUB_SCHEDULES_ALLOW_SECONDS: "yes" })).toThrow(
      "Configuration error: HUB_SCHEDULES_ALLOW_SECONDS is invalid: expected true or false",
    );
  });
});
