import { describe, expect, it } from "vitest";
import { EnvError } from "@hub/shared";
import { loadRelayEnv } from "../src/env";

describe("relay configuration", () => {
  it("when nothing is set, then the documented defaults apply", () => {
    // Act
    const env = loadRelayEnv({});

    // Assert
    expect(env).toMatchObject({
      HUB_REDIS_PREFIX: "hub",
      HUB_RELAY_METRICS_PORT: 9465,
      HUB_EVENTS_STREAM_MAXLEN: 100_000,
      HUB_RELAY_BATCH_SIZE: 500,
      HUB_RELAY_IDLE_POLL_MS: 10,
      HUB_RELAY_QUIET_POLL_MS: 25,
      HUB_RELAY_REBALANCE_MS: 1000,
    });
  });

  it("when a variable is invalid, then start-up fails with one line naming it", () => {
    // Act
    const zeroRetention = () => loadRelayEnv({ HUB_EVENTS_STREAM_MAXLEN: "0" });
    const notANumber = () => loadRelayEnv({ HUB_RELAY_METRICS_PORT: "lots" });

    // Assert
    expect(zeroRetention).toThrow(EnvError);
    expect(zeroRetention).toThrow(/^Configuration error: HUB_EVENTS_STREAM_MAXLEN is invalid: must be ≥ 1$/);
    expect(notANumber).toThrow(/^Configuration error: HUB_RELAY_METRICS_PORT /);
  });
});
