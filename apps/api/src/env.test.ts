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

describe("HUB_TRUST_PROXY", () => {
  it("when unset, then no proxy is trusted (the socket's address counts)", () => {
    expect(loadApiEnv(REQUIRED).HUB_TRUST_PROXY).toBe(false);
  });

  it("when true, a hop count or a list of addresses, then it becomes Express's trust proxy value of that kind", () => {
    expect(loadApiEnv({ ...REQUIRED, HUB_TRUST_PROXY: "true" }).HUB_TRUST_PROXY).toBe(true);
    expect(loadApiEnv({ ...REQUIRED, HUB_TRUST_PROXY: "2" }).HUB_TRUST_PROXY).toBe(2);
    expect(loadApiEnv({ ...REQUIRED, HUB_TRUST_PROXY: "loopback, 10.0.0.0/8" }).HUB_TRUST_PROXY).toBe("loopback, 10.0.0.0/8");
  });
});

describe("the login throttle's and size settings", () => {
  it("when unset, then the contract's defaults apply; 0 turns a login limit off", () => {
    const env = loadApiEnv({ ...REQUIRED, HUB_LOGIN_MAX_FAILURES: "0" });

    expect(env).toMatchObject({
      HUB_LOGIN_MAX_FAILURES: 0,
      HUB_LOGIN_MAX_FAILURES_PER_EMAIL: 100,
      HUB_LOGIN_MAX_PER_ADDRESS_PER_MINUTE: 30,
      HUB_JOB_CONTEXT_MAX_BYTES: 65_536,
      HUB_JOB_RESULT_MAX_BYTES: 262_144,
      HUB_JOB_LOG_MAX_BYTES: 1024 * 1024,
      HUB_LIST_MAX_BYTES: 8 * 1024 * 1024,
      HUB_WORKER_MAX_STREAMS: 64,
    });
  });
});
