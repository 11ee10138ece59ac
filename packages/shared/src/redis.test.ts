import { describe, expect, it } from "vitest";
import { isRedisUnavailable } from "./redis";

describe("isRedisUnavailable", () => {
  it.each([
    ["a command timeout", new Error("Command timed out")],
    ["a connection closed under a command", new Error("Connection is closed.")],
    ["no connection and no offline queue", new Error("Stream isn't writeable and enableOfflineQueue options is false")],
    ["a refused connection", Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), { code: "ECONNREFUSED" })],
    ["Redis loading its data set", new Error("LOADING Redis is loading the dataset in memory")],
  ])("when the error is %s, then Redis is unavailable", (_what, error) => {
    expect(isRedisUnavailable(error)).toBe(true);
  });

  it.each([
    ["a wrong-type reply", new Error("WRONGTYPE Operation against a key holding the wrong kind of value")],
    ["a message that only mentions a refused connection", new Error("connect ECONNREFUSED db-internal:5432")],
    ["a non-error", undefined],
  ])("when the error is %s, then it is not an outage", (_what, error) => {
    expect(isRedisUnavailable(error)).toBe(false);
  });
});
