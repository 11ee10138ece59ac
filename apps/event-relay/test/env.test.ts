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
      HUB_RELAY_QUIET_POLL_MS: 1000,
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

  it("when the webhook variables are set, then the key is read as 32 bytes and the flags and scale parsed; a bad key is refused without echoing it", () => {
    const key = Buffer.alloc(32, 9);

    const env = loadRelayEnv({
      HUB_WEBHOOK_ENCRYPTION_KEY: key.toString("base64"),
      HUB_WEBHOOKS_ALLOW_INSECURE: "true",
      HUB_WEBHOOKS_ALLOW_PRIVATE: "true",
      HUB_WEBHOOK_TIME_SCALE: "0.001",
    });
    const defaults = loadRelayEnv({});
    const badKey = () => loadRelayEnv({ HUB_WEBHOOK_ENCRYPTION_KEY: "not-a-key-but-a-secret-all-the-same" });
    const badFlag = () => loadRelayEnv({ HUB_WEBHOOKS_ALLOW_PRIVATE: "maybe" });

    expect(env).toMatchObject({
      HUB_WEBHOOK_ENCRYPTION_KEY: key,
      HUB_WEBHOOKS_ALLOW_INSECURE: true,
      HUB_WEBHOOKS_ALLOW_PRIVATE: true,
      HUB_WEBHOOK_TIME_SCALE: 0.001,
    });
    expect(defaults).toMatchObject({
      HUB_WEBHOOKS_ALLOW_INSECURE: false,
      HUB_WEBHOOKS_ALLOW_PRIVATE: false,
      HUB_WEBHOOK_TIME_SCALE: 1,
      HUB_WEBHOOK_CONCURRENCY: 64,
    });
    expect(defaults.HUB_WEBHOOK_ENCRYPTION_KEY).toBeUndefined();
    expect(badKey).toThrow(/^Configuration error: HUB_WEBHOOK_ENCRYPTION_KEY is invalid: must be 32 bytes/);
    expect(badKey).not.toThrow(/not-a-key/);
    expect(badFlag).toThrow(/^Configuration error: HUB_WEBHOOKS_ALLOW_PRIVATE is invalid/);
  });
});
